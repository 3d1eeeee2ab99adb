import fsPromises, { mkdir, writeFile } from 'node:fs/promises';
import { syncBuiltinESMExports } from 'node:module';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { BACKENDS, createFixture, failure, makeFifo, type Fixture, type Seed } from '../../support/backends.ts';
import { emptyFieldFailure } from '../../support/intentic-contract.ts';

const seed: Seed = {
  'a.txt': 'A',
  'b.txt': 'B',
  'src/app.ts': 'app',
  'src/lib/util.ts': 'util',
  'src/lib/empty/': '',
  'src/self': { link: '.' },
  'src/up': { link: '../a.txt' },
  'docs/': '',
  'to-src': { link: 'src' },
  escape: { link: '$OUTSIDE' },
};
const seeded: Record<string, unknown> = {
  'a.txt': 'A',
  'b.txt': 'B',
  docs: '<dir>',
  escape: expect.stringMatching(/^-> .*-outside$/),
  src: '<dir>',
  'src/app.ts': 'app',
  'src/lib': '<dir>',
  'src/lib/empty': '<dir>',
  'src/lib/util.ts': 'util',
  'src/self': '-> .',
  'src/up': '-> ../a.txt',
  'to-src': '-> src',
};
/** `seeded`'s entries under `from/`, as they would appear under `to/`. */
const copiedAs = (from: string, to: string) =>
  Object.fromEntries(
    Object.entries(seeded)
      .filter(([k]) => k === from || k.startsWith(from + '/'))
      .map(([k, v]) => [to + k.slice(from.length), v]),
  );

