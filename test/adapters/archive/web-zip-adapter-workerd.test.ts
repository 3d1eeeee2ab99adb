import { execFileSync } from 'node:child_process';
import { mkdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { crc32 as zlibCrc32, deflateRawSync } from 'node:zlib';
import { build } from 'esbuild';
import { Miniflare } from 'miniflare';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { projectRoot } from '../../../runtime/worker-build.ts';
import { tempWorkspace } from '../../support/workspace.ts';
import { buildZip64, unicodePathField } from '../../support/zip64-writer.ts';
import { buildZip, file, folder, symlink as symlinkEntry } from '../../support/zip-writer.ts';
import { reportOn, type ArchiveReport, type StallReport } from './workerd/zip-worker.ts';
import { emptyStoredBlocks } from './zip-adapter-contract.ts';

/**
 * WebZipAdapter inside real workerd (miniflare, no nodejs_compat), where it exists to run: ./workerd/zip-worker.ts
 * reports what the adapter makes of an archive, and the same report made here in Node must match it, entry by
 * entry and byte for byte. The two runtimes' inflaters differ in their words, and in one verdict (trailing
 * bytes after the deflate stream's end); those cases are pinned on each side, exactly.
 */

// Miniflare runs scripts from under its working folder: the bundle stays under the project.
const SCRIPT = join(projectRoot, 'dist/test-zip-workerd/worker.js');
let mf: Miniflare;

beforeAll(async () => {
  await build({
    entryPoints: [join(projectRoot, 'test/adapters/archive/workerd/zip-worker.ts')],
    bundle: true,
    format: 'esm',
    platform: 'browser',
    conditions: ['workerd', 'worker', 'browser'],
    outfile: SCRIPT,
    logLevel: 'silent',
  });
  mf = new Miniflare({ scriptPath: SCRIPT, modules: true, compatibilityDate: '2026-04-26' });
});
afterAll(() => mf?.dispose());

async function inWorkerd(bytes: Uint8Array): Promise<ArchiveReport> {
  const response = await mf.dispatchFetch('http://zip.test/', { method: 'POST', body: bytes });
  return (await response.json()) as ArchiveReport;
}

/** Both reports, with each stream's first chunk checked to be a chunk (≤ 64 KiB) and then set aside: sizes differ. */
async function bothReports(bytes: Uint8Array): Promise<{ workerd: ArchiveReport; node: ArchiveReport }> {
  const reports = { workerd: await inWorkerd(bytes), node: JSON.parse(JSON.stringify(await reportOn(bytes))) as ArchiveReport };
  for (const report of Object.values(reports)) {
    if (!report.opened) continue;
    for (const read of report.reads) {
      if (read.firstChunk !== undefined) expect(read.firstChunk).toBeGreaterThan(0);
      if (read.firstChunk !== undefined) expect(read.firstChunk).toBeLessThanOrEqual(64 * 1024);
      delete read.firstChunk;
    }
  }
  return reports;
}

const noise = (size: number) => {
  const bytes = new Uint8Array(size);
  let seed = 7;
  for (let i = 0; i < size; i++) bytes[i] = 97 + ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) >>> 27);
  return bytes;
};

