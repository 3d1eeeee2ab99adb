/**
 * The FileSystem contract: one suite that runs unchanged against every backend. A backend factory returns a
 * fresh, empty folder (`root`) to work in. Permission tests run only where `capabilities.permissions` is true
 * (the capability is known once the async factory has run, so they skip at run time via `ctx.skip`).
 */
import { afterEach, beforeEach, describe, expect, it, type TestContext } from 'vitest';
import type { DirEntry, FileSystem } from '../../../adapters/fs/file-system.ts';
import { FsError } from '../../../adapters/fs/fs-error.ts';
import { describeStreamedWrites } from './contract-streamed-writes.ts';

export interface ContractBackend {
  fs: FileSystem;
  root: string;
  cleanup(): Promise<void>;
  /** Writers to one path queue behind each other (SerializedFileSystem); see contract-streamed-writes.ts. */
  serializesWriters?: boolean;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

function text(bytes: Uint8Array): string {
  return decoder.decode(bytes);
}

/** Deterministic, non-repeating-at-chunk-boundaries bytes. */
export function pattern(length: number): Uint8Array {
  const out = new Uint8Array(length);
  for (let i = 0; i < length; i++) out[i] = (i * 31 + (i >>> 8) * 7 + (i >>> 16)) & 0xff;
  return out;
}

/** Exact byte equality with a readable failure (the first differing index). */
export function expectBytes(actual: Uint8Array, expected: Uint8Array): void {
  expect(actual).toBeInstanceOf(Uint8Array);
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

async function collect(stream: ReadableStream<Uint8Array>): Promise<{ bytes: Uint8Array; chunks: Uint8Array[] }> {
  const chunks: Uint8Array[] = [];
  const reader = stream.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
  }
  const bytes = new Uint8Array(chunks.reduce((n, c) => n + c.byteLength, 0));
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return { bytes, chunks };
}

function sortEntries(entries: DirEntry[]): DirEntry[] {
  return [...entries].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

export function runFileSystemContract(name: string, makeBackend: () => Promise<ContractBackend>): void {
  describe(`FileSystem contract: ${name}`, () => {
    let fs: FileSystem;
    let root: string;
    let cleanup: () => Promise<void>;
    let serializesWriters: boolean | undefined;

    beforeEach(async () => {
      ({ fs, root, cleanup, serializesWriters } = await makeBackend());
    });
    afterEach(async () => {
      await cleanup();
    });

    const p = (relative: string) => (relative === '' ? root : `${root}/${relative}`);
    const put = (relative: string, content: string | Uint8Array) => fs.write(p(relative), content, { mkdirs: true });
    const readText = async (relative: string) => text(await fs.read(p(relative)));
    const names = async (relative: string) => (await fs.readdir(p(relative))).map((e) => e.name).sort();

    /** A test that needs permission bits to be enforced for the current user. */
    const permissionTest = (title: string, body: () => Promise<void>) =>
      it(title, async (ctx: TestContext) => {
        ctx.skip(!fs.capabilities.permissions, 'permission bits are not enforced for this user');
        await body();
      });

    describe('errors and paths', () => {
      it('throws FsError with the code and the path asked for', async () => {
        const error = await fs.stat(p('missing')).catch((e: unknown) => e);
        expect(error).toBeInstanceOf(FsError);
        expect(error).toMatchObject({ code: 'not-found', path: p('missing') });
      });

      it('rejects a relative path as invalid', async () => {
        await expect(fs.stat('relative/path')).rejects.toMatchObject({ code: 'invalid' });
        await expect(fs.write('x.txt', 'x')).rejects.toMatchObject({ code: 'invalid' });
      });

      it('declares its capabilities as booleans', () => {
        expect(typeof fs.capabilities.symlinks).toBe('boolean');
        expect(typeof fs.capabilities.watch).toBe('boolean');
        expect(typeof fs.capabilities.permissions).toBe('boolean');
        expect(fs.capabilities.watch).toBe(typeof fs.watch === 'function');
      });
    });

    describe('stat and lstat', () => {
      it('stats a file: type, size in bytes, a recent mtime and a version', async () => {
        const before = Date.now();
        await put('a.txt', 'héllo');
        const stat = await fs.stat(p('a.txt'));
        expect(stat.type).toBe('file');
        expect(stat.size).toBe(6);
        expect(stat.mtimeMs).toBeGreaterThanOrEqual(before - 2000);
        expect(stat.mtimeMs).toBeLessThanOrEqual(Date.now() + 2000);
        expect(typeof stat.version).toBe('string');
        expect(stat.version).not.toBe('');
      });

      it('stats a folder with size 0', async () => {
        await put('dir/inner.txt', 'some content');
        expect(await fs.stat(p('dir'))).toMatchObject({ type: 'dir', size: 0 });
        expect(await fs.lstat(p('dir'))).toMatchObject({ type: 'dir', size: 0 });
      });

      it('reports not-found for a missing path and not-directory when a parent is a file', async () => {
        await put('file.txt', 'x');
        await expect(fs.stat(p('missing'))).rejects.toMatchObject({ code: 'not-found' });
        await expect(fs.lstat(p('missing'))).rejects.toMatchObject({ code: 'not-found' });
        await expect(fs.stat(p('missing/child'))).rejects.toMatchObject({ code: 'not-found' });
        await expect(fs.stat(p('file.txt/child'))).rejects.toMatchObject({ code: 'not-directory' });
        await expect(fs.lstat(p('file.txt/child'))).rejects.toMatchObject({ code: 'not-directory' });
      });

      it('stat follows a link; lstat describes the link itself (size = length of its text)', async () => {
        await put('target.txt', '0123456789');
        await fs.symlink('target.txt', p('link'));
        const followed = await fs.stat(p('link'));
        expect(followed).toMatchObject({ type: 'file', size: 10 });
        expect(followed.version).toBe((await fs.stat(p('target.txt'))).version);
        expect(await fs.lstat(p('link'))).toMatchObject({ type: 'symlink', size: 'target.txt'.length });
      });

      it('stat of a link to a folder is a folder', async () => {
        await fs.mkdir(p('dir'));
        await fs.symlink('dir', p('dirlink'));
        expect((await fs.stat(p('dirlink'))).type).toBe('dir');
        expect((await fs.lstat(p('dirlink'))).type).toBe('symlink');
      });

      it('lstat follows links on the way but not the last one', async () => {
        await put('real/file.txt', 'x');
        await fs.symlink('file.txt', p('real/inner-link'));
        await fs.symlink('real', p('alias'));
        expect((await fs.lstat(p('alias/inner-link'))).type).toBe('symlink');
        expect((await fs.stat(p('alias/inner-link'))).type).toBe('file');
        expect((await fs.lstat(p('alias/file.txt'))).type).toBe('file');
      });
    });

    describe('readdir', () => {
      it('lists every entry with its own type (links as symlink, dangling ones too)', async () => {
        await put('d/file.txt', 'x');
        await fs.mkdir(p('d/sub'));
        await fs.symlink('file.txt', p('d/to-file'));
        await fs.symlink('sub', p('d/to-dir'));
        await fs.symlink('nowhere', p('d/dangling'));
        expect(sortEntries(await fs.readdir(p('d')))).toEqual([
          { name: 'dangling', type: 'symlink' },
          { name: 'file.txt', type: 'file' },
          { name: 'sub', type: 'dir' },
          { name: 'to-dir', type: 'symlink' },
          { name: 'to-file', type: 'symlink' },
        ]);
      });

      it('lists an empty folder as []', async () => {
        await fs.mkdir(p('empty'));
        expect(await fs.readdir(p('empty'))).toEqual([]);
      });

      it('follows a link to a folder', async () => {
        await put('real/a.txt', 'a');
        await put('real/b.txt', 'b');
        await fs.symlink(p('real'), p('alias'));
        expect(await names('alias')).toEqual(['a.txt', 'b.txt']);
      });

      it('reports not-directory for a file and not-found for a missing folder', async () => {
        await put('file.txt', 'x');
        await expect(fs.readdir(p('file.txt'))).rejects.toMatchObject({ code: 'not-directory' });
        await expect(fs.readdir(p('missing'))).rejects.toMatchObject({ code: 'not-found' });
      });
    });

    describe('readdir with a limit', () => {
      const folderOf = async (count: number) => {
        await fs.mkdir(p('many'));
        for (let i = 0; i < count; i++) {
          if (i % 10 === 3) await fs.mkdir(p(`many/d${i}`));
          else await put(`many/f${i}`, String(i));
        }
      };

      // Which entries a cut listing holds is the backend's order (Node: the kernel's, while a full readdir is
      // sorted by libuv), so the contract is: that many distinct entries, each exactly as the full listing has it.
      it('returns `limit` distinct entries of the folder, each with its own type', async () => {
        await folderOf(120);
        const all = await fs.readdir(p('many'));
        expect(all).toHaveLength(120);
        const byName = new Map(all.map((entry) => [entry.name, entry]));
        for (const limit of [1, 7, 119]) {
          const some = await fs.readdir(p('many'), { limit });
          expect(some).toHaveLength(limit);
          expect(new Set(some.map((entry) => entry.name)).size).toBe(limit);
          for (const entry of some) expect(entry).toEqual(byName.get(entry.name));
        }
      });

      it('returns every entry when the limit is at or above the count', async () => {
        await folderOf(12);
        const all = sortEntries(await fs.readdir(p('many')));
        expect(sortEntries(await fs.readdir(p('many'), { limit: 12 }))).toEqual(all);
        expect(sortEntries(await fs.readdir(p('many'), { limit: 13 }))).toEqual(all);
        expect(sortEntries(await fs.readdir(p('many'), { limit: Number.MAX_SAFE_INTEGER }))).toEqual(all);
      });

      it('lists nothing at limit 0, but still checks the folder', async () => {
        await folderOf(3);
        await put('file.txt', 'x');
        expect(await fs.readdir(p('many'), { limit: 0 })).toEqual([]);
        await expect(fs.readdir(p('file.txt'), { limit: 0 })).rejects.toMatchObject({ code: 'not-directory' });
        await expect(fs.readdir(p('missing'), { limit: 0 })).rejects.toMatchObject({ code: 'not-found' });
        await expect(fs.readdir(p('missing'), { limit: 5 })).rejects.toMatchObject({ code: 'not-found' });
      });

      it('follows a link to a folder, and reports links as links', async () => {
        await put('real/a.txt', 'a');
        await fs.symlink('a.txt', p('real/to-a'));
        await fs.symlink(p('real'), p('alias'));
        expect(sortEntries(await fs.readdir(p('alias'), { limit: 2 }))).toEqual([
          { name: 'a.txt', type: 'file' },
          { name: 'to-a', type: 'symlink' },
        ]);
      });

      it('refuses a limit that is not a safe integer ≥ 0 as invalid', async () => {
        await folderOf(2);
        for (const limit of [-1, 1.5, Number.NaN, Infinity, 2 ** 53]) {
          await expect(fs.readdir(p('many'), { limit }), String(limit)).rejects.toMatchObject({ code: 'invalid' });
        }
      });

      permissionTest('a folder without read permission is permission-denied, with a limit too', async () => {
        await folderOf(2);
        await fs.chmod(p('many'), 0o311);
        try {
          await expect(fs.readdir(p('many'), { limit: 1 })).rejects.toMatchObject({ code: 'permission-denied' });
        } finally {
          await fs.chmod(p('many'), 0o755);
        }
      });
    });

    describe('symlinks: readlink, realpath, resolution', () => {
      it('readlink returns the exact link text, relative or absolute, unnormalised', async () => {
        await fs.symlink('./x/../y//z', p('relative'));
        await fs.symlink(p('abs/target'), p('absolute'));
        expect(await fs.readlink(p('relative'))).toBe('./x/../y//z');
        expect(await fs.readlink(p('absolute'))).toBe(p('abs/target'));
      });

      it('readlink of a file or folder is invalid; of a missing path not-found', async () => {
        await put('file.txt', 'x');
        await fs.mkdir(p('dir'));
        await expect(fs.readlink(p('file.txt'))).rejects.toMatchObject({ code: 'invalid' });
        await expect(fs.readlink(p('dir'))).rejects.toMatchObject({ code: 'invalid' });
        await expect(fs.readlink(p('missing'))).rejects.toMatchObject({ code: 'not-found' });
      });

      it('realpath of a plain path is the path itself', async () => {
        await put('dir/file.txt', 'x');
        expect(await fs.realpath(p('dir/file.txt'))).toBe(p('dir/file.txt'));
        expect(await fs.realpath(p('dir'))).toBe(p('dir'));
      });

      it('realpath resolves links on the way and at the end', async () => {
        await put('real/sub/file.txt', 'x');
        await fs.symlink('real', p('alias'));
        await fs.symlink('sub/file.txt', p('real/shortcut'));
        expect(await fs.realpath(p('alias/sub/file.txt'))).toBe(p('real/sub/file.txt'));
        expect(await fs.realpath(p('alias/shortcut'))).toBe(p('real/sub/file.txt'));
        expect(await fs.realpath(p('alias'))).toBe(p('real'));
      });

      it('relative link text resolves against the link’s own folder', async () => {
        await put('file.txt', 'top');
        await put('d/file.txt', 'inner');
        await fs.symlink('file.txt', p('d/link'));
        await fs.symlink('../file.txt', p('d/up'));
        expect(await readText('d/link')).toBe('inner');
        expect(await readText('d/up')).toBe('top');
        expect(await fs.realpath(p('d/up'))).toBe(p('file.txt'));
      });

      it('follows chains of relative and absolute links', async () => {
        await put('file.txt', 'end of chain');
        await fs.symlink('file.txt', p('l1'));
        await fs.symlink(p('l1'), p('l2'));
        await fs.mkdir(p('d'));
        await fs.symlink('../l2', p('d/l3'));
        expect(await readText('d/l3')).toBe('end of chain');
        expect(await fs.realpath(p('d/l3'))).toBe(p('file.txt'));
        expect(await fs.readlink(p('d/l3'))).toBe('../l2');
        expect((await fs.stat(p('d/l3'))).type).toBe('file');
      });

      it('resolves ".." in link text physically, after the link before it', async () => {
        await put('a/b/c.txt', 'c');
        await put('a/x.txt', 'physical');
        await put('x.txt', 'lexical');
        await fs.symlink('a/b', p('lb'));
        await fs.symlink('lb/../x.txt', p('tricky'));
        expect(await readText('tricky')).toBe('physical');
        expect(await fs.realpath(p('tricky'))).toBe(p('a/x.txt'));
      });

      it('a dangling link: stat, realpath and read say not-found; lstat and readlink work', async () => {
        await fs.symlink('nowhere.txt', p('dangling'));
        await expect(fs.stat(p('dangling'))).rejects.toMatchObject({ code: 'not-found' });
        await expect(fs.realpath(p('dangling'))).rejects.toMatchObject({ code: 'not-found' });
        await expect(fs.read(p('dangling'))).rejects.toMatchObject({ code: 'not-found' });
        expect((await fs.lstat(p('dangling'))).type).toBe('symlink');
        expect(await fs.readlink(p('dangling'))).toBe('nowhere.txt');
      });

      it('a link to a file used as a folder is not-directory', async () => {
        await put('file.txt', 'x');
        await fs.symlink('file.txt', p('link'));
        await expect(fs.stat(p('link/child'))).rejects.toMatchObject({ code: 'not-directory' });
      });

      it('a cycle (a → b → a) is a loop for stat, realpath, read, readdir and write', async () => {
        await fs.symlink(p('b'), p('a'));
        await fs.symlink('a', p('b'));
        await expect(fs.stat(p('a'))).rejects.toMatchObject({ code: 'loop' });
        await expect(fs.realpath(p('a'))).rejects.toMatchObject({ code: 'loop' });
        await expect(fs.read(p('b'))).rejects.toMatchObject({ code: 'loop' });
        await expect(fs.readdir(p('a'))).rejects.toMatchObject({ code: 'loop' });
        await expect(fs.stat(p('a/child'))).rejects.toMatchObject({ code: 'loop' });
        await expect(fs.write(p('a'), 'x')).rejects.toMatchObject({ code: 'loop' });
        expect((await fs.lstat(p('a'))).type).toBe('symlink');
        expect(await fs.readlink(p('b'))).toBe('a');
      });

      it('a link to itself is a loop', async () => {
        await fs.symlink('self', p('self'));
        await expect(fs.stat(p('self'))).rejects.toMatchObject({ code: 'loop' });
        await expect(fs.realpath(p('self'))).rejects.toMatchObject({ code: 'loop' });
      });
    });

    describe('read', () => {
      it('reads exact bytes, all 256 values', async () => {
        const bytes = new Uint8Array(258);
        for (let i = 0; i < 256; i++) bytes[i] = i;
        bytes[256] = 0;
        bytes[257] = 255;
        await put('bin', bytes);
        expectBytes(await fs.read(p('bin')), bytes);
      });

      it('reads an empty file as zero bytes', async () => {
        await put('empty', '');
        expect((await fs.read(p('empty'))).byteLength).toBe(0);
      });

      it('reads a range: offset only, offset + length, length past EOF', async () => {
        await put('letters', 'abcdefghij');
        expect(text(await fs.read(p('letters'), { offset: 3 }))).toBe('defghij');
        expect(text(await fs.read(p('letters'), { offset: 2, length: 3 }))).toBe('cde');
        expect(text(await fs.read(p('letters'), { offset: 8, length: 10 }))).toBe('ij');
        expect(text(await fs.read(p('letters'), { offset: 0, length: 0 }))).toBe('');
      });

      it('a range starting at or past EOF gives empty bytes', async () => {
        await put('letters', 'abcdefghij');
        expect((await fs.read(p('letters'), { offset: 10 })).byteLength).toBe(0);
        expect((await fs.read(p('letters'), { offset: 50 })).byteLength).toBe(0);
        expect((await fs.read(p('letters'), { offset: 50, length: 5 })).byteLength).toBe(0);
      });

      it('a ranged read of a large file returns the exact window', async () => {
        const bytes = pattern(300_000);
        await put('big', bytes);
        expectBytes(await fs.read(p('big'), { offset: 65_530, length: 70_000 }), bytes.subarray(65_530, 135_530));
      });

      it('rejects a negative or fractional range as invalid', async () => {
        await put('letters', 'abc');
        await expect(fs.read(p('letters'), { offset: -1 })).rejects.toMatchObject({ code: 'invalid' });
        await expect(fs.read(p('letters'), { offset: 1.5 })).rejects.toMatchObject({ code: 'invalid' });
        await expect(fs.read(p('letters'), { offset: 0, length: -2 })).rejects.toMatchObject({ code: 'invalid' });
      });

      it('reading a folder is is-directory; a missing file not-found; a file parent not-directory', async () => {
        await put('dir/file.txt', 'x');
        await expect(fs.read(p('dir'))).rejects.toMatchObject({ code: 'is-directory' });
        await expect(fs.read(p('missing'))).rejects.toMatchObject({ code: 'not-found' });
        await expect(fs.read(p('dir/file.txt/x'))).rejects.toMatchObject({ code: 'not-directory' });
      });

      it('reads through a link to a file and through a linked folder', async () => {
        await put('real/file.txt', 'via link');
        await fs.symlink('real/file.txt', p('link'));
        await fs.symlink('real', p('alias'));
        expect(await readText('link')).toBe('via link');
        expect(await readText('alias/file.txt')).toBe('via link');
      });

      it('returns a copy: changing the returned bytes does not change the file', async () => {
        await put('f', 'abc');
        const first = await fs.read(p('f'));
        first[0] = 0x7a;
        expect(await readText('f')).toBe('abc');
      });
    });

    describe('readWithStat', () => {
      it('returns exactly what read and stat return, for the whole file and for a range', async () => {
        const bytes = pattern(70_000);
        await put('f.bin', bytes);
        const whole = await fs.readWithStat(p('f.bin'));
        expectBytes(whole.bytes, bytes);
        expect(whole.stat).toEqual(await fs.stat(p('f.bin')));
        const window = await fs.readWithStat(p('f.bin'), { offset: 65_000, length: 10_000 });
        expectBytes(window.bytes, bytes.subarray(65_000, 70_000));
        expect(window.stat).toEqual(await fs.stat(p('f.bin')));
        const past = await fs.readWithStat(p('f.bin'), { offset: 80_000 });
        expect(past.bytes.byteLength).toBe(0);
        expect(past.stat).toEqual(await fs.stat(p('f.bin')));
      });

      it('pairs the bytes with their version: each write moves both together', async () => {
        const first = await put('doc.txt', 'one');
        const before = await fs.readWithStat(p('doc.txt'));
        expect(text(before.bytes)).toBe('one');
        expect(before.stat.version).toBe(first.version);
        const second = await put('doc.txt', 'two!');
        const after = await fs.readWithStat(p('doc.txt'));
        expect(text(after.bytes)).toBe('two!');
        expect(after.stat).toMatchObject({ type: 'file', size: 4, version: second.version });
        expect(after.stat.version).not.toBe(before.stat.version);
      });

      it('sees every in-place write: same length, same file, back to back, a new version each time', async () => {
        // The case a version made of (mtime, size, inode) could miss: only the bytes change, within one tick.
        await put('doc.txt', 'aaaa');
        const seen = [(await fs.readWithStat(p('doc.txt'))).stat.version];
        for (const content of ['bbbb', 'cccc', 'dddd']) {
          const written = await fs.writeAt(p('doc.txt'), 0, encoder.encode(content));
          const read = await fs.readWithStat(p('doc.txt'));
          expect(text(read.bytes)).toBe(content);
          expect(read.stat.version).toBe(written.version);
          seen.push(read.stat.version);
        }
        expect(new Set(seen).size).toBe(4);
      });

      it('follows links: the stat is the target file’s, as stat says', async () => {
        await put('real/file.txt', 'via link');
        await fs.symlink('real/file.txt', p('link'));
        await fs.symlink('real', p('alias'));
        for (const path of ['link', 'alias/file.txt']) {
          const read = await fs.readWithStat(p(path));
          expect(text(read.bytes), path).toBe('via link');
          expect(read.stat, path).toEqual(await fs.stat(p('real/file.txt')));
        }
      });

      it('refuses what read refuses, with the same codes', async () => {
        await put('dir/file.txt', 'x');
        await fs.symlink(p('b'), p('a'));
        await fs.symlink('a', p('b'));
        await expect(fs.readWithStat(p('dir'))).rejects.toMatchObject({ code: 'is-directory' });
        await expect(fs.readWithStat(p('missing'))).rejects.toMatchObject({ code: 'not-found' });
        await expect(fs.readWithStat(p('dir/file.txt/x'))).rejects.toMatchObject({ code: 'not-directory' });
        await expect(fs.readWithStat(p('a'))).rejects.toMatchObject({ code: 'loop' });
        await expect(fs.readWithStat(p('dir/file.txt'), { offset: -1 })).rejects.toMatchObject({ code: 'invalid' });
        await expect(fs.readWithStat(p('dir/file.txt'), { offset: 0, length: 0.5 })).rejects.toMatchObject({ code: 'invalid' });
      });

      it('returns a copy: changing the returned bytes does not change the file', async () => {
        await put('f', 'abc');
        const { bytes } = await fs.readWithStat(p('f'));
        bytes[0] = 0x7a;
        expect(await readText('f')).toBe('abc');
      });
    });

    describe('readStream', () => {
      it('streams a whole file', async () => {
        await put('f.txt', 'hello stream');
        const { bytes } = await collect(await fs.readStream(p('f.txt')));
        expect(text(bytes)).toBe('hello stream');
      });

      it('streams a range', async () => {
        await put('letters', 'abcdefghij');
        expect(text((await collect(await fs.readStream(p('letters'), { offset: 2, length: 5 }))).bytes)).toBe('cdefg');
        expect(text((await collect(await fs.readStream(p('letters'), { offset: 7 }))).bytes)).toBe('hij');
        expect((await collect(await fs.readStream(p('letters'), { offset: 20 }))).bytes.byteLength).toBe(0);
      });

      it('streams an empty file as no bytes', async () => {
        await put('empty', '');
        expect((await collect(await fs.readStream(p('empty')))).bytes.byteLength).toBe(0);
      });

      it('streams a file larger than one chunk in several chunks that reassemble exactly', async () => {
        const bytes = pattern(600 * 1024 + 7);
        await put('big', bytes);
        const { bytes: streamed, chunks } = await collect(await fs.readStream(p('big')));
        expect(chunks.length).toBeGreaterThan(1);
        for (const chunk of chunks) expect(chunk).toBeInstanceOf(Uint8Array);
        expectBytes(streamed, bytes);
      });

      it('streams a large range across chunk boundaries exactly', async () => {
        const bytes = pattern(600 * 1024);
        await put('big', bytes);
        const range = { offset: 70_001, length: 400_000 };
        const { bytes: streamed } = await collect(await fs.readStream(p('big'), range));
        expectBytes(streamed, bytes.subarray(70_001, 470_001));
      });

      it('rejects before producing a stream: not-found, is-directory, invalid range', async () => {
        await fs.mkdir(p('dir'));
        await put('f', 'x');
        await expect(fs.readStream(p('missing'))).rejects.toMatchObject({ code: 'not-found' });
        await expect(fs.readStream(p('dir'))).rejects.toMatchObject({ code: 'is-directory' });
        await expect(fs.readStream(p('f'), { offset: -5 })).rejects.toMatchObject({ code: 'invalid' });
      });

      it('streams through a link', async () => {
        await put('target', 'linked bytes');
        await fs.symlink('target', p('link'));
        expect(text((await collect(await fs.readStream(p('link')))).bytes)).toBe('linked bytes');
      });

      it('a stream opened before a write keeps yielding the old bytes (writes are atomic)', async () => {
        await put('f', 'old content');
        const stream = await fs.readStream(p('f'));
        await fs.write(p('f'), 'new!');
        expect(text((await collect(stream)).bytes)).toBe('old content');
        expect(await readText('f')).toBe('new!');
      });

      it('can be cancelled part-way', async () => {
        const bytes = pattern(600 * 1024);
        await put('big', bytes);
        const reader = (await fs.readStream(p('big'))).getReader();
        const first = await reader.read();
        expect(first.done).toBe(false);
        expectBytes(first.value!, bytes.subarray(0, first.value!.byteLength));
        await reader.cancel();
        expect((await reader.read()).done).toBe(true);
        await fs.remove(p('big'));
        await expect(fs.stat(p('big'))).rejects.toMatchObject({ code: 'not-found' });
      });
    });

    describe('write', () => {
      it('a failed write with mkdirs leaves none of the folders it created', async () => {
        await fs.mkdir(p('kept'));
        await expect(fs.write(p('kept/new/deep/f.txt'), 'x', { mkdirs: true, ifVersion: 'nope' })).rejects.toMatchObject({
          code: 'version-mismatch',
        });
        await expect(fs.stat(p('kept/new'))).rejects.toMatchObject({ code: 'not-found' });
        expect(await fs.readdir(p('kept'))).toEqual([]);
      });

      it('takes names up to 255 UTF-8 bytes and refuses longer ones with name-too-long', async () => {
        const longest = '中'.repeat(85); // 255 bytes, 85 UTF-16 units
        await fs.write(p(longest), 'ok');
        expect(await readText(longest)).toBe('ok');
        expect((await fs.readdir(root)).map((e) => e.name)).toEqual([longest]);
        await expect(fs.write(p('a'.repeat(256)), 'x')).rejects.toMatchObject({ code: 'name-too-long' });
        await expect(fs.stat(p('中'.repeat(86)))).rejects.toMatchObject({ code: 'name-too-long' });
        await expect(fs.write(p('new/' + 'b'.repeat(300) + '/f'), 'x', { mkdirs: true })).rejects.toMatchObject({
          code: 'name-too-long',
        });
        await expect(fs.stat(p('new'))).rejects.toMatchObject({ code: 'not-found' });
      });

      it('creates a file and returns its stat', async () => {
        const stat = await fs.write(p('new.txt'), 'hello');
        expect(stat).toMatchObject({ type: 'file', size: 5 });
        expect(stat.version).toBe((await fs.stat(p('new.txt'))).version);
        expect(await readText('new.txt')).toBe('hello');
      });

      it('writes strings as UTF-8 and bytes as given', async () => {
        const stat = await fs.write(p('utf8.txt'), 'héllo ✓');
        expect(stat.size).toBe(encoder.encode('héllo ✓').byteLength);
        expectBytes(await fs.read(p('utf8.txt')), encoder.encode('héllo ✓'));
        const bytes = pattern(1000);
        await fs.write(p('bytes.bin'), bytes);
        expectBytes(await fs.read(p('bytes.bin')), bytes);
      });

      it('writes an empty file', async () => {
        expect(await fs.write(p('empty'), new Uint8Array(0))).toMatchObject({ type: 'file', size: 0 });
        expect((await fs.read(p('empty'))).byteLength).toBe(0);
      });

      it('replaces content entirely (a shorter write leaves no tail)', async () => {
        await put('f.txt', 'a long first version');
        await fs.write(p('f.txt'), 'short');
        expect(await readText('f.txt')).toBe('short');
        expect((await fs.stat(p('f.txt'))).size).toBe(5);
      });

      it('changes the version on every content write, same bytes included', async () => {
        const v1 = (await put('f', 'one')).version;
        const v2 = (await fs.write(p('f'), 'two')).version;
        const v3 = (await fs.write(p('f'), 'two')).version;
        const v4 = (await fs.write(p('f'), 'six')).version;
        expect(new Set([v1, v2, v3, v4]).size).toBe(4);
        expect((await fs.stat(p('f'))).version).toBe(v4);
      });

      it('keeps the version when nothing is written', async () => {
        const { version } = await put('f', 'content');
        await fs.read(p('f'));
        await collect(await fs.readStream(p('f')));
        await fs.stat(p('f'));
        await fs.readdir(root);
        expect((await fs.stat(p('f'))).version).toBe(version);
        expect((await fs.stat(p('f'))).version).toBe(version);
      });

      it('a missing parent is not-found, and nothing is created', async () => {
        await expect(fs.write(p('missing/f.txt'), 'x')).rejects.toMatchObject({ code: 'not-found' });
        await expect(fs.stat(p('missing'))).rejects.toMatchObject({ code: 'not-found' });
        expect(await fs.readdir(root)).toEqual([]);
      });

      it('mkdirs creates the missing parents', async () => {
        await fs.write(p('x/y/z.txt'), 'deep', { mkdirs: true });
        expect(await readText('x/y/z.txt')).toBe('deep');
        expect((await fs.stat(p('x/y'))).type).toBe('dir');
      });

      it('a file as parent is not-directory, with or without mkdirs', async () => {
        await put('file.txt', 'x');
        await expect(fs.write(p('file.txt/f'), 'y')).rejects.toMatchObject({ code: 'not-directory' });
        await expect(fs.write(p('file.txt/f'), 'y', { mkdirs: true })).rejects.toMatchObject({
          code: 'not-directory',
        });
        await expect(fs.write(p('file.txt/a/b'), 'y', { mkdirs: true })).rejects.toMatchObject({
          code: 'not-directory',
        });
        expect(await readText('file.txt')).toBe('x');
      });

      it('writing to a folder (or a link to one) is is-directory', async () => {
        await put('dir/inner', 'x');
        await fs.symlink('dir', p('dirlink'));
        await expect(fs.write(p('dir'), 'y')).rejects.toMatchObject({ code: 'is-directory' });
        await expect(fs.write(p('dirlink'), 'y')).rejects.toMatchObject({ code: 'is-directory' });
        expect((await fs.stat(p('dir'))).type).toBe('dir');
        expect(await names('dir')).toEqual(['inner']);
      });

      it('writes through a link: the link stays a link and its target changes', async () => {
        await put('target.txt', 'before');
        await fs.symlink('target.txt', p('link'));
        const stat = await fs.write(p('link'), 'after');
        expect((await fs.lstat(p('link'))).type).toBe('symlink');
        expect(await fs.readlink(p('link'))).toBe('target.txt');
        expect(await readText('target.txt')).toBe('after');
        expect(stat.version).toBe((await fs.stat(p('target.txt'))).version);
        expect(sortEntries(await fs.readdir(root))).toEqual([
          { name: 'link', type: 'symlink' },
          { name: 'target.txt', type: 'file' },
        ]);
      });

      it('writes through a chain of links to the final target', async () => {
        await put('d/target.txt', 'before');
        await fs.symlink('d/target.txt', p('l1'));
        await fs.symlink(p('l1'), p('l2'));
        await fs.write(p('l2'), 'after');
        expect(await readText('d/target.txt')).toBe('after');
        expect(await fs.readlink(p('l2'))).toBe(p('l1'));
        expect(await fs.readlink(p('l1'))).toBe('d/target.txt');
      });

      it('writing through a dangling link creates its target', async () => {
        await fs.mkdir(p('d'));
        await fs.symlink('d/made.txt', p('dangling'));
        await fs.write(p('dangling'), 'created');
        expect(await readText('d/made.txt')).toBe('created');
        expect((await fs.lstat(p('dangling'))).type).toBe('symlink');
      });

      it('writes into the real folder behind a linked folder', async () => {
        await fs.mkdir(p('real'));
        await fs.symlink('real', p('alias'));
        await fs.write(p('alias/new.txt'), 'through alias');
        expect(await names('real')).toEqual(['new.txt']);
        expect(await readText('real/new.txt')).toBe('through alias');
      });

      it('exclusive creates a new file', async () => {
        expect(await fs.write(p('new'), 'first', { exclusive: true })).toMatchObject({ type: 'file', size: 5 });
        expect(await readText('new')).toBe('first');
      });

      it('exclusive on an existing file, folder or dangling link is exists, and changes nothing', async () => {
        const { version } = await put('file', 'original');
        await fs.mkdir(p('dir'));
        await fs.symlink('nowhere', p('dangling'));
        await expect(fs.write(p('file'), 'x', { exclusive: true })).rejects.toMatchObject({ code: 'exists' });
        await expect(fs.write(p('dir'), 'x', { exclusive: true })).rejects.toMatchObject({ code: 'exists' });
        await expect(fs.write(p('dangling'), 'x', { exclusive: true })).rejects.toMatchObject({ code: 'exists' });
        expect(await readText('file')).toBe('original');
        expect((await fs.stat(p('file'))).version).toBe(version);
        await expect(fs.stat(p('nowhere'))).rejects.toMatchObject({ code: 'not-found' });
      });

      it('ifVersion that matches writes and moves the version', async () => {
        const { version } = await put('f', 'v1');
        const stat = await fs.write(p('f'), 'v2', { ifVersion: version });
        expect(stat.version).not.toBe(version);
        expect(await readText('f')).toBe('v2');
        const third = await fs.write(p('f'), 'v3', { ifVersion: stat.version });
        expect(third.version).not.toBe(stat.version);
        expect(await readText('f')).toBe('v3');
      });

      it('ifVersion that does not match is version-mismatch and changes nothing', async () => {
        const { version: stale } = await put('f', 'v1');
        const { version: current } = await fs.write(p('f'), 'v2');
        await expect(fs.write(p('f'), 'v3', { ifVersion: stale })).rejects.toMatchObject({
          code: 'version-mismatch',
        });
        await expect(fs.write(p('f'), 'v3', { ifVersion: 'not-a-version' })).rejects.toMatchObject({
          code: 'version-mismatch',
        });
        expect(await readText('f')).toBe('v2');
        expect((await fs.stat(p('f'))).version).toBe(current);
      });

      it('ifVersion on a missing file is version-mismatch and creates nothing', async () => {
        const { version } = await put('other', 'x');
        await expect(fs.write(p('missing'), 'x', { ifVersion: version })).rejects.toMatchObject({
          code: 'version-mismatch',
        });
        await expect(fs.stat(p('missing'))).rejects.toMatchObject({ code: 'not-found' });
      });

      it('ifVersion through a link compares the target’s version', async () => {
        await put('target', 'v1');
        await fs.symlink('target', p('link'));
        const { version } = await fs.stat(p('link'));
        await fs.write(p('link'), 'v2', { ifVersion: version });
        expect(await readText('target')).toBe('v2');
        expect((await fs.lstat(p('link'))).type).toBe('symlink');
      });

      it('leaves no stray entries in the folder', async () => {
        await put('d/f', 'one');
        await fs.write(p('d/f'), 'two');
        await fs.write(p('d/g'), 'new', { exclusive: true });
        await expect(fs.write(p('d/f'), 'x', { ifVersion: 'nope' })).rejects.toMatchObject({
          code: 'version-mismatch',
        });
        await expect(fs.write(p('d/f'), 'x', { exclusive: true })).rejects.toMatchObject({ code: 'exists' });
        expect(await names('d')).toEqual(['f', 'g']);
      });
    });

    describeStreamedWrites(() => ({ fs, root, serializesWriters }));

    describe('mkdir', () => {
      it('creates an empty folder', async () => {
        await fs.mkdir(p('dir'));
        expect((await fs.stat(p('dir'))).type).toBe('dir');
        expect(await fs.readdir(p('dir'))).toEqual([]);
      });

      it('an existing folder, file or link is exists', async () => {
        await fs.mkdir(p('dir'));
        await put('file', 'x');
        await fs.symlink('nowhere', p('dangling'));
        await expect(fs.mkdir(p('dir'))).rejects.toMatchObject({ code: 'exists' });
        await expect(fs.mkdir(p('file'))).rejects.toMatchObject({ code: 'exists' });
        await expect(fs.mkdir(p('dangling'))).rejects.toMatchObject({ code: 'exists' });
        expect((await fs.stat(p('file'))).type).toBe('file');
      });

      it('a missing parent is not-found; a file parent is not-directory', async () => {
        await put('file', 'x');
        await expect(fs.mkdir(p('missing/dir'))).rejects.toMatchObject({ code: 'not-found' });
        await expect(fs.mkdir(p('file/dir'))).rejects.toMatchObject({ code: 'not-directory' });
      });

      it('recursive creates the whole chain and accepts an existing folder', async () => {
        await fs.mkdir(p('a/b/c'), { recursive: true });
        expect((await fs.stat(p('a/b/c'))).type).toBe('dir');
        await put('a/b/c/keep.txt', 'kept');
        await fs.mkdir(p('a/b/c'), { recursive: true });
        await fs.mkdir(p('a'), { recursive: true });
        expect(await readText('a/b/c/keep.txt')).toBe('kept');
      });

      it('recursive onto a file is exists; through a file is not-directory', async () => {
        await put('file', 'x');
        await expect(fs.mkdir(p('file'), { recursive: true })).rejects.toMatchObject({ code: 'exists' });
        await expect(fs.mkdir(p('file/a/b'), { recursive: true })).rejects.toMatchObject({ code: 'not-directory' });
      });

      it('recursive goes through linked folders', async () => {
        await fs.mkdir(p('real'));
        await fs.symlink('real', p('alias'));
        await fs.mkdir(p('alias/x/y'), { recursive: true });
        expect((await fs.stat(p('real/x/y'))).type).toBe('dir');
      });
    });

    describe('remove', () => {
      it('removes a file', async () => {
        await put('d/f', 'x');
        await put('d/g', 'y');
        await fs.remove(p('d/f'));
        await expect(fs.stat(p('d/f'))).rejects.toMatchObject({ code: 'not-found' });
        expect(await names('d')).toEqual(['g']);
      });

      it('removes an empty folder without recursive', async () => {
        await fs.mkdir(p('empty'));
        await fs.remove(p('empty'));
        await expect(fs.stat(p('empty'))).rejects.toMatchObject({ code: 'not-found' });
      });

      it('a non-empty folder without recursive is not-empty and stays', async () => {
        await put('d/f', 'x');
        await expect(fs.remove(p('d'))).rejects.toMatchObject({ code: 'not-empty' });
        expect(await readText('d/f')).toBe('x');
      });

      it('recursive removes a tree, but not what its links point to', async () => {
        await put('outside/keep.txt', 'kept');
        await put('tree/a/b/c.txt', 'c');
        await put('tree/top.txt', 't');
        await fs.symlink(p('outside'), p('tree/a/to-outside'));
        await fs.symlink('../../outside/keep.txt', p('tree/a/to-file'));
        await fs.remove(p('tree'), { recursive: true });
        await expect(fs.lstat(p('tree'))).rejects.toMatchObject({ code: 'not-found' });
        expect(await readText('outside/keep.txt')).toBe('kept');
        expect(await names('')).toEqual(['outside']);
      });

      it('removing a link removes only the link, even recursively', async () => {
        await put('dir/inner.txt', 'inner');
        await put('file.txt', 'file');
        await fs.symlink('dir', p('dirlink'));
        await fs.symlink('file.txt', p('filelink'));
        await fs.remove(p('dirlink'), { recursive: true });
        await fs.remove(p('filelink'));
        expect(await names('')).toEqual(['dir', 'file.txt']);
        expect(await readText('dir/inner.txt')).toBe('inner');
        expect(await readText('file.txt')).toBe('file');
      });

      it('removes a dangling link', async () => {
        await fs.symlink('nowhere', p('dangling'));
        await fs.remove(p('dangling'));
        await expect(fs.lstat(p('dangling'))).rejects.toMatchObject({ code: 'not-found' });
      });

      it('a missing path is not-found', async () => {
        await expect(fs.remove(p('missing'))).rejects.toMatchObject({ code: 'not-found' });
        await expect(fs.remove(p('missing'), { recursive: true })).rejects.toMatchObject({ code: 'not-found' });
      });

      it('removes an entry behind a linked folder', async () => {
        await put('real/f.txt', 'x');
        await fs.symlink('real', p('alias'));
        await fs.remove(p('alias/f.txt'));
        expect(await fs.readdir(p('real'))).toEqual([]);
      });
    });

    describe('rename', () => {
      it('moves a file and keeps its version', async () => {
        const { version } = await put('a.txt', 'moving');
        await fs.rename(p('a.txt'), p('b.txt'));
        await expect(fs.stat(p('a.txt'))).rejects.toMatchObject({ code: 'not-found' });
        expect(await readText('b.txt')).toBe('moving');
        expect((await fs.stat(p('b.txt'))).version).toBe(version);
      });

      it('moves a folder with its contents', async () => {
        await put('src/a.txt', 'a');
        await put('src/sub/b.txt', 'b');
        await fs.mkdir(p('dest'));
        await fs.rename(p('src'), p('dest/moved'));
        await expect(fs.stat(p('src'))).rejects.toMatchObject({ code: 'not-found' });
        expect(await names('dest/moved')).toEqual(['a.txt', 'sub']);
        expect(await readText('dest/moved/sub/b.txt')).toBe('b');
      });

      it('an existing target without overwrite is exists, and nothing changes', async () => {
        await put('a', 'A');
        await put('b', 'B');
        await expect(fs.rename(p('a'), p('b'))).rejects.toMatchObject({ code: 'exists' });
        expect(await readText('a')).toBe('A');
        expect(await readText('b')).toBe('B');
      });

      it('overwrite replaces a file', async () => {
        await put('a', 'A');
        await put('b', 'B');
        await fs.rename(p('a'), p('b'), { overwrite: true });
        expect(await readText('b')).toBe('A');
        expect(await names('')).toEqual(['b']);
      });

      it('overwrite replaces whatever is at the target: a folder by a file, a folder by a folder', async () => {
        await put('file', 'F');
        await put('target-dir/old.txt', 'old');
        await fs.rename(p('file'), p('target-dir'), { overwrite: true });
        expect((await fs.stat(p('target-dir'))).type).toBe('file');
        expect(await readText('target-dir')).toBe('F');

        await put('src/new.txt', 'new');
        await put('full/old.txt', 'old');
        await fs.rename(p('src'), p('full'), { overwrite: true });
        expect(await names('full')).toEqual(['new.txt']);
      });

      it('moving a folder into itself is invalid, and nothing changes', async () => {
        await put('a/sub/f', 'x');
        await expect(fs.rename(p('a'), p('a/inside'))).rejects.toMatchObject({ code: 'invalid' });
        await expect(fs.rename(p('a'), p('a/sub/deeper'))).rejects.toMatchObject({ code: 'invalid' });
        expect(await names('a')).toEqual(['sub']);
        expect(await readText('a/sub/f')).toBe('x');
      });

      it('replacing a folder that contains the source is invalid', async () => {
        await put('a/b/f', 'x');
        await expect(fs.rename(p('a/b'), p('a'), { overwrite: true })).rejects.toMatchObject({ code: 'invalid' });
        expect(await readText('a/b/f')).toBe('x');
      });

      it('moves a link itself: same text, target untouched', async () => {
        await put('target.txt', 'T');
        await fs.symlink(p('target.txt'), p('link'));
        await fs.mkdir(p('d'));
        await fs.rename(p('link'), p('d/link'));
        expect((await fs.lstat(p('d/link'))).type).toBe('symlink');
        expect(await fs.readlink(p('d/link'))).toBe(p('target.txt'));
        expect(await readText('d/link')).toBe('T');
        expect(await names('')).toEqual(['d', 'target.txt']);
      });

      it('a missing source is not-found; a missing target folder is not-found; a file as folder is not-directory', async () => {
        await put('a', 'A');
        await expect(fs.rename(p('missing'), p('x'))).rejects.toMatchObject({ code: 'not-found' });
        await expect(fs.rename(p('a'), p('missing/x'))).rejects.toMatchObject({ code: 'not-found' });
        await expect(fs.rename(p('a'), p('a/x'))).rejects.toMatchObject({ code: 'not-directory' });
        expect(await readText('a')).toBe('A');
      });

      it('renaming onto itself changes nothing', async () => {
        const { version } = await put('a', 'A');
        await fs.rename(p('a'), p('a'));
        expect(await readText('a')).toBe('A');
        expect((await fs.stat(p('a'))).version).toBe(version);
      });
    });

    describe('copy', () => {
      it('copies a file into an independent file', async () => {
        const { version } = await put('a.txt', 'original');
        await fs.copy(p('a.txt'), p('b.txt'));
        expect(await readText('b.txt')).toBe('original');
        await fs.write(p('b.txt'), 'changed copy');
        expect(await readText('a.txt')).toBe('original');
        expect((await fs.stat(p('a.txt'))).version).toBe(version);
        expect((await fs.stat(p('b.txt'))).version).not.toBe(version);
      });

      it('copies a tree recursively; links inside are copied as links with the same text', async () => {
        await put('outside.txt', 'out');
        await put('src/a.txt', 'a');
        await put('src/sub/b.bin', pattern(70_000));
        await fs.mkdir(p('src/empty'));
        await fs.symlink('../a.txt', p('src/sub/rel-link'));
        await fs.symlink(p('outside.txt'), p('src/abs-link'));
        await fs.copy(p('src'), p('dst'));

        expect(sortEntries(await fs.readdir(p('dst')))).toEqual([
          { name: 'a.txt', type: 'file' },
          { name: 'abs-link', type: 'symlink' },
          { name: 'empty', type: 'dir' },
          { name: 'sub', type: 'dir' },
        ]);
        expect(await names('dst/sub')).toEqual(['b.bin', 'rel-link']);
        expectBytes(await fs.read(p('dst/sub/b.bin')), pattern(70_000));
        expect(await fs.readlink(p('dst/sub/rel-link'))).toBe('../a.txt');
        expect(await fs.readlink(p('dst/abs-link'))).toBe(p('outside.txt'));
        // The relative link now resolves inside the copy.
        await fs.write(p('dst/a.txt'), 'copy a');
        expect(await readText('dst/sub/rel-link')).toBe('copy a');
        expect(await readText('src/sub/rel-link')).toBe('a');
      });

      it('copies a link itself, not its target', async () => {
        await put('target.txt', 'T');
        await fs.symlink('target.txt', p('link'));
        await fs.copy(p('link'), p('link-copy'));
        expect((await fs.lstat(p('link-copy'))).type).toBe('symlink');
        expect(await fs.readlink(p('link-copy'))).toBe('target.txt');
      });

      it('an existing target without overwrite is exists, and nothing changes', async () => {
        await put('a', 'A');
        await put('b', 'B');
        await put('dir/x', 'x');
        await expect(fs.copy(p('a'), p('b'))).rejects.toMatchObject({ code: 'exists' });
        await expect(fs.copy(p('a'), p('dir'))).rejects.toMatchObject({ code: 'exists' });
        expect(await readText('b')).toBe('B');
        expect(await names('dir')).toEqual(['x']);
      });

      it('overwrite replaces a file, and a folder by a folder', async () => {
        await put('a', 'A');
        await put('b', 'B');
        await fs.copy(p('a'), p('b'), { overwrite: true });
        expect(await readText('b')).toBe('A');
        expect(await readText('a')).toBe('A');

        await put('src/new.txt', 'new');
        await put('dst/old.txt', 'old');
        await fs.copy(p('src'), p('dst'), { overwrite: true });
        expect(await names('dst')).toEqual(['new.txt']);
        expect(await names('src')).toEqual(['new.txt']);
      });

      it('overwrite replaces a folder by a file', async () => {
        await put('file', 'F');
        await put('dir/old.txt', 'old');
        await fs.copy(p('file'), p('dir'), { overwrite: true });
        expect((await fs.stat(p('dir'))).type).toBe('file');
        expect(await readText('dir')).toBe('F');
      });

      it('copying a folder into itself or onto itself is invalid', async () => {
        await put('a/f', 'x');
        await expect(fs.copy(p('a'), p('a/inside'))).rejects.toMatchObject({ code: 'invalid' });
        await expect(fs.copy(p('a'), p('a'), { overwrite: true })).rejects.toMatchObject({ code: 'invalid' });
        await expect(fs.copy(p('a/f'), p('a/f'), { overwrite: true })).rejects.toMatchObject({ code: 'invalid' });
        expect(await names('a')).toEqual(['f']);
        expect(await readText('a/f')).toBe('x');
      });

      it('a missing source or target folder is not-found', async () => {
        await put('a', 'A');
        await expect(fs.copy(p('missing'), p('x'))).rejects.toMatchObject({ code: 'not-found' });
        await expect(fs.copy(p('a'), p('missing/x'))).rejects.toMatchObject({ code: 'not-found' });
        expect(await names('')).toEqual(['a']);
      });
    });

    describe('symlink and chmod', () => {
      it('creates a link whose text is exactly the target given', async () => {
        await fs.symlink('../some/./where', p('link'));
        expect(await fs.readlink(p('link'))).toBe('../some/./where');
        expect((await fs.lstat(p('link'))).type).toBe('symlink');
      });

      it('an existing path is exists (file, folder or link)', async () => {
        await put('file', 'x');
        await fs.mkdir(p('dir'));
        await fs.symlink('file', p('link'));
        await expect(fs.symlink('x', p('file'))).rejects.toMatchObject({ code: 'exists' });
        await expect(fs.symlink('x', p('dir'))).rejects.toMatchObject({ code: 'exists' });
        await expect(fs.symlink('x', p('link'))).rejects.toMatchObject({ code: 'exists' });
        expect(await fs.readlink(p('link'))).toBe('file');
      });

      it('a missing parent is not-found; empty link text is invalid', async () => {
        await expect(fs.symlink('x', p('missing/link'))).rejects.toMatchObject({ code: 'not-found' });
        await expect(fs.symlink('', p('link'))).rejects.toMatchObject({ code: 'invalid' });
      });

      it('chmod keeps content and version; a missing path is not-found', async () => {
        const { version } = await put('f', 'content');
        await fs.chmod(p('f'), 0o600);
        await fs.chmod(p('f'), 0o644);
        expect((await fs.stat(p('f'))).version).toBe(version);
        expect(await readText('f')).toBe('content');
        await expect(fs.chmod(p('missing'), 0o644)).rejects.toMatchObject({ code: 'not-found' });
      });
    });

    describe('permissions', () => {
      permissionTest('a file without read permission cannot be read or streamed', async () => {
        await put('secret', 'hidden');
        await fs.chmod(p('secret'), 0o000);
        try {
          await expect(fs.read(p('secret'))).rejects.toMatchObject({ code: 'permission-denied' });
          await expect(fs.readWithStat(p('secret'))).rejects.toMatchObject({ code: 'permission-denied' });
          await expect(fs.readStream(p('secret'))).rejects.toMatchObject({ code: 'permission-denied' });
          await expect(fs.copy(p('secret'), p('copy'))).rejects.toMatchObject({ code: 'permission-denied' });
          expect((await fs.stat(p('secret'))).size).toBe(6);
        } finally {
          await fs.chmod(p('secret'), 0o644);
        }
        expect(await readText('secret')).toBe('hidden');
      });

      permissionTest('chmod through a link changes the target', async () => {
        await put('target', 'x');
        await fs.symlink('target', p('link'));
        await fs.chmod(p('link'), 0o000);
        try {
          await expect(fs.read(p('target'))).rejects.toMatchObject({ code: 'permission-denied' });
        } finally {
          await fs.chmod(p('target'), 0o644);
        }
      });

      permissionTest('a folder without read permission cannot be listed', async () => {
        await put('dir/f', 'x');
        await fs.chmod(p('dir'), 0o300);
        try {
          await expect(fs.readdir(p('dir'))).rejects.toMatchObject({ code: 'permission-denied' });
          expect((await fs.stat(p('dir/f'))).type).toBe('file');
        } finally {
          await fs.chmod(p('dir'), 0o755);
        }
      });

      permissionTest('a folder without search permission cannot be entered', async () => {
        await put('dir/f', 'x');
        await fs.chmod(p('dir'), 0o600);
        try {
          await expect(fs.stat(p('dir/f'))).rejects.toMatchObject({ code: 'permission-denied' });
          await expect(fs.read(p('dir/f'))).rejects.toMatchObject({ code: 'permission-denied' });
        } finally {
          await fs.chmod(p('dir'), 0o755);
        }
      });

      permissionTest('nothing can be created, replaced or removed in a read-only folder', async () => {
        await put('dir/f', 'original');
        await fs.chmod(p('dir'), 0o555);
        try {
          const denied = { code: 'permission-denied' };
          await expect(fs.write(p('dir/new'), 'x')).rejects.toMatchObject(denied);
          await expect(fs.write(p('dir/f'), 'x')).rejects.toMatchObject(denied);
          await expect(fs.mkdir(p('dir/sub'))).rejects.toMatchObject(denied);
          await expect(fs.symlink('f', p('dir/link'))).rejects.toMatchObject(denied);
          await expect(fs.remove(p('dir/f'))).rejects.toMatchObject(denied);
          await expect(fs.rename(p('dir/f'), p('moved'))).rejects.toMatchObject(denied);
          await expect(fs.copy(p('dir/f'), p('dir/copy'))).rejects.toMatchObject(denied);
        } finally {
          await fs.chmod(p('dir'), 0o755);
        }
        expect(await names('dir')).toEqual(['f']);
        expect(await readText('dir/f')).toBe('original');
      });

      permissionTest('a read-only file is not replaced by a write', async () => {
        const { version } = await put('ro', 'read only');
        await fs.chmod(p('ro'), 0o444);
        try {
          await expect(fs.write(p('ro'), 'x')).rejects.toMatchObject({ code: 'permission-denied' });
          expect(await readText('ro')).toBe('read only');
          expect((await fs.stat(p('ro'))).version).toBe(version);
        } finally {
          await fs.chmod(p('ro'), 0o644);
        }
      });
    });
  });
}
