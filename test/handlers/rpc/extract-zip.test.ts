/**
 * `extract_zip` over a real WebSocket on a real server, real files: archives made by Info-ZIP's `zip` for the
 * happy path, and by hand (test/support/zip-writer.ts) for everything a real tool will not make.
 */
import { execFileSync } from 'node:child_process';
import { chmod, mkdir, readFile, stat, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { deflateRawSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import type { Limits } from '../../../runtime/context.ts';
import type { NodeServer } from '../../../runtime/node/server.ts';
import { createFixture, type Fixture, type Seed } from '../../support/backends.ts';
import { RpcClient, startTestServer, type Reply } from '../../support/rpc-client.ts';
import { tempWorkspace, type TempWorkspace } from '../../support/workspace.ts';
import { base64, buildZip, file, folder, symlink as symlinkEntry, type ZipEntrySpec } from '../../support/zip-writer.ts';

describe('/ws extract_zip', () => {
  let fx: Fixture;
  let server: NodeServer;
  let client: RpcClient;
  /** Where the `zip` CLI's sources and archives are made: away from the workspace. */
  let scratch: TempWorkspace | undefined;

  afterEach(async () => {
    await client?.close();
    await server?.close();
    await fx?.cleanup();
    await scratch?.cleanup();
    scratch = undefined;
  });

  /** Zips `names` (relative to `src`) with Info-ZIP's `zip` and `flags`; the archive's bytes. */
  async function infoZip(src: string, flags: string[], names: string[]): Promise<Uint8Array> {
    const zipPath = `${src}.zip`;
    execFileSync('zip', [...flags, '-X', '-q', zipPath, ...names], { cwd: src });
    return new Uint8Array(await readFile(zipPath));
  }

  async function setup(seed: Seed = {}, limits: Partial<Limits> = {}): Promise<void> {
    fx = await createFixture('node', seed);
    server = await startTestServer(fx.root, { limits });
    client = await RpcClient.connect(server);
  }

  const extract = (archive: ZipEntrySpec[] | Uint8Array, destDir: string): Promise<Reply> =>
    client.call('extract_zip', { zipContent: base64(archive instanceof Uint8Array ? archive : buildZip(archive)), destDir });

  /** Expects the error reply `error`, with the workspace and the folder beside it exactly as they were. */
  async function expectRefused(run: () => Promise<Reply>, error: string | RegExp): Promise<void> {
    const before = await fx.tree();
    const outsideBefore = await fx.outsideTree();
    const reply = await run();
    expect(reply).toEqual({ id: reply.id, ok: false, error: typeof error === 'string' ? error : expect.stringMatching(error) });
    expect(await fx.tree()).toEqual(before);
    expect(await fx.outsideTree()).toEqual(outsideBefore);
  }

  it('extracts an Info-ZIP archive: nested folders, unicode names, an empty file, file modes; answers every path', async () => {
    await setup({ 'keep.txt': 'kept' });
    scratch = await tempWorkspace();
    const src = join(scratch.root, 'src');
    await mkdir(join(src, 'pkg/lib'), { recursive: true });
    await writeFile(join(src, 'pkg/lib/index.js'), 'export const x = 1;\n'.repeat(50));
    await writeFile(join(src, 'pkg/run.sh'), '#!/bin/sh\necho run\n');
    await chmod(join(src, 'pkg/run.sh'), 0o755);
    await writeFile(join(src, 'pkg/empty'), '');
    await writeFile(join(src, 'pkg/résumé ✓.txt'), 'unicode\n');
    const archive = await infoZip(src, ['-r'], ['pkg']);

    const reply = await client.call('extract_zip', { zipContent: base64(archive), destDir: `${fx.root}/vendor` });
    const dest = `${fx.root}/vendor`;
    expect(reply.ok).toBe(true);
    // zip lists a folder's entries in the order it read them; the set of paths is what is pinned.
    expect([...(reply.result as string[])].sort()).toEqual(
      [`${dest}/pkg`, `${dest}/pkg/lib`, `${dest}/pkg/lib/index.js`, `${dest}/pkg/run.sh`, `${dest}/pkg/empty`, `${dest}/pkg/résumé ✓.txt`].sort(),
    );
    expect(await fx.tree()).toEqual({
      'keep.txt': 'kept',
      vendor: '<dir>',
      'vendor/pkg': '<dir>',
      'vendor/pkg/empty': '',
      'vendor/pkg/lib': '<dir>',
      'vendor/pkg/lib/index.js': 'export const x = 1;\n'.repeat(50),
      'vendor/pkg/résumé ✓.txt': 'unicode\n',
      'vendor/pkg/run.sh': '#!/bin/sh\necho run\n',
    });
    expect((await stat(`${dest}/pkg/run.sh`)).mode & 0o777).toBe(0o755);
    expect((await stat(`${dest}/pkg/empty`)).mode & 0o777).toBe(0o644);
  });

  it('answers the paths in archive order; a relative destDir resolves against the root; existing files are overwritten', async () => {
    await setup({ 'out/a.txt': 'old', 'out/other.txt': 'untouched' });
    const reply = await extract([file('a.txt', 'new'), folder('d'), file('d/b.txt', 'b')], 'out');
    expect(reply).toEqual({ id: reply.id, ok: true, result: [`${fx.root}/out/a.txt`, `${fx.root}/out/d`, `${fx.root}/out/d/b.txt`] });
    expect(await fx.tree()).toEqual({ out: '<dir>', 'out/a.txt': 'new', 'out/d': '<dir>', 'out/d/b.txt': 'b', 'out/other.txt': 'untouched' });
  });

  it('refuses the whole archive for a `../` entry, writing nothing', async () => {
    await setup({ 'd/keep.txt': 'kept' });
    await expectRefused(() => extract([file('fine.txt', 'x'), file('../escaped.txt', 'evil')], `${fx.root}/d`), 'Invalid zip entry: ../escaped.txt');
    await expectRefused(() => extract([file('a/../../../escaped.txt', 'evil')], `${fx.root}/d`), 'Invalid zip entry: a/../../../escaped.txt');
  });

  it('refuses the whole archive for an absolute entry (`/etc/x`, a drive letter, backslashes)', async () => {
    await setup();
    const absolute = `${fx.outside}/planted.txt`;
    await expectRefused(() => extract([file('fine.txt', 'x'), file(absolute, 'evil')], `${fx.root}/d`), `Invalid zip entry: ${absolute}`);
    await expectRefused(() => extract([file('/etc/x', 'evil')], `${fx.root}/d`), 'Invalid zip entry: /etc/x');
    await expectRefused(() => extract([file('C:\\Windows\\x', 'evil')], `${fx.root}/d`), 'Invalid zip entry: C:\\Windows\\x');
    await expectRefused(() => extract([file('..\\..\\x', 'evil')], `${fx.root}/d`), 'Invalid zip entry: ..\\..\\x');
  });

  it('refuses the whole archive for a symlink entry, as Info-ZIP stores one with -y', async () => {
    await setup();
    scratch = await tempWorkspace({ 'src/a.txt': 'a' });
    const src = join(scratch.root, 'src');
    await symlink(fx.outside, join(src, 'escape'));
    const archive = await infoZip(src, ['-y'], ['a.txt', 'escape']);
    await expectRefused(() => extract(archive, `${fx.root}/d`), 'Invalid zip entry: escape');
    // And the pair that would write through it: the link, then a file below it.
    await expectRefused(() => extract([symlinkEntry('l', fx.outside), file('l/planted.txt', 'evil')], `${fx.root}/d`), 'Invalid zip entry: l');
  });

  it('refuses an entry that would leave destDir through a symlink already inside it', async () => {
    await setup({ 'd/out': { link: '$OUTSIDE' } });
    await expectRefused(() => extract([file('ok.txt', 'x'), file('out/planted.txt', 'evil')], `${fx.root}/d`), 'Invalid zip entry: out/planted.txt');
  });

  it("stays out of the agents folder like every other write: as destDir, and as an entry's path", async () => {
    await setup({ '.agents/agent-1/own.txt': 'the agent\'s' });
    await expectRefused(
      () => extract([file('planted.txt', 'hi')], '.agents/agent-1'),
      'not part of the workspace tree (the agents folder): .agents/agent-1',
    );
    await expectRefused(() => extract([file('ok.txt', 'fine'), file('.agents/agent-1/planted.txt', 'hi')], fx.root), 'Invalid zip entry: .agents/agent-1/planted.txt');
  });

  it('refuses a bomb by ratio: 50 MiB of zeros deflated ~1000:1, before inflating anything', async () => {
    await setup();
    const zeros = new Uint8Array(50 * 1024 * 1024);
    const compressed = deflateRawSync(zeros).length;
    const ratio = Math.round(zeros.length / compressed);
    expect(ratio).toBeGreaterThan(900);
    await expectRefused(
      () => extract([file('readme.txt', 'hi'), file('bomb.bin', zeros)], `${fx.root}/d`),
      `Zip too large: bomb.bin expands ${ratio}:1 (the limit is 200:1 per entry)`,
    );
  });

  it('refuses more entries than zipMaxEntries', async () => {
    await setup({}, { zipMaxEntries: 3 });
    const four = [file('a', '1'), file('b', '2'), folder('c'), file('c/d', '4')];
    await expectRefused(() => extract(four, `${fx.root}/d`), 'Zip too large: 4 entries (the limit is 3)');
    expect(await extract(four.slice(0, 3), `${fx.root}/d`)).toMatchObject({ ok: true });
  });

  it('refuses more uncompressed bytes in all than zipMaxBytes', async () => {
    await setup({}, { zipMaxBytes: 1000 });
    const entries = [file('a', 'a'.repeat(500)), file('b', 'b'.repeat(501))];
    await expectRefused(() => extract(entries, `${fx.root}/d`), 'Zip too large: 1001 bytes uncompressed (the limit is 1000 in all)');
    expect(await extract(entries.slice(0, 1), `${fx.root}/d`)).toMatchObject({ ok: true });
  });

  it('refuses a header lying about its size (8 MiB declared as 100 bytes), leaving nothing behind', async () => {
    await setup();
    await expectRefused(
      () => extract([file('ok.txt', 'ok'), file('lies.bin', new Uint8Array(8 * 1024 * 1024), { declaredSize: 100 })], `${fx.root}/d`),
      'Cannot extract lies.bin: its data inflates past the declared 100 bytes',
    );
  });

  it('a corrupt entry mid-archive fails it whole: destDir as it was, no staging folder, a new destDir not made', async () => {
    await setup({ 'd/a.txt': 'old' });
    const archive = [file('a.txt', 'new'), file('sub/one.txt', 'one'), file('sub/bad.txt', 'bad data', { crc: 42 }), file('z.txt', 'z')];
    await expectRefused(() => extract(archive, `${fx.root}/d`), 'Cannot extract sub/bad.txt: CRC-32 mismatch: the data is corrupt');
    await expectRefused(() => extract(archive, `${fx.root}/new/dest`), 'Cannot extract sub/bad.txt: CRC-32 mismatch: the data is corrupt');
  });

  it('refuses a destDir outside the workspace', async () => {
    await setup();
    await expectRefused(() => extract([file('x', 'x')], fx.outside), 'path is outside the workspace');
    await expectRefused(() => extract([file('x', 'x')], '../elsewhere'), 'path is outside the workspace');
  });

  it('refuses a destDir that is a file, and a file where the archive needs a folder', async () => {
    await setup({ 'f.txt': 'file', 'd/a': 'a file' });
    await expectRefused(() => extract([file('x', 'x')], `${fx.root}/f.txt`), `not a folder: ${fx.root}/f.txt`);
    await expectRefused(() => extract([file('a/b', 'x')], `${fx.root}/d`), `Cannot extract a/b: ${fx.root}/d/a is not a folder`);
  });

  it('bad base64, bytes that are not a zip, and missing or mistyped arguments are clear errors', async () => {
    await setup();
    const dest = `${fx.root}/d`;
    await expectRefused(() => client.call('extract_zip', { zipContent: 'UEsD!!', destDir: dest }), 'Invalid base64: unexpected character "!" at offset 4');
    await expectRefused(
      () => client.call('extract_zip', { zipContent: base64(new TextEncoder().encode('plain text')), destDir: dest }),
      /^Not a zip archive: End of central directory record signature not found/,
    );
    await expectRefused(() => client.call('extract_zip', { destDir: dest }), "invalid arg 'zipContent': missing");
    await expectRefused(() => client.call('extract_zip', { zipContent: 42, destDir: dest }), "invalid arg 'zipContent': expected string, got number");
    await expectRefused(() => client.call('extract_zip', { zipContent: base64(buildZip([file('x', 'x')])) }), "invalid arg 'destDir': missing");
  });
});
