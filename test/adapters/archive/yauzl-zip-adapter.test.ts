import { execFileSync } from 'node:child_process';
import { chmod, mkdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { deflateRawSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { YauzlZipAdapter } from '../../../adapters/archive/yauzl-zip-adapter.ts';
import type { ZipArchive, ZipEntryInfo } from '../../../adapters/archive/zip-adapter.ts';
import { tempWorkspace, type TempWorkspace } from '../../support/workspace.ts';
import { buildZip, file, folder, symlink as symlinkEntry } from '../../support/zip-writer.ts';

const adapter = new YauzlZipAdapter();
const text = (stream: ReadableStream<Uint8Array>) => new Response(stream).text();

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

describe('YauzlZipAdapter: an archive as Info-ZIP writes it', () => {
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
});

describe('YauzlZipAdapter: names and kinds', () => {
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

  it('knows the entry count from the end record before reading a single entry', async () => {
    const archive = await adapter.open(buildZip([file('a', 'x'), file('b', 'y')], { entryCount: 2 }));
    expect(archive.entryCount).toBe(2);
    await expect(archive.readEntries()).resolves.toHaveLength(2);
    await expect(archive.readEntries()).rejects.toThrow('readEntries: the entries were read already');
  });
});

describe('YauzlZipAdapter: what is not a zip, or not what it declares', () => {
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
