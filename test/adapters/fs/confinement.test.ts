/**
 * FileSystem.confine (adapters/fs/node-confinement.ts, adapters/fs/confined-folders.ts): the caller resolved a path
 * while `dir` was a folder inside the root; by the time the adapter uses it, `dir` has been swapped for a link to a
 * folder outside. Every call that reads content, lists, or changes anything is refused (`permission-denied`) and
 * leaves the outside folder as it was, on the disk, in memory and in an agent's overlay. The same calls on an adapter that is not
 * confined do reach outside — each row shows its own escape, so none of them can pass for want of one.
 */
import { lstat, mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import type { FileSystem } from '../../../adapters/fs/file-system.ts';
import { MemoryFileSystem } from '../../../adapters/fs/memory-file-system.ts';
import { NodeFileSystem } from '../../../adapters/fs/node-file-system.ts';
import { OverlayFileSystem } from '../../../adapters/fs/overlay-file-system.ts';
import { WhiteoutSet } from '../../../adapters/fs/overlay/whiteouts.ts';

const OUTSIDE = 'OUTSIDE-SECRET\n';
const decoder = new TextDecoder();

interface Fixture {
  fs: FileSystem;
  root: string;
  outside: string;
  /** The outside file's permission bits as this backend can tell them (FileStat has no mode). */
  modeOfSecret(): Promise<string>;
  cleanup(): Promise<void>;
}

/** root/dir (a folder, then a link to outside), root/inside.txt, root/kept (an inside folder); outside/secret.txt, outside/sub/deep.txt. */
async function build(fs: FileSystem, root: string, outside: string): Promise<void> {
  await fs.mkdir(root, { recursive: true });
  await fs.mkdir(`${outside}/sub`, { recursive: true });
  await fs.write(`${outside}/secret.txt`, OUTSIDE);
  await fs.write(`${outside}/sub/deep.txt`, OUTSIDE);
  await fs.chmod(`${outside}/secret.txt`, 0o644);
  await fs.write(`${root}/inside.txt`, 'inside\n');
  await fs.write(`${root}/kept/k.txt`, 'kept\n', { mkdirs: true });
  // What the caller saw when it resolved `dir/...`: a folder inside. Then the swap.
  await fs.write(`${root}/dir/secret.txt`, 'inside dir\n', { mkdirs: true });
  await fs.rename(`${root}/dir`, `${root}/dir-was`);
  await fs.symlink(outside, `${root}/dir`);
  // A link inside the root to a folder inside it: confinement must not refuse that.
  await fs.symlink('kept', `${root}/kept-link`);
}

const backends: Record<string, (confined: boolean) => Promise<Fixture>> = {
  node: async (confined) => {
    const container = await realpath(await mkdtemp(join(tmpdir(), 'wsapi-confine-')));
    const fs = new NodeFileSystem();
    const root = `${container}/ws`;
    const outside = `${container}/outside`;
    await build(fs, root, outside);
    if (confined) fs.confine(root);
    const modeOfSecret = async () => ((await lstat(`${outside}/secret.txt`)).mode & 0o7777).toString(8);
    return { fs, root, outside, modeOfSecret, cleanup: () => rm(container, { recursive: true, force: true }) };
  },
  // An agent's view: the overlay follows links through the merged tree itself, so it is the one that checks.
  overlay: async (confined) => {
    const base = new MemoryFileSystem();
    await base.mkdir('/ws/.agents/a1', { recursive: true });
    const fs = new OverlayFileSystem({ lower: base, upper: base, root: '/ws', upperRoot: '/ws/.agents/a1', whiteouts: new WhiteoutSet(), hidden: ['/ws/.agents'] });
    await build(fs, '/ws', '/outside');
    if (confined) fs.confine('/ws');
    const modeOfSecret = () => fs.read('/outside/secret.txt').then(() => 'readable', (error: { code: string }) => error.code);
    return { fs, root: '/ws', outside: '/outside', modeOfSecret, cleanup: async () => {} };
  },
  memory: async (confined) => {
    const fs = new MemoryFileSystem();
    await build(fs, '/ws', '/outside');
    if (confined) fs.confine('/ws');
    // Memory enforces the owner bits: mode 0 shows as a refused read.
    const modeOfSecret = () => fs.read('/outside/secret.txt').then(() => 'readable', (error: { code: string }) => error.code);
    return { fs, root: '/ws', outside: '/outside', modeOfSecret, cleanup: async () => {} };
  },
};

/** Everything under `folder`: names, types and contents (through the adapter: `folder` is not confined). */
async function snapshot(fixture: Fixture, folder: string): Promise<Record<string, string>> {
  const { fs } = fixture;
  const out: Record<string, string> = { 'mode of outside/secret.txt': await fixture.modeOfSecret().catch(() => 'gone') };
  const walk = async (path: string): Promise<void> => {
    for (const entry of await fs.readdir(path)) {
      const child = `${path}/${entry.name}`;
      const stat = await fs.lstat(child);
      if (entry.type === 'dir') {
        out[child] = 'dir';
        await walk(child);
      } else {
        out[child] = `${entry.type} ${stat.type === 'file' ? await fs.read(child).then((bytes) => decoder.decode(bytes), (error: { code: string }) => error.code) : ''}`;
      }
    }
  };
  await walk(folder);
  return out;
}

const stream = (text: string) =>
  new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(new TextEncoder().encode(text));
      controller.close();
    },
  });

