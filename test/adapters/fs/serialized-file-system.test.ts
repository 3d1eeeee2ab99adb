import * as nodeFs from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { FileSystem } from '../../../adapters/fs/file-system.ts';
import { MemoryFileSystem } from '../../../adapters/fs/memory-file-system.ts';
import { NodeFileSystem } from '../../../adapters/fs/node-file-system.ts';
import { PathLocks } from '../../../adapters/fs/path-locks.ts';
import { SerializedFileSystem } from '../../../adapters/fs/serialized-file-system.ts';
import { runFileSystemContract } from './contract.ts';
import { deferred } from '../../support/gates.ts';

async function makeRoot(): Promise<string> {
  return nodeFs.realpath(await nodeFs.mkdtemp(join(tmpdir(), 'fs-serialized-')));
}

// The decorator is transparent: the whole contract holds through it, over both backends.
runFileSystemContract('SerializedFileSystem over MemoryFileSystem', async () => {
  const inner = new MemoryFileSystem();
  await inner.mkdir('/ws');
  return { fs: new SerializedFileSystem(inner), root: '/ws', cleanup: async () => {}, serializesWriters: true };
});

runFileSystemContract('SerializedFileSystem over NodeFileSystem', async () => {
  const root = await makeRoot();
  return {
    fs: new SerializedFileSystem(new NodeFileSystem()),
    root,
    cleanup: () => nodeFs.rm(root, { recursive: true, force: true }),
    serializesWriters: true,
  };
});

const decoder = new TextDecoder();
const encoder = new TextEncoder();


/**
 * A one-chunk source that closes only once `gate` resolves: a write that stays in flight on demand. `atGate`
 * settles once the writer has taken the chunk and waits for the close, i.e. it holds its path's lock.
 */
function gatedSource(text: string, gate: Promise<void>): { stream: ReadableStream<Uint8Array>; atGate: Promise<void> } {
  let sent = false;
  let reachedGate!: () => void;
  const atGate = new Promise<void>((resolve) => (reachedGate = resolve));
  const stream = new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (!sent) {
        sent = true;
        controller.enqueue(encoder.encode(text));
        return;
      }
      reachedGate();
      await gate;
      controller.close();
    },
  });
  return { stream, atGate };
}