describe.each(BACKENDS)('POST /workspace/copy (%s)', (backend) => {
  let b: Fixture;
  afterEach(() => b.cleanup());
  const setup = async (options = {}) => (b = await createFixture(backend, seed, options));
  const error = (code: string, status: number, message: string) => ({ code, status, message, data: undefined });
  const bad = (message: string) => error('BAD_REQUEST', 400, message);

  it('copies a file; the source stays', async () => {
    await setup();
    expect(await b.client.workspace.copy({ from: 'a.txt', to: 'docs/a-copy.txt' })).toEqual({ ok: true });
    expect(await b.tree()).toEqual({ ...seeded, 'docs/a-copy.txt': 'A' });
  });

  it('copies a folder recursively: files, empty folders, links as links (a cycle is not followed)', async () => {
    await setup();
    expect(await b.client.workspace.copy({ from: 'src', to: 'src-copy' })).toEqual({ ok: true });
    // Exactly these entries: no staging folder is left beside the target.
    expect(await b.tree()).toEqual({ ...seeded, ...copiedAs('src', 'src-copy') });
  });

  it('copies a link itself, and makes the missing folders above the target', async () => {
    await setup();
    expect(await b.client.workspace.copy({ from: 'escape', to: 'new/deep/escape' })).toEqual({ ok: true });
    expect(await b.tree()).toEqual({
      ...seeded,
      new: '<dir>',
      'new/deep': '<dir>',
      'new/deep/escape': expect.stringMatching(/^-> .*-outside$/),
    });
    expect(await b.outsideTree()).toEqual({ 'secret.txt': 'secret' });
  });

  it('refuses onto itself, into its own subfolder, an existing target, a missing source, the root', async () => {
    await setup();
    const cases: Array<[string, string, { code: string; status: number; message: string; data: unknown }]> = [
      ['a.txt', 'a.txt', bad('cannot copy a.txt onto itself')],
      ['src', 'to-src/../src/', bad('cannot copy src onto itself')],
      ['src', 'src/lib/src', bad('cannot copy src into its own subfolder src/lib/src')],
      ['src', 'to-src/again/src', bad('cannot copy src into its own subfolder src/again/src')],
      ['a.txt', 'b.txt', error('CONFLICT', 409, 'target already exists: b.txt')],
      ['src', 'docs', error('CONFLICT', 409, 'target already exists: docs')],
      ['b.txt', 'a.txt/b.txt', error('CONFLICT', 409, 'not a folder: a.txt')],
      ['nope', 'x', error('NOT_FOUND', 404, 'source does not exist: nope')],
      ['', 'x', emptyFieldFailure('body', 'from')],
      ['a.txt', '', emptyFieldFailure('body', 'to')],
      [b.root, 'x', bad('cannot copy the workspace root')],
      ['a.txt', '.', bad('cannot copy onto the workspace root')],
    ];
    for (const [from, to, expected] of cases) {
      expect(await failure(b.client.workspace.copy({ from, to })), `${from} -> ${to}`).toEqual(expected);
    }
    expect(await b.tree()).toEqual(seeded);
  });

  it('refuses escaping sources and targets, touching nothing inside or outside', async () => {
    await setup();
    const outsideName = b.outside.split('/').pop()!;
    const cases: Array<[string, string]> = [
      [`../${outsideName}`, 'stolen'],
      [`${b.outside}/secret.txt`, 'stolen.txt'],
      ['escape/secret.txt', 'stolen.txt'],
      ['src', '../src-copy'],
      ['src', `${b.outside}/src-copy`],
      ['a.txt', 'escape/a.txt'],
    ];
    for (const [from, to] of cases) {
      expect(await failure(b.client.workspace.copy({ from, to })), `${from} -> ${to}`).toEqual(
        bad('path is outside the workspace'),
      );
    }
    expect(await b.tree()).toEqual(seeded);
    expect(await b.outsideTree()).toEqual({ 'secret.txt': 'secret' });
  });

  it('refuses the agents folder as source or target', async () => {
    await setup();
    expect(await failure(b.client.workspace.copy({ from: 'src', to: '.agents/bob' }))).toEqual(
      bad('not part of the workspace tree (the agents folder): .agents/bob'),
    );
    expect(await failure(b.client.workspace.copy({ from: '.agents', to: 'agents' }))).toEqual(
      bad('not part of the workspace tree (the agents folder): .agents'),
    );
    expect(await b.tree()).toEqual(seeded);
  });

  it('copies a tree at the entry cap, and refuses one entry more with PAYLOAD_TOO_LARGE, writing nothing', async () => {
    // src holds 7 entries, itself included: src, app.ts, lib, lib/util.ts, lib/empty, self, up.
    await setup({ limits: { maxCopyEntries: 7 } });
    expect(await b.client.workspace.copy({ from: 'src', to: 'fits' })).toEqual({ ok: true });
    await b.cleanup();
    await setup({ limits: { maxCopyEntries: 6 } });
    expect(await failure(b.client.workspace.copy({ from: 'src', to: 'new/too-many' }))).toEqual(
      error('PAYLOAD_TOO_LARGE', 413, 'copy refused: src has more than 6 entries (the copy limit); nothing was copied'),
    );
    expect(await b.tree()).toEqual(seeded);
  });

  it('copies a tree at the byte cap, and refuses one byte more with PAYLOAD_TOO_LARGE, writing nothing', async () => {
    // src's files: app.ts (3 bytes) + lib/util.ts (4 bytes); links count no bytes.
    await setup({ limits: { maxCopyBytes: 7 } });
    expect(await b.client.workspace.copy({ from: 'src', to: 'fits' })).toEqual({ ok: true });
    await b.cleanup();
    await setup({ limits: { maxCopyBytes: 6 } });
    expect(await failure(b.client.workspace.copy({ from: 'src', to: 'too-big' }))).toEqual(
      error('PAYLOAD_TOO_LARGE', 413, 'copy refused: src holds more than 6 bytes (the copy limit); nothing was copied'),
    );
    expect(await b.tree()).toEqual(seeded);
    await b.cleanup();
    await setup({ limits: { maxCopyBytes: 3 } });
    expect(await failure(b.client.workspace.copy({ from: 'src/lib/util.ts', to: 'too-big.ts' }))).toEqual(
      error('PAYLOAD_TOO_LARGE', 413, 'copy refused: src/lib/util.ts holds more than 3 bytes (the copy limit); nothing was copied'),
    );
    expect(await b.tree()).toEqual(seeded);
  });

  it('answers BAD_REQUEST with zod issues for a malformed body, and NOT_FOUND for an unknown agent', async () => {
    await setup();
    const call = b.client.workspace.copy({ from: 1, to: 2 } as unknown as { from: string; to: string });
    expect(await failure(call)).toEqual({
      code: 'BAD_REQUEST',
      status: 400,
      message: 'invalid body: from: from must be a string; to: to must be a string',
      data: {
        issues: [
          { path: ['from'], message: 'from must be a string', code: 'invalid_type' },
          { path: ['to'], message: 'to must be a string', code: 'invalid_type' },
        ],
      },
    });
    expect(await failure(b.client.workspace.copy({ from: 'a.txt', to: 'z.txt', agent: 'erin' }))).toEqual(
      error('NOT_FOUND', 404, 'unknown agent: erin'),
    );
    expect(await b.tree()).toEqual(seeded);
  });
});