/** Each call the adapter is handed through the swapped `dir`, and what it would do outside unconfined. */
const calls: Array<[string, (fx: Fixture) => Promise<unknown>]> = [
  ['read', ({ fs, root }) => fs.read(`${root}/dir/secret.txt`).then((bytes) => decoder.decode(bytes))],
  ['readWithStat', ({ fs, root }) => fs.readWithStat(`${root}/dir/secret.txt`).then(({ bytes }) => decoder.decode(bytes))],
  ['readStream', ({ fs, root }) => fs.readStream(`${root}/dir/secret.txt`).then((body) => new Response(body).text())],
  ['readdir', ({ fs, root }) => fs.readdir(`${root}/dir`).then((entries) => entries.map((e) => e.name).sort().join())],
  ['readdir with a limit', ({ fs, root }) => fs.readdir(`${root}/dir`, { limit: 5 }).then((entries) => entries.map((e) => e.name).sort().join())],
  ['write a new file', ({ fs, root }) => fs.write(`${root}/dir/new.txt`, 'new')],
  ['write over a file', ({ fs, root }) => fs.write(`${root}/dir/secret.txt`, 'over')],
  ['write, making folders', ({ fs, root }) => fs.write(`${root}/dir/a/b/c.txt`, 'deep', { mkdirs: true })],
  ['writeStream', ({ fs, root }) => fs.writeStream(`${root}/dir/streamed.txt`, stream('streamed'))],
  ['writeAt', ({ fs, root }) => fs.writeAt(`${root}/dir/secret.txt`, 0, new TextEncoder().encode('AT'))],
  ['writeAt from a stream', ({ fs, root }) => fs.writeAt(`${root}/dir/secret.txt`, 0, stream('ST'))],
  ['mkdir', ({ fs, root }) => fs.mkdir(`${root}/dir/made`)],
  ['mkdir -p', ({ fs, root }) => fs.mkdir(`${root}/dir/made/deeper`, { recursive: true })],
  ['remove a file', ({ fs, root }) => fs.remove(`${root}/dir/secret.txt`)],
  ['remove a folder', ({ fs, root }) => fs.remove(`${root}/dir/sub`, { recursive: true })],
  ['rename in from outside', ({ fs, root }) => fs.rename(`${root}/dir/secret.txt`, `${root}/taken.txt`)],
  ['rename out', ({ fs, root }) => fs.rename(`${root}/inside.txt`, `${root}/dir/put.txt`)],
  ['rename over an outside file', ({ fs, root }) => fs.rename(`${root}/inside.txt`, `${root}/dir/secret.txt`, { overwrite: true })],
  ['copy a file in', ({ fs, root }) => fs.copy(`${root}/dir/secret.txt`, `${root}/copied.txt`)],
  ['copy a folder in', ({ fs, root }) => fs.copy(`${root}/dir/sub`, `${root}/copied-sub`)],
  ['copy a file out', ({ fs, root }) => fs.copy(`${root}/inside.txt`, `${root}/dir/copied.txt`)],
  ['copy a folder out', ({ fs, root }) => fs.copy(`${root}/kept`, `${root}/dir/kept-copy`)],
  ['copy over an outside folder', ({ fs, root }) => fs.copy(`${root}/kept`, `${root}/dir/sub`, { overwrite: true })],
  ['symlink', ({ fs, root }) => fs.symlink('anything', `${root}/dir/made-link`)],
  ['chmod', ({ fs, root }) => fs.chmod(`${root}/dir/secret.txt`, 0o000)],
];

