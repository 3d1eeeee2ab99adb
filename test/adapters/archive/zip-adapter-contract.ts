/**
 * The ZipAdapter contract (adapters/archive/zip-adapter.ts), run unchanged over every implementation: the Node one
 * over yauzl (./yauzl-zip-adapter.test.ts) and the Web one that parses archives itself (./web-zip-adapter.test.ts).
 * core/archive and the client must not be able to tell them apart, so every assertion is exact, messages included:
 * both run on Node's zlib here (yauzl's inflater, Node's DecompressionStream), so even the inflater's reasons match.
 * Archives come from Info-ZIP's `zip` where a real tool makes them, and by hand (test/support/zip-writer.ts,
 * test/support/zip64-writer.ts) for everything a real tool will not make.
 */
import { execFileSync } from 'node:child_process';
import { chmod, mkdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { deflateRawSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import type { ZipAdapter, ZipArchive, ZipEntryInfo } from '../../../adapters/archive/zip-adapter.ts';
import { tempWorkspace, type TempWorkspace } from '../../support/workspace.ts';
import { buildZip64, unicodePathField } from '../../support/zip64-writer.ts';
import { buildZip, file, folder, symlink as symlinkEntry } from '../../support/zip-writer.ts';

const text = (stream: ReadableStream<Uint8Array>) => new Response(stream).text();

/** `count` empty, non-final stored deflate blocks (5 bytes each: header, LEN 0, NLEN 0xffff): valid, and no output. */
export const emptyStoredBlocks = (count: number): Uint8Array =>
  Uint8Array.from({ length: count * 5 }, (_, i) => (i % 5 < 3 ? 0x00 : 0xff));

export function runZipAdapterContract(name: string, makeAdapter: () => ZipAdapter): void {
  const adapter = makeAdapter();

  async function entriesOf(bytes: Uint8Array): Promise<{ archive: ZipArchive; entries: readonly ZipEntryInfo[] }> {
    const archive = await adapter.open(bytes);
    return { archive, entries: await archive.readEntries() };
  }

  /** The message the entry's stream fails with (fails the test if it does not). */
  async function streamFailure(archive: ZipArchive, entry: ZipEntryInfo): Promise<string> {
    try {
      await text(await archive.open(entry));
    } catch (error) {
      return (error as Error).message;
    }
    throw new Error('the stream did not fail');
  }

  describe(`${name}: an archive as Info-ZIP writes it`, () => {
    let ws: TempWorkspace;
    afterEach(() => ws?.cleanup());

    it('lists every entry in archive order with its kind, mode and sizes, and streams the bytes', async () => {
      ws = await tempWorkspace();
      const src = join(ws.root, 'src');
      await mkdir(join(src, 'a/b'), { recursive: true });
      await writeFile(join(src, 'a/b/c.txt'), 'hello\n'.repeat(100));
      await writeFile(join(src, 'run.sh'), '#!/bin/sh\necho hi\n');
      await chmod(join(src, 'run.sh'), 0o755);
      await writeFile(join(src, 'empty'), '');
      await writeFile(join(src, 'ünï cødé.txt'), 'ü\n');
      await symlink('a/b/c.txt', join(src, 'link'));
      const zipPath = join(ws.root, 't.zip');
      // -y stores the link as a link (the entry a zip-slip through a symlink needs); -X drops the uid/gid fields.
      execFileSync('zip', ['-r', '-y', '-X', '-q', zipPath, 'a', 'run.sh', 'empty', 'ünï cødé.txt', 'link'], { cwd: src });

      const { archive, entries } = await entriesOf(new Uint8Array(await readFile(zipPath)));
      expect(archive.entryCount).toBe(7);
      const compressed = entries.find((entry) => entry.name === 'a/b/c.txt')!.compressedSize;
      expect(compressed).toBeLessThan(600); // deflated
      expect(entries).toEqual([
        { name: 'a/', compressedSize: 0, uncompressedSize: 0, kind: 'dir', mode: 0o755 },
        { name: 'a/b/', compressedSize: 0, uncompressedSize: 0, kind: 'dir', mode: 0o755 },
        { name: 'a/b/c.txt', compressedSize: compressed, uncompressedSize: 600, kind: 'file', mode: 0o644 },
        { name: 'run.sh', compressedSize: expect.any(Number), uncompressedSize: 18, kind: 'file', mode: 0o755 },
        { name: 'empty', compressedSize: 0, uncompressedSize: 0, kind: 'file', mode: 0o644 },
        // Info-ZIP on Linux stores UTF-8 names unflagged: read as UTF-8, not as CP437 mojibake.
        { name: 'ünï cødé.txt', compressedSize: 3, uncompressedSize: 3, kind: 'file', mode: 0o644 },
        { name: 'link', compressedSize: 9, uncompressedSize: 9, kind: 'symlink', mode: 0o777 },
      ]);
      expect(await text(await archive.open(entries[2]!))).toBe('hello\n'.repeat(100));
      expect(await text(await archive.open(entries[3]!))).toBe('#!/bin/sh\necho hi\n');
      expect(await text(await archive.open(entries[4]!))).toBe('');
      archive.close();
    });

    /** Zips `files` (written into a fresh source folder) with Info-ZIP's `zip` and `flags`; the archive's bytes. */
    async function infoZip(flags: string[], files: Record<string, string>, stdin?: string): Promise<Uint8Array> {
      ws = await tempWorkspace();
      const src = join(ws.root, 'src');
      await mkdir(src);
      for (const [path, content] of Object.entries(files)) await writeFile(join(src, path), content);
      const zipPath = join(ws.root, 't.zip');
      execFileSync('zip', [...flags, '-X', '-q', zipPath, ...(stdin === undefined ? Object.keys(files) : ['-'])], { cwd: src, input: stdin });
      return new Uint8Array(await readFile(zipPath));
    }

    it('reads a zip64 archive (`zip -fz`): sizes from the zip64 field, the directory from the zip64 end record', async () => {
      const bytes = await infoZip(['-fz'], { 'a.txt': 'hello\n'.repeat(200), b: 'x' });
      // The zip64 end record (56 bytes) and its locator (20) sit before the end record, which points nowhere.
      expect(new DataView(bytes.buffer).getUint32(bytes.length - 22 - 20 - 56, true)).toBe(0x06064b50);
      expect(new DataView(bytes.buffer).getUint32(bytes.length - 6, true)).toBe(0xffffffff);
      const { archive, entries } = await entriesOf(bytes);
      expect(archive.entryCount).toBe(2);
      expect(entries).toEqual([
        { name: 'a.txt', compressedSize: expect.any(Number), uncompressedSize: 1200, kind: 'file', mode: 0o644 },
        { name: 'b', compressedSize: 1, uncompressedSize: 1, kind: 'file', mode: 0o644 },
      ]);
      expect(await text(await archive.open(entries[0]!))).toBe('hello\n'.repeat(200));
      expect(await text(await archive.open(entries[1]!))).toBe('x');
    });

    it('reads entries written with data descriptors (`zip -fd`), and one streamed from stdin (a fifo: kind other)', async () => {
      const described = await entriesOf(await infoZip(['-fd'], { 'a.txt': 'hello\n'.repeat(200), b: 'x' }));
      expect(described.entries.map(({ name, uncompressedSize }) => ({ name, uncompressedSize }))).toEqual([
        { name: 'a.txt', uncompressedSize: 1200 },
        { name: 'b', uncompressedSize: 1 },
      ]);
      expect(await text(await described.archive.open(described.entries[0]!))).toBe('hello\n'.repeat(200));
      expect(await text(await described.archive.open(described.entries[1]!))).toBe('x');
      await ws.cleanup();

      const piped = await entriesOf(await infoZip([], {}, 'streamed\n'.repeat(50)));
      // (the mode is the pipe's own, which depends on who made it)
      expect(piped.entries).toEqual([{ name: '-', compressedSize: expect.any(Number), uncompressedSize: 450, kind: 'other', mode: expect.any(Number) }]);
      expect(await text(await piped.archive.open(piped.entries[0]!))).toBe('streamed\n'.repeat(50));
    });
  });

  describe(`${name}: names and kinds`, () => {
    it('decodes flagged UTF-8 names, CP437 names, and keeps backslashes and `..` for the core to judge', async () => {
      const { entries } = await entriesOf(
        buildZip([
          file('日本/ファイル.txt', 'x'),
          file('ignored', 'y', { nameBytes: new Uint8Array([0x81, 0x62, 0x65, 0x72]) }), // CP437 0x81 = ü
          file('..\\evil.txt', 'z'),
          file('../up.txt', 'z'),
          file('/etc/passwd', 'z'),
        ]),
      );
      expect(entries.map((entry) => entry.name)).toEqual(['日本/ファイル.txt', 'über', '..\\evil.txt', '../up.txt', '/etc/passwd']);
    });

    it('tells folders, symlinks and special files apart by the Unix mode, the trailing slash or the DOS bit', async () => {
      const { entries } = await entriesOf(
        buildZip([
          folder('d'),
          symlinkEntry('l', '/etc/passwd'),
          { name: 'fifo', unixMode: 0o010644 },
          { name: 'dosdir', madeBy: 0, unixMode: 0o040000 }, // MS-DOS host: only the 0x10 attribute says folder
          { name: 'dosfile', madeBy: 0, data: 'x' },
          { name: 'slash/', unixMode: 0 },
        ]),
      );
      expect(entries.map(({ name, kind, mode }) => ({ name, kind, mode }))).toEqual([
        { name: 'd/', kind: 'dir', mode: 0o755 },
        { name: 'l', kind: 'symlink', mode: 0o777 },
        { name: 'fifo', kind: 'other', mode: 0o644 },
        { name: 'dosdir', kind: 'dir', mode: undefined },
        { name: 'dosfile', kind: 'file', mode: undefined },
        { name: 'slash/', kind: 'dir', mode: undefined },
      ]);
    });

    it('reads the high 16 attribute bits as a Unix mode only when a Unix host made the entry', async () => {
      const bytes = buildZip([{ name: 'dos', madeBy: 0, data: 'x' }, { name: 'unix', data: 'x' }]);
      const directory = new DataView(bytes.buffer).getUint32(bytes.length - 6, true);
      const linkBits = ((0o120777 << 16) | 0x20) >>> 0; // a symlink's st_mode, and the DOS archive bit
      new DataView(bytes.buffer).setUint32(directory + 38, linkBits, true);
      new DataView(bytes.buffer).setUint32(directory + 46 + 3 + 38, linkBits, true);
      const { entries } = await entriesOf(bytes);
      expect(entries.map(({ name, kind, mode }) => ({ name, kind, mode }))).toEqual([
        { name: 'dos', kind: 'file', mode: undefined },
        { name: 'unix', kind: 'symlink', mode: 0o777 },
      ]);
    });

    it('knows the entry count from the end record before reading a single entry', async () => {
      const archive = await adapter.open(buildZip([file('a', 'x'), file('b', 'y')], { entryCount: 2 }));
      expect(archive.entryCount).toBe(2);
      await expect(archive.readEntries()).resolves.toHaveLength(2);
      await expect(archive.readEntries()).rejects.toThrow('readEntries: the entries were read already');
    });

    it('decodes CP437 byte by byte, and a flagged name that is not valid UTF-8 with U+FFFD where the bad bytes were', async () => {
      const { entries } = await entriesOf(
        buildZip([
          file('ignored', 'x', { nameBytes: new Uint8Array([0x80, 0xe1, 0xc9, 0xcd, 0xbb, 0xb0, 0x9b, 0x7f]) }),
          file('ignored', 'x', { nameBytes: new Uint8Array([0x61, 0xff, 0x62, 0xe2, 0x82]), flags: 0x800 }),
          // A byte-order mark: kept in a flagged name, dropped from an unflagged one read as UTF-8.
          file('ignored', 'x', { nameBytes: new Uint8Array([0xef, 0xbb, 0xbf, 0x61]), flags: 0x800 }),
          file('ignored', 'x', { nameBytes: new Uint8Array([0xef, 0xbb, 0xbf, 0x62]) }),
        ]),
      );
      expect(entries.map((entry) => entry.name)).toEqual(['Çß╔═╗░¢⌂', 'a\ufffdb\ufffd', '\ufeffa', 'b']);
    });

    it('takes the Info-ZIP Unicode Path field when its CRC matches the stored name, and ignores a stale one', async () => {
      const cp437Name = new Uint8Array([0x63, 0x61, 0x66, 0x82, 0x2e, 0x74, 0x78, 0x74]); // "café.txt" in CP437
      const utf8Name = new TextEncoder().encode('ü.txt');
      const { entries } = await entriesOf(
        buildZip64(
          [
            { name: 'x', nameBytes: cp437Name, data: 'a', extra: [unicodePathField('日本.txt', cp437Name)] },
            // Written for another name (the entry was renamed since): the header's name stands, as CP437.
            { name: 'x', nameBytes: cp437Name, data: 'b', extra: [unicodePathField('stale.txt', new Uint8Array([1]))] },
            // Even a stale field means the writer declared its names' encoding: unflagged UTF-8 bytes are then CP437.
            { name: 'x', nameBytes: utf8Name, data: 'c', extra: [unicodePathField('stale.txt', new Uint8Array([1]))] },
          ],
          { zip64: false },
        ),
      );
      expect(entries.map((entry) => entry.name)).toEqual(['日本.txt', 'café.txt', '├╝.txt']);
    });
  });

  describe(`${name}: zip64 written by hand`, () => {
    it('reads every size, offset and count from the zip64 records when the 32-bit fields are all ones', async () => {
      const big = 'zip64 '.repeat(50_000);
      const bytes = buildZip64([
        { name: 'stored.txt', data: 'stored bytes', method: 'store' },
        { name: 'deflated.txt', data: big },
        { name: 'empty', data: '', method: 'store' },
      ]);
      const { archive, entries } = await entriesOf(bytes);
      expect(archive.entryCount).toBe(3);
      expect(entries).toEqual([
        { name: 'stored.txt', compressedSize: 12, uncompressedSize: 12, kind: 'file', mode: 0o644 },
        { name: 'deflated.txt', compressedSize: deflateRawSync(big).length, uncompressedSize: big.length, kind: 'file', mode: 0o644 },
        { name: 'empty', compressedSize: 0, uncompressedSize: 0, kind: 'file', mode: 0o644 },
      ]);
      expect(await text(await archive.open(entries[0]!))).toBe('stored bytes');
      expect(await text(await archive.open(entries[1]!))).toBe(big);
      expect(await text(await archive.open(entries[2]!))).toBe('');
    });

    it('refuses a zip64 locator that points past the end or at something other than a zip64 end record', async () => {
      const bytes = buildZip64([{ name: 'a', data: 'x' }]);
      const locatorOffset = bytes.length - 22 - 20 + 8;
      const pastEnd = bytes.slice();
      new DataView(pastEnd.buffer).setBigUint64(locatorOffset, BigInt(bytes.length), true);
      await expect(adapter.open(pastEnd)).rejects.toThrow(/^Not a zip archive: unexpected EOF$/);
      const elsewhere = bytes.slice();
      new DataView(elsewhere.buffer).setBigUint64(locatorOffset, 0n, true); // the first local header
      await expect(adapter.open(elsewhere)).rejects.toThrow(/^Not a zip archive: invalid zip64 end of central directory record signature$/);
    });

    it('refuses a zip64 field too short for the sizes the header marks as in it', async () => {
      const eight = new Uint8Array(8);
      new DataView(eight.buffer).setBigUint64(0, 1n, true);
      const bytes = buildZip64([{ name: 'a', data: 'x', method: 'store', extra: [{ id: 0x0001, data: eight }] }], { zip64: false });
      const directory = new DataView(bytes.buffer).getUint32(bytes.length - 6, true);
      new DataView(bytes.buffer).setUint32(directory + 20, 0xffffffff, true); // compressed size: in the zip64 field…
      new DataView(bytes.buffer).setUint32(directory + 24, 0xffffffff, true); // …after the uncompressed size, which is all it holds
      const archive = await adapter.open(bytes);
      await expect(archive.readEntries()).rejects.toThrow(
        /^Malformed zip archive: zip64 extended information extra field does not include compressed size$/,
      );
    });
  });

  describe(`${name}: what is not a zip, or not what it declares`, () => {
    it('refuses bytes that are not a zip archive', async () => {
      await expect(adapter.open(new TextEncoder().encode('hello, not a zip'))).rejects.toThrow(
        'Not a zip archive: End of central directory record signature not found. Either not a zip file, or file is truncated.',
      );
      await expect(adapter.open(new Uint8Array())).rejects.toThrow(/^Not a zip archive: /);
    });

    it('refuses a central directory that runs past the end of the archive', async () => {
      const archive = await adapter.open(buildZip([file('a', 'x')], { entryCount: 3 }));
      await expect(archive.readEntries()).rejects.toThrow(/^Malformed zip archive: /);
    });

    it('refuses a stored entry whose two sizes differ when listing it', async () => {
      const archive = await adapter.open(buildZip([file('a', 'abc', { method: 'store', declaredSize: 2 })]));
      await expect(archive.readEntries()).rejects.toThrow(
        'Malformed zip archive: compressed/uncompressed size mismatch for stored file: 3 != 2',
      );
    });

    it('fails the stream of an entry that inflates past its declared size (a lying header)', async () => {
      const bomb = new Uint8Array(8 * 1024 * 1024); // 8 MiB of zeros, declared as 100 bytes
      const { archive, entries } = await entriesOf(buildZip([file('small.txt', bomb, { declaredSize: 100 })]));
      expect(entries[0]).toMatchObject({ uncompressedSize: 100 });
      expect(await streamFailure(archive, entries[0]!)).toBe('its data inflates past the declared 100 bytes');
    });

    it('fails the stream of an entry that inflates to fewer bytes than declared', async () => {
      const { archive, entries } = await entriesOf(buildZip([file('a.txt', 'abc', { declaredSize: 10 })]));
      expect(await streamFailure(archive, entries[0]!)).toBe('its data inflates to 3 bytes, not the declared 10');
    });

    it('fails the stream when the CRC-32 does not match (stored and deflated)', async () => {
      const { archive, entries } = await entriesOf(
        buildZip([file('s.txt', 'stored', { method: 'store', crc: 1234 }), file('d.txt', 'deflated '.repeat(9), { crc: 1234 })]),
      );
      expect(await streamFailure(archive, entries[0]!)).toBe('CRC-32 mismatch: the data is corrupt');
      expect(await streamFailure(archive, entries[1]!)).toBe('CRC-32 mismatch: the data is corrupt');
    });

    it('fails the stream of corrupt deflate data with zlib’s reason', async () => {
      const good = deflateRawSync(Buffer.from('hello hello hello'));
      const { archive, entries } = await entriesOf(
        buildZip([file('bad.txt', 'hello hello hello', { storedBytes: new Uint8Array([0xff, 0xff, ...good]) })]),
      );
      expect(await streamFailure(archive, entries[0]!)).toMatch(/^invalid compressed data \(.+\)$/);
    });

    it('refuses to open encrypted entries and compression methods other than stored and deflated', async () => {
      const { archive, entries } = await entriesOf(
        buildZip([file('enc', 'x', { flags: 0x801 }), file('bz', 'x', { method: 'store', methodCode: 12 })]),
      );
      await expect(archive.open(entries[0]!)).rejects.toThrow('encrypted entries are not supported');
      await expect(archive.open(entries[1]!)).rejects.toThrow('compression method 12 is not supported (only stored and deflated)');
    });

    it('a stream cancelled part-way lets go of the entry: the archive reads it again, whole', async () => {
      const data = Buffer.alloc(4 * 1024 * 1024, 'the same bytes, again and again; ');
      const { archive, entries } = await entriesOf(buildZip([file('big.bin', data)]));
      const reader = (await archive.open(entries[0]!)).getReader();
      const first = await reader.read();
      expect(first.done).toBe(false);
      expect(first.value!.byteLength).toBeGreaterThan(0);
      await reader.cancel();
      // The archive is still usable: a fresh stream of the same entry reads it whole.
      const whole = Buffer.from(await new Response(await archive.open(entries[0]!)).arrayBuffer());
      expect(whole.equals(data)).toBe(true); // (toEqual compares 4 MiB element by element: slow)
    });
  });

  describe(`${name}: truncated and damaged archives`, () => {
    const sample = () => buildZip([file('a.txt', 'alpha '.repeat(20)), file('b.txt', 'beta', { method: 'store' })]);
    const view = (bytes: Uint8Array) => new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);

    it('refuses every truncation of an archive, cut anywhere, as not a zip archive', async () => {
      const bytes = sample();
      const messages = new Set<string>();
      for (let length = 0; length < bytes.length; length++) {
        messages.add(await adapter.open(bytes.subarray(0, length)).then(() => 'opened', (error: Error) => error.message));
      }
      expect([...messages]).toEqual([
        'Not a zip archive: End of central directory record signature not found. Either not a zip file, or file is truncated.',
      ]);
    });

    it('refuses bytes after the end record (its comment length no longer matches); reads a real comment', async () => {
      const appended = new Uint8Array([...sample(), 1, 2, 3]);
      await expect(adapter.open(appended)).rejects.toThrow(
        'Not a zip archive: Invalid comment length. Expected: 3. Found: 0. Are there extra bytes at the end of the file? ' +
          'Or is the end of central dir signature `PK☺☻` in the comment?',
      );
      const commented = buildZip64([{ name: 'a', data: 'x' }], { zip64: false, comment: new TextEncoder().encode('an archive comment') });
      const { archive, entries } = await entriesOf(commented);
      expect(await text(await archive.open(entries[0]!))).toBe('x');
    });

    it('refuses a central directory that starts past the end, or whose record runs past it', async () => {
      const bytes = sample();
      const directory = view(bytes).getUint32(bytes.length - 6, true);
      const offsetPastEnd = bytes.slice();
      view(offsetPastEnd).setUint32(bytes.length - 6, bytes.length + 10, true);
      await expect((await adapter.open(offsetPastEnd)).readEntries()).rejects.toThrow(/^Malformed zip archive: unexpected EOF$/);
      const namePastEnd = bytes.slice();
      view(namePastEnd).setUint16(directory + 28, 0xffff, true); // the first record's name length
      await expect((await adapter.open(namePastEnd)).readEntries()).rejects.toThrow(/^Malformed zip archive: unexpected EOF$/);
      const notARecord = bytes.slice();
      view(notARecord).setUint32(bytes.length - 6, 0, true); // the directory "starts" at the first local header
      await expect((await adapter.open(notARecord)).readEntries()).rejects.toThrow(
        /^Malformed zip archive: invalid central directory file header signature: 0x4034b50$/,
      );
    });

    it('refuses extra fields that overrun their area, strong encryption and multi-disk archives', async () => {
      const overrun = buildZip64([{ name: 'a', data: 'x', extra: [{ id: 0xcafe, data: new Uint8Array(4) }] }], { zip64: false });
      const directory = view(overrun).getUint32(overrun.length - 6, true);
      view(overrun).setUint16(directory + 46 + 1 + 2, 5, true); // the field's length: one byte more than there is
      await expect((await adapter.open(overrun)).readEntries()).rejects.toThrow(
        /^Malformed zip archive: extra field length exceeds extra field buffer size$/,
      );
      const strong = buildZip([file('a', 'x', { flags: 0x41 })]);
      await expect((await adapter.open(strong)).readEntries()).rejects.toThrow(/^Malformed zip archive: strong encryption is not supported$/);
      const multiDisk = sample();
      view(multiDisk).setUint16(multiDisk.length - 18, 1, true);
      await expect(adapter.open(multiDisk)).rejects.toThrow(/^Not a zip archive: multi-disk zip files are not supported: found disk number: 1$/);
    });

    it('refuses to open an entry whose local header is missing or whose data runs past the end', async () => {
      const bytes = sample();
      const directory = view(bytes).getUint32(bytes.length - 6, true);
      const pastEnd = bytes.slice();
      view(pastEnd).setUint32(directory + 42, bytes.length, true); // the first entry's local header offset
      const moved = bytes.slice();
      view(moved).setUint32(directory + 42, directory, true); // …pointing at the central directory instead
      const overflowing = bytes.slice();
      view(overflowing).setUint16(28, 0xffff, true); // the first local header's extra length
      const openFirst = async (archive: Uint8Array) => {
        const { archive: opened, entries } = await entriesOf(archive);
        return opened.open(entries[0]!);
      };
      await expect(openFirst(pastEnd)).rejects.toThrow(/^unexpected EOF$/);
      await expect(openFirst(moved)).rejects.toThrow(/^invalid local file header signature: 0x2014b50$/);
      const compressed = (await entriesOf(bytes)).entries[0]!.compressedSize;
      await expect(openFirst(overflowing)).rejects.toThrow(
        new RegExp(`^file data overflows file bounds: ${30 + 5 + 0xffff} \\+ ${compressed} > ${bytes.length}$`),
      );
    });

    it('reads deflate data whose first 16 KiB inflate to nothing (empty stored blocks, as a sync flush writes them)', async () => {
      const data = 'after the padding '.repeat(1000);
      const stored = new Uint8Array([...emptyStoredBlocks(3277), ...deflateRawSync(data)]); // 16 385 bytes of nothing first
      const { archive, entries } = await entriesOf(buildZip([file('padded.txt', data, { storedBytes: stored })]));
      expect(await text(await archive.open(entries[0]!))).toBe(data);
    });

    it('fails the stream of deflate data cut short', async () => {
      const data = 'the end is missing '.repeat(100);
      const cut = deflateRawSync(Buffer.from(data)).subarray(0, -5);
      const { archive, entries } = await entriesOf(buildZip([file('cut.txt', data, { storedBytes: cut })]));
      expect(await streamFailure(archive, entries[0]!)).toBe('invalid compressed data (unexpected end of file)');
    });
  });

  describe(`${name}: CRC-32 and streaming`, () => {
    /** 3 MiB that neither repeat nor compress well, so a deflated entry spans many chunks in and out. */
    const noise = () => {
      const bytes = new Uint8Array(3 * 1024 * 1024);
      let seed = 1;
      for (let i = 0; i < bytes.length; i++) bytes[i] = 97 + ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) >>> 27);
      return bytes;
    };
    const bytesOf = async (stream: ReadableStream<Uint8Array>) => new Uint8Array(await new Response(stream).arrayBuffer());

    it('checks the CRC over every chunk: a 3 MiB entry reads back whole; one byte changed in its middle fails it', async () => {
      const data = noise();
      const { archive, entries } = await entriesOf(buildZip([file('s.bin', data, { method: 'store' }), file('d.bin', data)]));
      expect(Buffer.from(await bytesOf(await archive.open(entries[0]!))).equals(data)).toBe(true);
      expect(Buffer.from(await bytesOf(await archive.open(entries[1]!))).equals(data)).toBe(true);

      const flipped = buildZip([file('s.bin', data, { method: 'store' })]);
      const middle = 30 + 5 + data.length / 2; // a byte in the middle of the stored data
      flipped[middle] = flipped[middle]! ^ 0x01;
      const damaged = await entriesOf(flipped);
      expect(await streamFailure(damaged.archive, damaged.entries[0]!)).toBe('CRC-32 mismatch: the data is corrupt');
      const wrong = await entriesOf(buildZip([file('d.bin', data, { crc: 0xdeadbeef })]));
      expect(await streamFailure(wrong.archive, wrong.entries[0]!)).toBe('CRC-32 mismatch: the data is corrupt');
    });

    it('checks the central directory’s CRC, not the local header’s', async () => {
      const localWrong = buildZip([file('a.txt', 'deflated '.repeat(9))]);
      new DataView(localWrong.buffer).setUint32(14, 1234, true);
      const fine = await entriesOf(localWrong);
      expect(await text(await fine.archive.open(fine.entries[0]!))).toBe('deflated '.repeat(9));

      const centralWrong = buildZip([file('a.txt', 'deflated '.repeat(9))]);
      const directory = new DataView(centralWrong.buffer).getUint32(centralWrong.length - 6, true);
      new DataView(centralWrong.buffer).setUint32(directory + 16, 1234, true);
      const damaged = await entriesOf(centralWrong);
      expect(await streamFailure(damaged.archive, damaged.entries[0]!)).toBe('CRC-32 mismatch: the data is corrupt');
    });

    it('streams an entry in chunks: the first of a 3 MiB entry is at most 64 KiB (stored and deflated)', async () => {
      const data = noise();
      const { archive, entries } = await entriesOf(buildZip([file('s.bin', data, { method: 'store' }), file('d.bin', data)]));
      for (const entry of entries) {
        const reader = (await archive.open(entry)).getReader();
        const first = await reader.read();
        expect(first.value!.byteLength).toBeGreaterThan(0);
        expect(first.value!.byteLength).toBeLessThanOrEqual(64 * 1024);
        expect(Buffer.from(first.value!).equals(data.subarray(0, first.value!.byteLength))).toBe(true);
        await reader.cancel();
      }
    });

    it('refuses to open an entry once the archive is closed, or an entry of another archive', async () => {
      const { archive, entries } = await entriesOf(buildZip([file('a', 'x')]));
      const other = await entriesOf(buildZip([file('a', 'x')]));
      await expect(archive.open(other.entries[0]!)).rejects.toThrow(/^open: not an entry of this archive$/);
      archive.close();
      await expect(archive.open(entries[0]!)).rejects.toThrow(/^closed$/);
    });
  });
}
