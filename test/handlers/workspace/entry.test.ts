import { afterEach, describe, expect, it } from 'vitest';
import { BACKENDS, createFixture, failure, type Fixture, type Seed } from '../../support/backends.ts';
import { emptyFieldFailure } from '../../support/intentic-contract.ts';

const seed: Seed = {
  'a.txt': 'A',
  'src/app.ts': 'app',
  'src/lib/util.ts': 'util',
  'src/empty/': '',
  'to-src': { link: 'src' },
  'to-a': { link: 'a.txt' },
  escape: { link: '$OUTSIDE' },
  'escape-file': { link: '$OUTSIDE/secret.txt' },
  '.agents/bob/a.txt': 'bob',
};
const seeded = {
  '.agents': '<dir>',
  '.agents/bob': '<dir>',
  '.agents/bob/a.txt': 'bob',
  'a.txt': 'A',
  escape: expect.stringMatching(/^-> .*-outside$/),
  'escape-file': expect.stringMatching(/^-> .*-outside\/secret\.txt$/),
  src: '<dir>',
  'src/app.ts': 'app',
  'src/empty': '<dir>',
  'src/lib': '<dir>',
  'src/lib/util.ts': 'util',
  'to-a': '-> a.txt',
  'to-src': '-> src',
};
const without = (...keys: string[]) => Object.fromEntries(Object.entries(seeded).filter(([k]) => !keys.includes(k)));

describe.each(BACKENDS)('DELETE /workspace/entry (%s)', (backend) => {
  let b: Fixture;
  afterEach(() => b.cleanup());
  const setup = async () => (b = await createFixture(backend, seed));
  const bad = (message: string) => ({ code: 'BAD_REQUEST', status: 400, message, data: undefined });

  it('removes a file', async () => {
    await setup();
    expect(await b.client.workspace.delete({ path: 'src/app.ts' })).toEqual({ ok: true });
    expect(await b.tree()).toEqual(without('src/app.ts'));
  });

  it('removes a folder and everything under it (path in the body, absolute or relative)', async () => {
    await setup();
    expect(await b.client.workspace.delete({ path: 'src/lib' })).toEqual({ ok: true });
    expect(await b.client.workspace.delete({ path: `${b.root}/src/empty/` })).toEqual({ ok: true });
    expect(await b.tree()).toEqual(without('src/lib', 'src/lib/util.ts', 'src/empty'));
  });

  it('removes a symlink itself, never its target — inside or outside the workspace', async () => {
    await setup();
    for (const path of ['to-src', 'to-a', 'escape', 'escape-file']) {
      expect(await b.client.workspace.delete({ path }), path).toEqual({ ok: true });
    }
    expect(await b.tree()).toEqual(without('to-src', 'to-a', 'escape', 'escape-file'));
    expect(await b.outsideTree()).toEqual({ 'secret.txt': 'secret' });
  });

  it('deletes below a link to a folder inside the workspace (the link on the way is followed)', async () => {
    await setup();
    expect(await b.client.workspace.delete({ path: 'to-src/lib/util.ts' })).toEqual({ ok: true });
    expect(await b.tree()).toEqual(without('src/lib/util.ts'));
  });

  it('is NOT_FOUND for a missing entry, also below a file', async () => {
    await setup();
    for (const [path, shown] of [['nope.txt', 'nope.txt'], ['src/nope/x', 'src/nope/x'], ['a.txt/x', 'a.txt/x']]) {
      expect(await failure(b.client.workspace.delete({ path: path! })), path).toEqual({
        code: 'NOT_FOUND',
        status: 404,
        message: `no such file or folder: ${shown}`,
        data: undefined,
      });
    }
    expect(await b.tree()).toEqual(seeded);
  });

  it('refuses the workspace root in every spelling, and touches nothing', async () => {
    await setup();
    expect(await failure(b.client.workspace.delete({ path: '' }))).toEqual(emptyFieldFailure('body', 'path'));
    for (const path of ['.', './', 'src/..', 'a/..', 'src/lib/../..', b.root, `${b.root}/`, `${b.root}/src/..`]) {
      expect(await failure(b.client.workspace.delete({ path })), JSON.stringify(path)).toEqual(
        bad('cannot delete the workspace root'),
      );
    }
    // "/" is the host's root: outside the workspace.
    expect(await failure(b.client.workspace.delete({ path: '/' }))).toEqual(bad('path is outside the workspace'));
    expect(await b.tree()).toEqual(seeded);
  });

  it('refuses the agents folder and anything in it', async () => {
    await setup();
    for (const path of ['.agents', '.agents/bob', '.agents/bob/a.txt', 'src/../.agents/bob']) {
      expect(await failure(b.client.workspace.delete({ path })), path).toEqual(
        bad(`not part of the workspace tree (the agents folder): ${path}`),
      );
    }
    expect(await b.tree()).toEqual(seeded);
  });

  it('refuses paths that escape the workspace and leaves the outside intact', async () => {
    await setup();
    const outsideName = b.outside.split('/').pop()!;
    for (const path of [`../${outsideName}/secret.txt`, `../${outsideName}`, `${b.outside}/secret.txt`, 'escape/secret.txt', '..']) {
      expect(await failure(b.client.workspace.delete({ path })), path).toEqual(bad('path is outside the workspace'));
    }
    expect(await b.outsideTree()).toEqual({ 'secret.txt': 'secret' });
    expect(await b.tree()).toEqual(seeded);
  });

  it('reads a trailing slash as "a folder": a file or a link there is refused, not removed', async () => {
    await setup();
    for (const path of ['a.txt/', 'to-src/', 'escape/']) {
      expect(await failure(b.client.workspace.delete({ path })), path).toEqual(bad(`not a folder: ${path}`));
    }
    expect(await b.tree()).toEqual(seeded);
  });

  it('refuses a NUL byte and bodies that do not fit the schema', async () => {
    await setup();
    expect(await failure(b.client.workspace.delete({ path: 'a.txt\0' }))).toEqual(bad('path contains a NUL byte'));
    expect(await failure(b.client.workspace.delete({ path: ['a.txt'] } as unknown as { path: string }))).toEqual({
      code: 'BAD_REQUEST',
      status: 400,
      message: 'invalid body: path: path must be a string',
      data: { issues: [{ path: ['path'], message: 'path must be a string', code: 'invalid_type' }] },
    });
    expect(await b.tree()).toEqual(seeded);
  });

  it('is NOT_FOUND for an unknown agent, and deletes nothing from the shared tree', async () => {
    await setup();
    expect(await failure(b.client.workspace.delete({ path: 'a.txt', agent: 'carol' }))).toEqual({
      code: 'NOT_FOUND',
      status: 404,
      message: 'unknown agent: carol',
      data: undefined,
    });
    expect(await b.tree()).toEqual(seeded);
  });
});
