import { afterEach, describe, expect, it } from 'vitest';
import { emptyFieldFailure, intenticClient, orpcError } from '../../support/intentic-contract.ts';
import { failure } from '../../support/backends.ts';
import { appOver, BACKENDS, buildTree, type BuiltTree, type Seed } from '../../support/backends.ts';
import { q, request } from '../../support/workspace.ts';

const SPEC: Seed = {
  '.gitignore': '*.log\n',
  'src/.gitignore': '!keep.log\n',
  'src/app.ts': 'app',
  'src/keep.log': 'kk',
  'src/drop.log': 'd',
  'src/util/x.ts': 'x',
  'node_modules/left-pad/index.js': 'i',
  'node_modules/left-pad/package.json': '{}',
  'node_modules/.bin/': '',
  'a.txt': 'aaaa',
  'lib': { link: 'src' },
  'out': { link: '../..' },
  '.agents/a1/src/app.ts': 'agent',
};

for (const backend of BACKENDS) {
  describe(`GET /workspace/children (${backend})`, () => {
    let built: BuiltTree;
    afterEach(() => built.cleanup());
    const children = (path: string, overrides = {}) => intenticClient(appOver(built, overrides)).workspace.children({ path });
    const fresh = async () => {
      built = await buildTree(backend, SPEC);
    };

    it('lists a folder’s direct entries in the tree’s shape, without children, nested rules applied', async () => {
      await fresh();
      expect(await children('src')).toEqual({
        entries: [
          { name: 'util', path: 'src/util', type: 'dir' },
          { name: '.gitignore', path: 'src/.gitignore', type: 'file', size: 10 },
          { name: 'app.ts', path: 'src/app.ts', type: 'file', size: 3 },
          { name: 'drop.log', path: 'src/drop.log', type: 'file', size: 1, ignored: true },
          { name: 'keep.log', path: 'src/keep.log', type: 'file', size: 2 },
        ],
        hidden: 0,
      });
    });

    it('lists the root for "." and the root’s absolute path, the agents folder left out; "" is no path (BAD_REQUEST)', async () => {
      await fresh();
      const root = {
        entries: [
          { name: 'lib', path: 'lib', type: 'dir', link: { to: 'src' } },
          { name: 'node_modules', path: 'node_modules', type: 'dir', ignored: true },
          { name: 'out', path: 'out', type: 'dir', link: { to: '../..', state: 'outside' } },
          { name: 'src', path: 'src', type: 'dir' },
          { name: '.gitignore', path: '.gitignore', type: 'file', size: 6 },
          { name: 'a.txt', path: 'a.txt', type: 'file', size: 4 },
        ],
        hidden: 0,
      };
      expect(await failure(children(''))).toEqual(emptyFieldFailure('query', 'path'));
      expect(await children('.')).toEqual(root);
      expect(await children(built.root)).toEqual(root);
    });

    it('opens an ignored folder: every entry in it is ignored', async () => {
      await fresh();
      expect(await children('node_modules')).toEqual({
        entries: [
          { name: '.bin', path: 'node_modules/.bin', type: 'dir', ignored: true },
          { name: 'left-pad', path: 'node_modules/left-pad', type: 'dir', ignored: true },
        ],
        hidden: 0,
      });
      expect((await children('node_modules/left-pad')).entries.every((e) => e.ignored === true)).toBe(true);
    });

    it('presents a folder opened through a link under the link’s path', async () => {
      await fresh();
      const { entries } = await children('lib/');
      expect(entries.map((e) => e.path)).toEqual(['lib/util', 'lib/.gitignore', 'lib/app.ts', 'lib/drop.log', 'lib/keep.log']);
    });

    it('caps the listing at the tree budget and counts the rest in hidden', async () => {
      await fresh();
      expect(await children('src', { limits: { maxTreeEntries: 2 } })).toEqual({
        entries: [
          { name: 'util', path: 'src/util', type: 'dir' },
          { name: '.gitignore', path: 'src/.gitignore', type: 'file', size: 10 },
        ],
        hidden: 3,
      });
    });

    it('answers {entries: [], hidden: 0} for a path outside the workspace, lexically or through a link', async () => {
      await fresh();
      const nothing = { entries: [], hidden: 0 };
      expect(await children('..')).toEqual(nothing);
      expect(await children('src/../../x')).toEqual(nothing);
      expect(await children('/')).toEqual(nothing);
      expect(await children('out')).toEqual(nothing);
      expect(await children('out/etc')).toEqual(nothing);
    });

    it('treats the agents folder as not part of the workspace: nothing in it is listed', async () => {
      await fresh();
      const nothing = { entries: [], hidden: 0 };
      expect(await children('.agents')).toEqual(nothing);
      expect(await children('.agents/a1/src')).toEqual(nothing);
    });

    it('lists a folder of an agent’s private copy with agent=', async () => {
      await fresh();
      const client = intenticClient(appOver(built));
      await client.workspace.createAgent({ agent: 'a9' });
      await client.workspace.mkdir({ agent: 'a9', path: 'src/agent-only' });
      expect((await client.workspace.children({ agent: 'a9', path: 'src' })).entries.map((e) => e.path)).toEqual([
        'src/agent-only',
        'src/util',
        'src/.gitignore',
        'src/app.ts',
        'src/drop.log',
        'src/keep.log',
      ]);
      expect((await client.workspace.children({ path: 'src' })).entries.map((e) => e.path)).not.toContain('src/agent-only');
      const unknown = await orpcError(client.workspace.children({ agent: 'nobody', path: 'src' }));
      expect([unknown.status, unknown.code]).toEqual([404, 'NOT_FOUND']);
    });

    it('answers NOT_FOUND for a missing folder and BAD_REQUEST for a file', async () => {
      await fresh();
      const client = intenticClient(appOver(built));
      const missing = await orpcError(client.workspace.children({ path: 'nope' }));
      expect([missing.status, missing.code, missing.message]).toEqual([404, 'NOT_FOUND', 'no such file or directory']);
      const file = await orpcError(client.workspace.children({ path: 'a.txt' }));
      expect([file.status, file.code, file.message]).toEqual([400, 'BAD_REQUEST', 'not a directory']);
    });
  });
}

describe('GET /workspace/children: bad input on the wire', () => {
  let built: BuiltTree;
  afterEach(() => built.cleanup());

  it('refuses a missing path, a NUL byte and a repeated parameter with oRPC error bodies', async () => {
    built = await buildTree('memory', { 'a/b': '' });
    const app = appOver(built);
    const missing = await app.fetch(request('/workspace/children'));
    expect(missing.status).toBe(400);
    expect(await missing.json()).toEqual({
      defined: false,
      code: 'BAD_REQUEST',
      status: 400,
      message: 'invalid query: path: missing path',
      data: { issues: [{ path: ['path'], message: 'missing path', code: 'invalid_type' }] },
    });
    const nul = await app.fetch(request('/workspace/children' + q({ path: 'a\0' })));
    expect(await nul.json()).toEqual({ defined: false, code: 'BAD_REQUEST', status: 400, message: 'path contains a NUL byte' });
    const twice = await app.fetch(request('/workspace/children?path=a&path=b'));
    expect(twice.status).toBe(400);
    expect((await twice.json()).message).toBe("invalid query: 'path' is given more than once");
  });
});