describe('POST /workspace/copy on the real disk', () => {
  let b: Fixture;
  afterEach(() => b.cleanup());

  it('refuses a tree holding a FIFO before copying anything', async () => {
    b = await createFixture('node', seed);
    makeFifo(join(b.root, 'src/lib/pipe'));
    const before = await b.tree();
    expect(await failure(b.client.workspace.copy({ from: 'src', to: 'new/src-copy' }))).toEqual({
      code: 'BAD_REQUEST',
      status: 400,
      message: 'cannot copy a special file (not a file, folder or link): src/lib/pipe',
      data: undefined,
    });
    expect(await b.tree()).toEqual(before);
  });

  it('removes everything it wrote when the copy fails midway (a path too long at the new depth)', async () => {
    b = await createFixture('node', seed);
    // A source whose deepest path is 4080 bytes: legal where it is, but the copy is built under a staging
    // name 27 bytes longer than "deep", so the deepest copy passes Linux's PATH_MAX (4096) — after the
    // shallower entries were copied.
    let folder = join(b.root, 'deep');
    await writeFile(join(b.root, 'deep.txt'), 'x');
    await mkdir(folder);
    await writeFile(join(folder, 'first.txt'), 'first');
    while (folder.length + 1 + 200 < 4080 - 20) {
      folder = join(folder, 'd'.repeat(200));
      await mkdir(folder);
      await writeFile(join(folder, 'f.txt'), 'f');
    }
    const last = join(folder, 'x'.repeat(4080 - folder.length - 1));
    await writeFile(last, 'deepest');
    expect(last.length).toBe(4080);
    const before = await b.tree();
    expect(await failure(b.client.workspace.copy({ from: 'deep', to: 'made/for/copy' }))).toEqual({
      code: 'BAD_REQUEST',
      status: 400,
      message: 'file name too long',
      data: undefined,
    });
    // No staging folder, no target, no folders made for the target.
    expect(await b.tree()).toEqual(before);
  });

  it('removes a wide copy that fails midway only once nothing is still being copied into it', async () => {
    b = await createFixture('node', seed);
    for (let d = 0; d < 8; d++) {
      await mkdir(join(b.root, `wide/d${d}`), { recursive: true });
      for (let f = 0; f < 8; f++) await writeFile(join(b.root, `wide/d${d}/f${f}.txt`), `${d}.${f}`);
    }
    const before = await b.tree();
    // The disk fills up at the 30th file while others are in flight (adapters/fs/node-copy-tree.ts) and finish
    // later. The staged copy's removal must not start before they have: a file landing in a folder that
    // `rm -r` already listed makes the removal fail, and the half copy stays.
    const [realCopyFile, realRm, realUnlink, realRmdir] = [fsPromises.copyFile, fsPromises.rm, fsPromises.unlink, fsPromises.rmdir];
    const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
    let started = 0;
    let inFlight = 0;
    let inFlightAtFailure = 0;
    let failed = false;
    let startedAfterFailure = 0;
    let removing = false;
    let removalStarts!: () => void;
    const removalStarted = new Promise<void>((resolve) => (removalStarts = resolve));
    let copiedDuringRemoval = 0;
    fsPromises.copyFile = async (from, to, mode) => {
      const index = ++started;
      if (failed) startedAfterFailure++;
      inFlight++;
      try {
        await sleep(index === 30 ? 1 : 10);
        // In flight at the failure: lands once the removal has begun, if the copy lets it begin this early.
        if (failed) await Promise.race([removalStarted, sleep(300)]);
        if (index === 30) {
          inFlightAtFailure = inFlight - 1;
          failed = true;
          throw Object.assign(new Error('ENOSPC: no space left on device'), { code: 'ENOSPC' });
        }
        if (removing) copiedDuringRemoval++;
        return await realCopyFile(from, to, mode);
      } finally {
        inFlight--;
      }
    };
    // The removal: `rm -r`, or (the adapter confined to the root) its own walk, which unlinks and rmdirs.
    const removal = () => {
      removing = true;
      removalStarts();
    };
    fsPromises.rm = async (path, options) => {
      removal();
      return realRm(path, options);
    };
    fsPromises.unlink = async (path) => {
      removal();
      return realUnlink(path);
    };
    fsPromises.rmdir = async (path, options) => {
      removal();
      return realRmdir(path, options);
    };
    syncBuiltinESMExports();
    try {
      expect(await failure(b.client.workspace.copy({ from: 'wide', to: 'made/wide-copy' }))).toEqual({
        code: 'INTERNAL_SERVER_ERROR',
        status: 500,
        message: 'i/o error',
        data: undefined,
      });
    } finally {
      [fsPromises.copyFile, fsPromises.rm, fsPromises.unlink, fsPromises.rmdir] = [realCopyFile, realRm, realUnlink, realRmdir];
      syncBuiltinESMExports();
    }
    expect(removing).toBe(true);
    expect(copiedDuringRemoval).toBe(0);
    expect(inFlightAtFailure).toBeGreaterThan(0); // others were being copied when it failed
    expect(startedAfterFailure).toBe(0); // and no new file was started after it
    // No staging folder, no target, no folders made for the target.
    expect(await b.tree()).toEqual(before);
  });
});
