/**
 * The FileSystem contract for streamed and in-place writes (`writeStream`, `writeAt`), run by contract.ts
 * inside every backend's suite. Sources are real ReadableStreams that record whether they were cancelled,
 * fail mid-way, or wait on a gate so a test can write to the file while the data is still arriving.
 */
import { describe, expect, it, type TestContext } from 'vitest';
import type { FileSystem } from '../../../adapters/fs/file-system.ts';
import { deferred } from '../../support/gates.ts';

export interface StreamedWritesBackend {
  fs: FileSystem;
  root: string;
  /**
   * Whether writers to one path queue behind each other (SerializedFileSystem): then a plain write cannot land
   * while a streamed write to the same path is in flight, and runs after it commits.
   */
  serializesWriters?: boolean;
}

interface Source {
  stream: ReadableStream<Uint8Array>;
  /** Settles once the consumer has taken every byte and the source waits on its gate: the write is in flight. */
  readonly atGate: Promise<void>;
  /** True once the consumer cancelled the stream. */
  readonly cancelled: boolean;
  /** Bytes handed to the consumer so far. */
  readonly delivered: number;
}

/** `bytes` in chunks of varying sizes (1 byte up to `chunk`), so chunk boundaries fall everywhere. */
function sourceOf(bytes: Uint8Array, options: { chunk?: number; failAfter?: number; gate?: Promise<void> } = {}): Source {
  const chunk = options.chunk ?? 65_536;
  let position = 0;
  let step = 0;
  const state = { cancelled: false, delivered: 0 };
  let reachedGate!: () => void;
  const atGate = new Promise<void>((resolve) => (reachedGate = resolve));
  const stream = new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (options.failAfter !== undefined && position >= options.failAfter) {
        controller.error(new Error('source failed'));
        return;
      }
      if (position >= bytes.byteLength) {
        reachedGate();
        await options.gate; // the last step waits, so a test can act while the write is in flight
        controller.close();
        return;
      }
      const size = Math.max(1, Math.min(chunk, (++step * 7919) % chunk));
      const next = Math.min(position + size, bytes.byteLength);
      controller.enqueue(bytes.slice(position, next));
      state.delivered += next - position;
      position = next;
    },
    cancel() {
      state.cancelled = true;
    },
  });
  return {
    stream,
    atGate,
    get cancelled() {
      return state.cancelled;
    },
    get delivered() {
      return state.delivered;
    },
  };
}

function pattern(length: number, seed = 0): Uint8Array {
  const out = new Uint8Array(length);
  for (let i = 0; i < length; i++) out[i] = (i * 31 + seed * 101 + (i >>> 8) * 7) & 0xff;
  return out;
}

function expectSameBytes(actual: Uint8Array, expected: Uint8Array): void {
  expect(actual.byteLength).toBe(expected.byteLength);
  let firstDifference = -1;
  for (let i = 0; i < expected.byteLength; i++) {
    if (actual[i] !== expected[i]) {
      firstDifference = i;
      break;
    }
  }
  expect(firstDifference).toBe(-1);
}


const encoder = new TextEncoder();
const decoder = new TextDecoder();