/** Lets pending promise callbacks and a few I/O turns run. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 30));

const backends: Array<[string, () => Promise<{ inner: FileSystem; root: string; cleanup(): Promise<void> }>]> = [
  [
    'memory',
    async () => {
      const inner = new MemoryFileSystem();
      await inner.mkdir('/ws');
      return { inner, root: '/ws', cleanup: async () => {} };
    },
  ],
  [
    'node',
    async () => {
      const root = await makeRoot();
      return { inner: new NodeFileSystem(), root, cleanup: () => nodeFs.rm(root, { recursive: true, force: true }) };
    },
  ],
];

describe.each(backends)('SerializedFileSystem over %s', (_name, makeBackend) => {
  let fs: SerializedFileSystem;
  let root: string;
  let cleanup: () => Promise<void>;
  const p = (relative: string) => `${root}/${relative}`;
  const readText = async (relative: string) => decoder.decode(await fs.read(p(relative)));

  beforeEach(async () => {
    const backend = await makeBackend();
    ({ root, cleanup } = backend);
    fs = new SerializedFileSystem(backend.inner);
  });
  afterEach(async () => {
    expect(fs.pendingLocks).toBe(0); // every test ends with the lock table empty: no leaked entries
    await cleanup();
  });

  it('of many concurrent writes with the same ifVersion exactly one wins; the file holds its bytes', async () => {
    const { version } = await fs.write(p('f'), 'base');
    const writers = Array.from({ length: 24 }, (_, i) => `writer ${i} `.repeat(2000));
    const results = await Promise.allSettled(
      writers.map((content) => fs.write(p('f'), content, { ifVersion: version })),
    );
    const winners = results.flatMap((r, i) => (r.status === 'fulfilled' ? [i] : []));
    expect(winners).toHaveLength(1);
    for (const result of results) {
      if (result.status === 'rejected') expect(result.reason).toMatchObject({ code: 'version-mismatch' });
    }
    expect(await readText('f')).toBe(writers[winners[0]!]);
    expect((await fs.stat(p('f'))).version).toBe((results[winners[0]!] as PromiseFulfilledResult<{ version: string }>).value.version);
  });

  it('streamed conditional writes race the same way: one wins, the rest are version-mismatch', async () => {
    const { version } = await fs.write(p('f'), 'base');
    const gate = deferred();
    const sources = Array.from({ length: 8 }, (_, i) => gatedSource(`stream ${i}`, gate.promise));
    const pending = sources.map((source) => fs.writeStream(p('f'), source.stream, { ifVersion: version }));
    await Promise.race(sources.map((source) => source.atGate)); // one holds the lock, the rest queue behind it
    gate.resolve();
    const results = await Promise.allSettled(pending);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    expect(results.filter((r) => r.status === 'rejected').map((r) => (r as PromiseRejectedResult).reason.code)).toEqual(
      Array(7).fill('version-mismatch'),
    );
    expect(await readText('f')).toMatch(/^stream \d$/);
  });

  it('a write to the same path waits for the one in flight; writes to other paths do not', async () => {
    await fs.write(p('a'), 'a0');
    const gate = deferred();
    const order: string[] = [];
    const source = gatedSource('a1', gate.promise);
    const slow = fs.writeStream(p('a'), source.stream).then(() => order.push('slow a'));
    await source.atGate;
    const sameAfter = fs.write(p('a'), 'a2').then(() => order.push('same a'));
    await fs.write(p('b'), 'b1');
    order.push('other b');
    await settle();
    expect(order).toEqual(['other b']);
    gate.resolve();
    await Promise.all([slow, sameAfter]);
    expect(order).toEqual(['other b', 'slow a', 'same a']);
    expect(await readText('a')).toBe('a2');
  });

  it('writes through two links to one file share its lock', async () => {
    await fs.write(p('target'), 't0');
    await fs.symlink('target', p('l1'));
    await fs.symlink(p('target'), p('l2'));
    const gate = deferred();
    const order: string[] = [];
    const source = gatedSource('via l1', gate.promise);
    const slow = fs.writeStream(p('l1'), source.stream).then(() => order.push('l1'));
    await source.atGate;
    const other = fs.write(p('l2'), 'via l2').then(() => order.push('l2'));
    await settle();
    expect(order).toEqual([]);
    gate.resolve();
    await Promise.all([slow, other]);
    expect(order).toEqual(['l1', 'l2']);
    expect(await readText('target')).toBe('via l2');
  });

  it('rename waits for writes to either end', async () => {
    await fs.write(p('from'), 'from');
    const gate = deferred();
    const order: string[] = [];
    const source = gatedSource('to', gate.promise);
    const slow = fs.writeStream(p('to'), source.stream).then(() => order.push('write to'));
    await source.atGate;
    const move = fs.rename(p('from'), p('to'), { overwrite: true }).then(() => order.push('rename'));
    await settle();
    expect(order).toEqual([]);
    gate.resolve();
    await Promise.all([slow, move]);
    expect(order).toEqual(['write to', 'rename']);
    expect(await readText('to')).toBe('from');
  });

  it('a failed call releases its lock', async () => {
    await expect(fs.write(p('f'), 'x', { ifVersion: 'nope' })).rejects.toMatchObject({ code: 'version-mismatch' });
    await expect(fs.writeAt(p('missing'), 0, encoder.encode('x'))).rejects.toMatchObject({ code: 'not-found' });
    await fs.write(p('f'), 'after');
    expect(await readText('f')).toBe('after');
  });

  it('exclusive runs read-check-write as one section: other writers to the path wait for it', async () => {
    await fs.write(p('counter'), '0');
    // Every increment reads, computes and writes inside the section: none is lost.
    await Promise.all(
      Array.from({ length: 20 }, () =>
        fs.exclusive(p('counter'), async (locked) => {
          const value = Number(decoder.decode(await locked.read(p('counter'))));
          await settle();
          await locked.write(p('counter'), String(value + 1));
        }),
      ),
    );
    expect(await readText('counter')).toBe('20');
  });

  it('exclusive: a plain write started during the section lands after it; a kept handle locks again', async () => {
    await fs.write(p('f'), 'start');
    const order: string[] = [];
    let kept: FileSystem | undefined;
    let outside: Promise<unknown> | undefined;
    await fs.exclusive(p('f'), async (locked) => {
      kept = locked;
      outside = fs.write(p('f'), 'outside').then(() => order.push('outside'));
      await settle();
      await locked.write(p('f'), 'inside');
      order.push('inside');
      // A nested section on the held path reuses the lock instead of waiting for itself.
      await (locked as SerializedFileSystem).exclusive(p('f'), async (again) => again.write(p('f'), 'nested'));
    });
    await outside;
    expect(order).toEqual(['inside', 'outside']);
    expect(await readText('f')).toBe('outside');
    // After the section the handed-out FileSystem holds nothing: it waits like any writer.
    const gate = deferred();
    const source = gatedSource('slow', gate.promise);
    const slow = fs.writeStream(p('f'), source.stream);
    await source.atGate;
    let keptDone = false;
    const late = kept!.write(p('f'), 'kept').then(() => (keptDone = true));
    await settle();
    expect(keptDone).toBe(false);
    gate.resolve();
    await Promise.all([slow, late]);
    expect(await readText('f')).toBe('kept');
  });

  it('an exclusive section that throws releases the lock', async () => {
    await expect(
      fs.exclusive(p('f'), async () => {
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    await fs.write(p('f'), 'fine');
    expect(await readText('f')).toBe('fine');
  });
});

describe('PathLocks', () => {
  it('hands a key out in FIFO order and drops its entry once free', async () => {
    const locks = new PathLocks();
    const order: number[] = [];
    const gate = deferred();
    const first = locks.run(['k'], async () => {
      await gate.promise;
      order.push(1);
    });
    const second = locks.run(['k'], async () => void order.push(2));
    const third = locks.run(['k'], async () => void order.push(3));
    expect(locks.size).toBe(1);
    gate.resolve();
    await Promise.all([first, second, third]);
    expect(order).toEqual([1, 2, 3]);
    expect(locks.size).toBe(0);
  });

  it('two calls taking the same keys in opposite orders do not deadlock', async () => {
    const locks = new PathLocks();
    const results = await Promise.all([
      locks.run(['a', 'b'], async () => {
        await settle();
        return 'ab';
      }),
      locks.run(['b', 'a'], async () => 'ba'),
    ]);
    expect(results).toEqual(['ab', 'ba']);
    expect(locks.size).toBe(0);
  });
});