describe('WebZipAdapter in workerd', () => {
  it('reads an Info-ZIP archive (folders, a link, a UTF-8 name, deflated and stored) as it does in Node', async () => {
    const ws = await tempWorkspace();
    try {
      const src = join(ws.root, 'src');
      await mkdir(join(src, 'a/b'), { recursive: true });
      await writeFile(join(src, 'a/b/c.txt'), 'hello\n'.repeat(100));
      await writeFile(join(src, 'ünï cødé.txt'), 'ü\n');
      await writeFile(join(src, 'big.bin'), noise(2 * 1024 * 1024));
      await symlink('a/b/c.txt', join(src, 'link'));
      execFileSync('zip', ['-r', '-y', '-X', '-q', join(ws.root, 't.zip'), 'a', 'ünï cødé.txt', 'big.bin', 'link'], { cwd: src });
      execFileSync('zip', ['-fz', '-X', '-q', join(ws.root, 'z64.zip'), 'a/b/c.txt'], { cwd: src });
      for (const archive of ['t.zip', 'z64.zip']) {
        const { workerd, node } = await bothReports(new Uint8Array(await readFile(join(ws.root, archive))));
        expect(workerd).toEqual(node);
        expect(workerd.opened && workerd.reads.every((read) => read.ok)).toBe(true);
      }
    } finally {
      await ws.cleanup();
    }
  });

  it('reads zip64 records, CP437 and Unicode Path names, folders, links and special files as it does in Node', async () => {
    const cp437Name = new Uint8Array([0x63, 0x61, 0x66, 0x82]);
    for (const bytes of [
      buildZip64([
        { name: 'stored', data: 'stored bytes', method: 'store' },
        { name: 'deflated', data: noise(1024 * 1024) },
        { name: 'x', nameBytes: cp437Name, data: 'a', extra: [unicodePathField('日本.txt', cp437Name)] },
      ]),
      buildZip([
        folder('d'),
        symlinkEntry('l', '/etc/passwd'),
        { name: 'fifo', unixMode: 0o010644 },
        file('ignored', 'x', { nameBytes: new Uint8Array([0x80, 0xe1, 0xc9, 0xcd]) }),
        file('日本/ファイル.txt', 'x'),
      ]),
    ]) {
      const { workerd, node } = await bothReports(bytes);
      expect(workerd).toEqual(node);
    }
  });

  it('feeds the inflater again when a whole chunk of input gave no output (no read would ever end)', async () => {
    // Its first 16 KiB chunk inflates to nothing: a read of its output waits until the next chunk goes in.
    const data = 'after the padding '.repeat(10_000);
    const stored = new Uint8Array([...emptyStoredBlocks(3277), ...deflateRawSync(data)]);
    const { workerd, node } = await bothReports(buildZip([file('padded.txt', data, { storedBytes: stored })]));
    expect(workerd).toEqual(node);
    expect(workerd.opened && workerd.reads).toEqual([{ ok: true, length: data.length, crc: zlibCrc32(data), head: data.slice(0, 64) }]);
  });

  it('fails what yauzl fails, in the same words: sizes, CRCs, truncation, damage', async () => {
    const archives = [
      buildZip([file('small.txt', new Uint8Array(8 * 1024 * 1024), { declaredSize: 100 })]),
      buildZip([file('a.txt', 'abc', { declaredSize: 10 })]),
      buildZip([file('s.txt', 'stored', { method: 'store', crc: 1234 }), file('d.bin', noise(300_000), { crc: 1234 })]),
      buildZip([file('enc', 'x', { flags: 0x801 }), file('bz', 'x', { method: 'store', methodCode: 12 })]),
      buildZip([file('a', 'abc', { method: 'store', declaredSize: 2 })]),
      buildZip([file('a', 'x')], { entryCount: 3 }),
      buildZip([file('a.txt', 'alpha '.repeat(20))]).subarray(0, 40),
      new TextEncoder().encode('hello, not a zip'),
    ];
    for (const bytes of archives) {
      const { workerd, node } = await bothReports(bytes);
      expect(workerd).toEqual(node);
    }
  });

  it('reports corrupt and cut-short deflate data in its own inflater’s words', async () => {
    const good = deflateRawSync(Buffer.from('hello hello hello'));
    const bytes = buildZip([
      file('bad.txt', 'hello hello hello', { storedBytes: new Uint8Array([0xff, 0xff, ...good]) }),
      file('cut.txt', 'hello hello hello', { storedBytes: good.subarray(0, -3) }),
    ]);
    const { workerd, node } = await bothReports(bytes);
    expect(node.opened && node.reads).toEqual([
      { ok: false, error: 'invalid compressed data (invalid block type)' },
      { ok: false, error: 'invalid compressed data (unexpected end of file)' },
    ]);
    expect(workerd.opened && workerd.reads).toEqual([
      { ok: false, error: 'invalid compressed data (Decompression failed.)' },
      { ok: false, error: 'invalid compressed data (Called close() on a decompression stream with incomplete data)' },
    ]);
  });

  it('refuses bytes after the deflate stream’s end inside the entry, which zlib in Node ignores', async () => {
    // The compressed size claims more than the deflate stream uses. Node's zlib (and so yauzl) stops at the
    // stream's final block and ignores the rest; workerd's inflater refuses the chunk. No writer we know pads so.
    const good = deflateRawSync(Buffer.from('hello hello hello'));
    const bytes = buildZip([file('padded.txt', 'hello hello hello', { storedBytes: new Uint8Array([...good, 0, 0, 0, 0]) })]);
    const { workerd, node } = await bothReports(bytes);
    expect(node.opened && node.reads).toEqual([{ ok: true, length: 17, crc: expect.any(Number), head: 'hello hello hello' }]);
    expect(workerd.opened && workerd.reads).toEqual([{ ok: false, error: 'invalid compressed data (Trailing bytes after end of compressed data)' }]);
  });

  it('pulls compressed input only as the consumer reads, and a cancel stops it', async () => {
    const response = await mf.dispatchFetch('http://zip.test/stall', { method: 'POST', body: deflateRawSync(noise(4 * 1024 * 1024)) });
    const report = (await response.json()) as StallReport;
    expect(report.chunks).toBeGreaterThan(100);
    expect(report.readsWhileStalled).toBeLessThanOrEqual(3);
    expect(report).toMatchObject({ readsAfterCancel: report.readsWhileStalled, stopped: true });
  });
});