export function describeStreamedWrites(backend: () => StreamedWritesBackend): void {
  const p = (relative: string) => (relative === '' ? backend().root : `${backend().root}/${relative}`);
  const fs = () => backend().fs;
  const put = (relative: string, content: string | Uint8Array) => fs().write(p(relative), content, { mkdirs: true });
  const readText = async (relative: string) => decoder.decode(await fs().read(p(relative)));
  const names = async (relative: string) => (await fs().readdir(p(relative))).map((e) => e.name).sort();

  /**
   * Runs a plain write of `content` to `relative` while `source`'s write to the same path is in flight (every
   * byte taken, the source waiting on `gate`), then lets the streamed write commit. Where writers run
   * concurrently the plain write is awaited to land before the gate opens, so it always lands first; where
   * writers to one path are serialised (`serializesWriters`) it cannot land until the streamed write commits,
   * so the gate opens first. Either way the test knows which outcome it must see, with no timing involved.
   */
  async function writeWhileInFlight(relative: string, content: string, source: Source, gate: { resolve(): void }): Promise<void> {
    await source.atGate;
    const write = fs().write(p(relative), content);
    if (!backend().serializesWriters) await write;
    gate.resolve();
    await write;
  }

  describe('writeStream', () => {
    it('writes a many-chunk source exactly and returns the stat of what it wrote', async () => {
      const bytes = pattern(3 * 1024 * 1024 + 17);
      const stat = await fs().writeStream(p('big.bin'), sourceOf(bytes).stream);
      expect(stat).toMatchObject({ type: 'file', size: bytes.byteLength });
      expect(stat.version).toBe((await fs().stat(p('big.bin'))).version);
      expectSameBytes(await fs().read(p('big.bin')), bytes);
      expect(await names('')).toEqual(['big.bin']);
    });

    it('replaces an existing file entirely and moves its version', async () => {
      const { version } = await put('f', 'a much longer first version');
      const stat = await fs().writeStream(p('f'), sourceOf(encoder.encode('short')).stream);
      expect(stat.version).not.toBe(version);
      expect(await readText('f')).toBe('short');
      expect(await names('')).toEqual(['f']);
    });

    it('an empty source makes an empty file', async () => {
      expect(await fs().writeStream(p('empty'), sourceOf(new Uint8Array(0)).stream)).toMatchObject({ size: 0 });
      expect((await fs().read(p('empty'))).byteLength).toBe(0);
    });

    it('exactly maxBytes is accepted', async () => {
      const bytes = pattern(200_000);
      await fs().writeStream(p('f'), sourceOf(bytes).stream, { maxBytes: 200_000 });
      expectSameBytes(await fs().read(p('f')), bytes);
    });

    it('past maxBytes is too-large and leaves nothing: no file, no temp file, no folder it made', async () => {
      await fs().mkdir(p('kept'));
      await expect(
        fs().writeStream(p('kept/new/deep/f.bin'), sourceOf(pattern(300_000)).stream, { mkdirs: true, maxBytes: 299_999 }),
      ).rejects.toMatchObject({ code: 'too-large', path: p('kept/new/deep/f.bin') });
      // Far past the cap: the rest of the source is cancelled, not read.
      const source = sourceOf(pattern(3_000_000));
      await expect(fs().writeStream(p('kept/f.bin'), source.stream, { maxBytes: 100_000 })).rejects.toMatchObject({
        code: 'too-large',
      });
      expect(source.cancelled).toBe(true);
      expect(source.delivered).toBeLessThan(3_000_000);
      expect(await names('kept')).toEqual([]);
      expect(await names('')).toEqual(['kept']);
    });

    it('past maxBytes keeps the file it would have replaced, version included', async () => {
      const { version } = await put('d/f', 'original');
      await expect(fs().writeStream(p('d/f'), sourceOf(pattern(5000)).stream, { maxBytes: 4096 })).rejects.toMatchObject({
        code: 'too-large',
      });
      expect(await readText('d/f')).toBe('original');
      expect((await fs().stat(p('d/f'))).version).toBe(version);
      expect(await names('d')).toEqual(['f']);
    });

    it('a source that fails mid-way rejects and changes nothing', async () => {
      const { version } = await put('d/f', 'original');
      await expect(fs().writeStream(p('d/f'), sourceOf(pattern(500_000), { failAfter: 200_000 }).stream)).rejects.toThrow();
      await expect(
        fs().writeStream(p('d/new/f'), sourceOf(pattern(500_000), { failAfter: 1 }).stream, { mkdirs: true }),
      ).rejects.toThrow();
      expect(await readText('d/f')).toBe('original');
      expect((await fs().stat(p('d/f'))).version).toBe(version);
      expect(await names('d')).toEqual(['f']);
    });

    it('mkdirs creates missing parents; without it a missing parent is not-found and the source is cancelled', async () => {
      await fs().writeStream(p('x/y/z.txt'), sourceOf(encoder.encode('deep')).stream, { mkdirs: true });
      expect(await readText('x/y/z.txt')).toBe('deep');
      const source = sourceOf(pattern(100_000));
      await expect(fs().writeStream(p('missing/f'), source.stream)).rejects.toMatchObject({ code: 'not-found' });
      expect(source.cancelled).toBe(true);
      await expect(fs().stat(p('missing'))).rejects.toMatchObject({ code: 'not-found' });
    });

    it('a folder is is-directory; through a link the target is written and the link stays', async () => {
      await put('dir/inner', 'x');
      await expect(fs().writeStream(p('dir'), sourceOf(encoder.encode('y')).stream)).rejects.toMatchObject({
        code: 'is-directory',
      });
      await put('target.txt', 'before');
      await fs().symlink('target.txt', p('link'));
      await fs().writeStream(p('link'), sourceOf(encoder.encode('after')).stream);
      expect(await readText('target.txt')).toBe('after');
      expect((await fs().lstat(p('link'))).type).toBe('symlink');
    });

    it('ifVersion that matches writes; a stale one fails before a byte is read and changes nothing', async () => {
      const { version: stale } = await put('f', 'v1');
      const { version } = await fs().write(p('f'), 'v2');
      await fs().writeStream(p('f'), sourceOf(encoder.encode('v3')).stream, { ifVersion: version });
      expect(await readText('f')).toBe('v3');
      const current = (await fs().stat(p('f'))).version;
      const source = sourceOf(pattern(1_000_000));
      await expect(fs().writeStream(p('f'), source.stream, { ifVersion: stale })).rejects.toMatchObject({
        code: 'version-mismatch',
      });
      expect(source.cancelled).toBe(true);
      expect(source.delivered).toBeLessThan(1_000_000);
      await expect(
        fs().writeStream(p('missing'), sourceOf(pattern(10)).stream, { ifVersion: version, mkdirs: true }),
      ).rejects.toMatchObject({ code: 'version-mismatch' });
      expect(await readText('f')).toBe('v3');
      expect((await fs().stat(p('f'))).version).toBe(current);
      expect(await names('')).toEqual(['f']);
    });

    it('ifVersion is checked again at the commit: a write while the data arrived wins, nothing is replaced', async () => {
      const { version } = await put('f', 'v1');
      const gate = deferred();
      const source = sourceOf(pattern(100_000), { gate: gate.promise });
      const result = fs()
        .writeStream(p('f'), source.stream, { ifVersion: version })
        .then(
          () => 'written',
          (error: unknown) => error,
        );
      await writeWhileInFlight('f', 'written meanwhile', source, gate);
      // A backend that lets the plain write land first must refuse the stream's commit; one that serialises
      // writers (SerializedFileSystem) runs the plain write after the stream commits: a serial outcome either way.
      if (backend().serializesWriters) expect(await result).toBe('written');
      else expect(await result).toMatchObject({ code: 'version-mismatch' });
      expect(await readText('f')).toBe('written meanwhile');
      expect(await names('')).toEqual(['f']);
    });

    it('exclusive creates; an existing path, or one created while the data arrived, is exists', async () => {
      await fs().writeStream(p('new'), sourceOf(encoder.encode('first')).stream, { exclusive: true });
      expect(await readText('new')).toBe('first');
      await expect(
        fs().writeStream(p('new'), sourceOf(encoder.encode('second')).stream, { exclusive: true }),
      ).rejects.toMatchObject({ code: 'exists' });
      const gate = deferred();
      const source = sourceOf(pattern(1000), { gate: gate.promise });
      const result = fs()
        .writeStream(p('race'), source.stream, { exclusive: true })
        .then(
          () => 'written',
          (error: unknown) => error,
        );
      await writeWhileInFlight('race', 'created meanwhile', source, gate);
      if (backend().serializesWriters) expect(await result).toBe('written');
      else expect(await result).toMatchObject({ code: 'exists' });
      expect(await readText('race')).toBe('created meanwhile');
      expect(await readText('new')).toBe('first');
      expect(await names('')).toEqual(['new', 'race']);
    });

    it('a bad maxBytes is invalid', async () => {
      for (const maxBytes of [-1, 1.5, Number.NaN]) {
        await expect(fs().writeStream(p('f'), sourceOf(pattern(1)).stream, { maxBytes })).rejects.toMatchObject({
          code: 'invalid',
        });
      }
      expect(await names('')).toEqual([]);
    });
  });

  describe('writeAt', () => {
    it('overwrites bytes in the middle in place, size unchanged', async () => {
      await put('f', '0123456789');
      const stat = await fs().writeAt(p('f'), 3, encoder.encode('abc'));
      expect(stat).toMatchObject({ type: 'file', size: 10 });
      expect(stat.version).toBe((await fs().stat(p('f'))).version);
      expect(await readText('f')).toBe('012abc6789');
    });

    it('at the end it appends; running past the end grows the file', async () => {
      await put('f', 'abc');
      await fs().writeAt(p('f'), 3, encoder.encode('def'));
      expect(await readText('f')).toBe('abcdef');
      await fs().writeAt(p('f'), 4, sourceOf(encoder.encode('XYZW')).stream);
      expect(await readText('f')).toBe('abcdXYZW');
    });

    it('parts streamed at their offsets reassemble the file exactly', async () => {
      const whole = pattern(1_500_000, 3);
      await put('f', new Uint8Array(0));
      for (let offset = 0; offset < whole.byteLength; offset += 400_000) {
        const part = whole.subarray(offset, Math.min(offset + 400_000, whole.byteLength));
        await fs().writeAt(p('f'), offset, sourceOf(part).stream, { maxBytes: 400_000 });
      }
      expectSameBytes(await fs().read(p('f')), whole);
      expect(await names('')).toEqual(['f']);
    });

    it('every writeAt moves the version, same bytes included', async () => {
      const versions = [(await put('f', 'same')).version];
      for (let i = 0; i < 4; i++) versions.push((await fs().writeAt(p('f'), 0, encoder.encode('same'))).version);
      expect(new Set(versions).size).toBe(5);
    });

    it('past the end is invalid, a missing file not-found, a folder is-directory: nothing changes', async () => {
      const { version } = await put('f', 'abc');
      await fs().mkdir(p('dir'));
      const source = sourceOf(pattern(100_000));
      await expect(fs().writeAt(p('f'), 4, source.stream)).rejects.toMatchObject({ code: 'invalid' });
      expect(source.cancelled).toBe(true);
      await expect(fs().writeAt(p('missing'), 0, encoder.encode('x'))).rejects.toMatchObject({ code: 'not-found' });
      await expect(fs().writeAt(p('dir'), 0, encoder.encode('x'))).rejects.toMatchObject({ code: 'is-directory' });
      expect(await readText('f')).toBe('abc');
      expect((await fs().stat(p('f'))).version).toBe(version);
      expect(await names('')).toEqual(['dir', 'f']);
    });

    it('a bad offset is invalid', async () => {
      await put('f', 'abc');
      for (const offset of [-1, 0.5, Number.NaN, Number.MAX_SAFE_INTEGER + 1]) {
        await expect(fs().writeAt(p('f'), offset, encoder.encode('x'))).rejects.toMatchObject({ code: 'invalid' });
      }
      expect(await readText('f')).toBe('abc');
    });

    it('past maxBytes (streamed or not) and a failing source leave the file exactly as it was', async () => {
      const original = pattern(300_000, 1);
      const { version } = await put('d/f', original);
      await expect(fs().writeAt(p('d/f'), 1000, sourceOf(pattern(200_001)).stream, { maxBytes: 200_000 })).rejects.toMatchObject({
        code: 'too-large',
      });
      await expect(fs().writeAt(p('d/f'), 1000, pattern(11), { maxBytes: 10 })).rejects.toMatchObject({ code: 'too-large' });
      await expect(fs().writeAt(p('d/f'), 0, sourceOf(pattern(250_000), { failAfter: 150_000 }).stream)).rejects.toThrow();
      expectSameBytes(await fs().read(p('d/f')), original);
      expect((await fs().stat(p('d/f'))).version).toBe(version);
      expect(await names('d')).toEqual(['f']);
    });

    it('ifVersion: a match writes, a stale version is version-mismatch and changes nothing', async () => {
      const { version: stale } = await put('f', 'abcdef');
      const { version } = await fs().writeAt(p('f'), 0, encoder.encode('A'));
      await fs().writeAt(p('f'), 1, encoder.encode('B'), { ifVersion: version });
      expect(await readText('f')).toBe('ABcdef');
      await expect(fs().writeAt(p('f'), 2, encoder.encode('C'), { ifVersion: stale })).rejects.toMatchObject({
        code: 'version-mismatch',
      });
      expect(await readText('f')).toBe('ABcdef');
    });

    it('through a link writes the target', async () => {
      await put('target', 'abc');
      await fs().symlink('target', p('link'));
      await fs().writeAt(p('link'), 1, encoder.encode('X'));
      expect(await readText('target')).toBe('aXc');
      expect((await fs().lstat(p('link'))).type).toBe('symlink');
    });

    it('a read-only file is permission-denied', async (ctx: TestContext) => {
      ctx.skip(!fs().capabilities.permissions, 'permission bits are not enforced for this user');
      await put('ro', 'abc');
      await fs().chmod(p('ro'), 0o444);
      try {
        await expect(fs().writeAt(p('ro'), 0, encoder.encode('x'))).rejects.toMatchObject({ code: 'permission-denied' });
      } finally {
        await fs().chmod(p('ro'), 0o644);
      }
      expect(await readText('ro')).toBe('abc');
    });
  });
}
