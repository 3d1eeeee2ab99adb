import { afterEach, describe, expect, it } from 'vitest';
import { intenticClient, orpcError, type TreeEntry } from '../../support/intentic-contract.ts';
import { appOver, BACKENDS, buildTree, type BuiltTree, type Seed } from '../../support/backends.ts';
import { request } from '../../support/workspace.ts';

const SPEC: Seed = {
  '.gitignore': 'build/\n*.log\n',
  'pkg/.gitignore': '!debug.log\n',
  'pkg/debug.log': 'dbg',
  'pkg/trace.log': 't',
  'pkg/index.ts': 'export {}\n',
  'build/out.js': 'x',
  'node_modules/left-pad/index.js': 'module.exports = 1\n',
  'README.md': '# hi\n',
  'docs': { link: 'pkg' },
  'gone': { link: 'missing.txt' },
  'escape': { link: '../..' },
  '.agents/a1/README.md': 'the agent copy',
};

const TREE: TreeEntry[] = [
  { name: 'build', path: 'build', type: 'dir', ignored: true },
  { name: 'docs', path: 'docs', type: 'dir', link: { to: 'pkg' }, children: [
    { name: '.gitignore', path: 'docs/.gitignore', type: 'file', size: 11 },
    { name: 'debug.log', path: 'docs/debug.log', type: 'file', size: 3 },
    { name: 'index.ts', path: 'docs/index.ts', type: 'file', size: 10 },
    { name: 'trace.log', path: 'docs/trace.log', type: 'file', size: 1, ignored: true },
  ] },
  { name: 'escape', path: 'escape', type: 'dir', link: { to: '../..', state: 'outside' } },
  { name: 'node_modules', path: 'node_modules', type: 'dir', ignored: true },
  { name: 'pkg', path: 'pkg', type: 'dir', children: [
    { name: '.gitignore', path: 'pkg/.gitignore', type: 'file', size: 11 },
    { name: 'debug.log', path: 'pkg/debug.log', type: 'file', size: 3 },
    { name: 'index.ts', path: 'pkg/index.ts', type: 'file', size: 10 },
    { name: 'trace.log', path: 'pkg/trace.log', type: 'file', size: 1, ignored: true },
  ] },
  { name: '.gitignore', path: '.gitignore', type: 'file', size: 13 },
  { name: 'README.md', path: 'README.md', type: 'file', size: 5 },
  { name: 'gone', path: 'gone', type: 'file', link: { to: 'missing.txt', state: 'broken' } },
];

for (const backend of BACKENDS) {
  describe(`GET /workspace/tree (${backend})`, () => {
    let built: BuiltTree;
    afterEach(() => built.cleanup());

    it('answers {root, tree, hidden} through Intentic’s client, the agents folder never listed', async () => {
      built = await buildTree(backend, SPEC);
      const result = await intenticClient(appOver(built)).workspace.tree({});
      expect(result).toEqual({ root: built.root, tree: TREE, hidden: 0 });
    });

    it('honours limits.maxTreeEntries: the root cut with hidden, folders that do not fit left closed', async () => {
      built = await buildTree(backend, SPEC);
      const client = intenticClient(appOver(built, { limits: { maxTreeEntries: 9 } }));
      // 8 root entries, 1 left: no folder's entries fit (docs and pkg hold 4 each).
      const closed = await client.workspace.tree({});
      expect(closed.hidden).toBe(0);
      expect(closed.tree.map((e) => e.name)).toEqual(TREE.map((e) => e.name));
      expect(closed.tree.some((e) => e.children !== undefined)).toBe(false);

      const cut = await intenticClient(appOver(built, { limits: { maxTreeEntries: 3 } })).workspace.tree({});
      expect(cut).toEqual({
        root: built.root,
        tree: TREE.slice(0, 3).map(({ children: _children, ...entry }) => entry),
        hidden: 5,
      });
    });

    it('walks an agent’s private copy with agent=, leaving the shared tree as it was', async () => {
      built = await buildTree(backend, { 'a.txt': 'a', 'src/x.ts': 'x' });
      const client = intenticClient(appOver(built));
      await client.workspace.createAgent({ agent: 'a1' });
      await client.workspace.mkdir({ agent: 'a1', path: 'only-agent/inner' });
      const shared: TreeEntry[] = [
        { name: 'src', path: 'src', type: 'dir', children: [{ name: 'x.ts', path: 'src/x.ts', type: 'file', size: 1 }] },
        { name: 'a.txt', path: 'a.txt', type: 'file', size: 1 },
      ];
      expect(await client.workspace.tree({ agent: 'a1' })).toEqual({
        root: built.root,
        tree: [
          { name: 'only-agent', path: 'only-agent', type: 'dir', children: [{ name: 'inner', path: 'only-agent/inner', type: 'dir', children: [] }] },
          ...shared,
        ],
        hidden: 0,
      });
      expect(await client.workspace.tree({})).toEqual({ root: built.root, tree: shared, hidden: 0 });
    });

    it('answers an unknown agent NOT_FOUND and a malformed one BAD_REQUEST', async () => {
      built = await buildTree(backend, SPEC);
      const client = intenticClient(appOver(built));
      const unknown = await orpcError(client.workspace.tree({ agent: 'nobody' }));
      expect([unknown.status, unknown.code]).toEqual([404, 'NOT_FOUND']);
      const malformed = await orpcError(client.workspace.tree({ agent: '../x' }));
      expect([malformed.status, malformed.code]).toEqual([400, 'BAD_REQUEST']);
    });
  });
}

describe('GET /workspace/tree: bad input and errors on the wire', () => {
  let built: BuiltTree;
  afterEach(() => built.cleanup());

  it('refuses a repeated agent parameter with an oRPC error body', async () => {
    built = await buildTree('memory', { 'a.txt': '' });
    const res = await appOver(built).fetch(request('/workspace/tree?agent=a&agent=b'));
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({
      defined: false,
      code: 'BAD_REQUEST',
      status: 400,
      message: "invalid query: 'agent' is given more than once",
    });
  });

  it('answers a missing workspace root NOT_FOUND', async () => {
    built = await buildTree('memory', {});
    const error = await orpcError(intenticClient(appOver({ ...built, root: '/nowhere' })).workspace.tree({}));
    expect([error.status, error.code, error.message]).toEqual([404, 'NOT_FOUND', 'no such file or directory']);
  });

  it('requires the token', async () => {
    built = await buildTree('memory', {});
    const error = await orpcError(intenticClient(appOver(built), { token: null }).workspace.tree({}));
    expect([error.status, error.code]).toEqual([401, 'UNAUTHORIZED']);
  });
});