describe.each(Object.keys(backends))('confinement: %s', (backend) => {
  let fixture: Fixture | undefined;
  afterEach(async () => {
    await fixture?.cleanup();
    fixture = undefined;
  });

  it.each(calls)('%s through a folder swapped for a link out is refused, and nothing outside changes', async (_name, call) => {
    // Unconfined, the call reaches outside: it answers with the outside file or its listing, changes the outside
    // folder, or brings outside bytes in.
    fixture = await backends[backend]!(false);
    const plainBefore = await snapshot(fixture, fixture.outside);
    const reached = await call(fixture);
    const broughtIn = Object.values(await snapshot(fixture, fixture.root)).some((entry) => entry.includes('OUTSIDE'));
    const answered = typeof reached === 'string' && /OUTSIDE|secret\.txt/.test(reached);
    const changed = !isDeepStrictEqual(await snapshot(fixture, fixture.outside), plainBefore);
    expect({ answered, changed, broughtIn }).not.toEqual({ answered: false, changed: false, broughtIn: false });
    await fixture.cleanup();

    fixture = await backends[backend]!(true);
    const before = await snapshot(fixture, fixture.outside);
    const insideBefore = await snapshot(fixture, `${fixture.root}/kept`);
    await expect(call(fixture)).rejects.toMatchObject({ code: 'permission-denied' });
    expect(await snapshot(fixture, fixture.outside)).toEqual(before);
    expect(await snapshot(fixture, `${fixture.root}/kept`)).toEqual(insideBefore);
    expect(decoder.decode(await fixture.fs.read(`${fixture.root}/inside.txt`))).toBe('inside\n');
  });

  it('links inside the root keep working: read, list, write and copy through one', async () => {
    fixture = await backends[backend]!(true);
    const { fs, root } = fixture;
    expect(decoder.decode(await fs.read(`${root}/kept-link/k.txt`))).toBe('kept\n');
    expect((await fs.readdir(`${root}/kept-link`)).map((e) => e.name)).toEqual(['k.txt']);
    await fs.write(`${root}/kept-link/w.txt`, 'through the link', { mkdirs: true });
    expect(decoder.decode(await fs.read(`${root}/kept/w.txt`))).toBe('through the link');
    await fs.copy(`${root}/kept-link/w.txt`, `${root}/kept-link/w2.txt`);
    expect(decoder.decode(await fs.read(`${root}/kept/w2.txt`))).toBe('through the link');
    // The outside folder itself is not confined: the daemon's own reads elsewhere are untouched.
    expect(decoder.decode(await fs.read(`${fixture.outside}/secret.txt`))).toBe(OUTSIDE);
  });

  it('removing a tree with a link to outside in it removes the link, never what it points at', async () => {
    fixture = await backends[backend]!(true);
    const { fs, root, outside } = fixture;
    await fs.write(`${root}/tree/a/b.txt`, 'b', { mkdirs: true });
    await fs.symlink(outside, `${root}/tree/a/out`);
    const before = await snapshot(fixture, outside);
    await fs.remove(`${root}/tree`, { recursive: true });
    await expect(fs.lstat(`${root}/tree`)).rejects.toMatchObject({ code: 'not-found' });
    expect(await snapshot(fixture, outside)).toEqual(before);
  });

  it('metadata calls still answer for the swapped path (the caller judges where it leads)', async () => {
    fixture = await backends[backend]!(true);
    const { fs, root, outside } = fixture;
    expect(await fs.realpath(`${root}/dir/secret.txt`)).toBe(`${outside}/secret.txt`);
    expect((await fs.lstat(`${root}/dir`)).type).toBe('symlink');
  });
});
