/**
 * The four mutations with `agent`: they change that agent's private copy only (docs/intentic.md#agents), never
 * the shared tree, and the agent's own view reflects them.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { BACKENDS, createFixture, failure, type Fixture, type Seed } from '../../support/backends.ts';

const seed: Seed = {
  'a.txt': 'A',
  'b.txt': 'B',
  'src/app.ts': 'app',
  // Not copied into a plain agent copy (ignored): the agent's view falls back to the shared tree for it.
  'node_modules/pkg/index.js': 'pkg',
};
const shared = {
  'a.txt': 'A',
  'b.txt': 'B',
  node_modules: '<dir>',
  'node_modules/pkg': '<dir>',
  'node_modules/pkg/index.js': 'pkg',
  src: '<dir>',
  'src/app.ts': 'app',
};
const sharedTree = async (b: Fixture) =>
  Object.fromEntries(Object.entries(await b.tree()).filter(([k]) => k !== '.agents' && !k.startsWith('.agents/')));

describe.each(BACKENDS)('tree mutations with agent (%s)', (backend) => {
  let b: Fixture;
  afterEach(() => b.cleanup());
  const setup = async () => {
    b = await createFixture(backend, seed);
    expect(await b.client.workspace.createAgent({ agent: 'bob' })).toEqual({ ok: true });
  };
  const read = (path: string) => b.client.workspace.file({ path, agent: 'bob' });

  it('writes into the agent copy only', async () => {
    await setup();
    const agent = 'bob';
    expect(await b.client.workspace.mkdir({ path: 'made/here', agent })).toEqual({ ok: true });
    expect(await b.client.workspace.copy({ from: 'a.txt', to: 'made/a-copy.txt', agent })).toEqual({ ok: true });
    expect(await b.client.workspace.move({ from: 'b.txt', to: 'made/b.txt', agent })).toEqual({ ok: true });
    expect(await b.client.workspace.copy({ from: 'src', to: 'made/src', agent })).toEqual({ ok: true });
    expect(await b.client.workspace.delete({ path: 'src', agent })).toEqual({ ok: true });
    // A shared-only entry (not in the plain copy) is deleted from the agent's view, not from the shared tree.
    expect(await b.client.workspace.delete({ path: 'node_modules/pkg', agent })).toEqual({ ok: true });

    expect(await sharedTree(b)).toEqual(shared);
    expect(await read('made/a-copy.txt')).toMatchObject({ present: true, content: 'A', shared: false });
    expect(await read('made/b.txt')).toMatchObject({ present: true, content: 'B', shared: false });
    expect(await read('made/src/app.ts')).toMatchObject({ present: true, content: 'app', shared: false });
    expect(await b.client.workspace.children({ path: 'made', agent })).toEqual({
      entries: [
        { name: 'here', path: 'made/here', type: 'dir' },
        { name: 'src', path: 'made/src', type: 'dir' },
        { name: 'a-copy.txt', path: 'made/a-copy.txt', type: 'file', size: 1 },
        { name: 'b.txt', path: 'made/b.txt', type: 'file', size: 1 },
      ],
      hidden: 0,
    });
    for (const gone of ['b.txt', 'src/app.ts', 'node_modules/pkg/index.js']) {
      expect(await read(gone), gone).toEqual({ present: false, path: gone });
    }
    // The shared tree's own view is untouched.
    expect(await b.client.workspace.file({ path: 'b.txt' })).toMatchObject({ present: true, content: 'B', shared: true });
  });

  it('applies the same refusals in the agent view, and never touches the shared tree', async () => {
    await setup();
    const agent = 'bob';
    expect(await failure(b.client.workspace.move({ from: 'a.txt', to: 'b.txt', agent }))).toMatchObject({
      code: 'CONFLICT',
      message: 'target already exists: b.txt',
    });
    expect(await failure(b.client.workspace.copy({ from: 'src', to: 'src/inner', agent }))).toMatchObject({
      code: 'BAD_REQUEST',
      message: 'cannot copy src into its own subfolder src/inner',
    });
    expect(await failure(b.client.workspace.delete({ path: '.', agent }))).toMatchObject({
      code: 'BAD_REQUEST',
      message: 'cannot delete the workspace root',
    });
    expect(await failure(b.client.workspace.delete({ path: '.agents/bob', agent }))).toMatchObject({
      code: 'BAD_REQUEST',
      message: 'not part of the workspace tree (the agents folder): .agents/bob',
    });
    expect(await failure(b.client.workspace.mkdir({ path: '../x', agent }))).toMatchObject({
      code: 'BAD_REQUEST',
      message: 'path is outside the workspace',
    });
    expect(await sharedTree(b)).toEqual(shared);
    expect(await b.outsideTree()).toEqual({ 'secret.txt': 'secret' });
  });
});

describe.each(BACKENDS)('an agents folder below a workspace folder (%s)', (backend) => {
  let b: Fixture;
  afterEach(() => b.cleanup());

  it('refuses to delete, move or copy a folder that contains it', async () => {
    b = await createFixture(backend, { 'tools/run.sh': 'echo', 'tools/agents/': '' }, { agentsDir: 'tools/agents' });
    const before = await b.tree();
    const contains = {
      code: 'BAD_REQUEST',
      status: 400,
      message: 'contains the agents folder, which is not part of the workspace tree: tools',
      data: undefined,
    };
    expect(await failure(b.client.workspace.delete({ path: 'tools' }))).toEqual(contains);
    expect(await failure(b.client.workspace.move({ from: 'tools', to: 'tools-2' }))).toEqual(contains);
    expect(await failure(b.client.workspace.copy({ from: 'tools', to: 'tools-2' }))).toEqual(contains);
    // Beside it, everything works as usual.
    expect(await b.client.workspace.copy({ from: 'tools/run.sh', to: 'tools/run-2.sh' })).toEqual({ ok: true });
    expect(await b.tree()).toEqual({ ...before, 'tools/run-2.sh': 'echo' });
  });
});
