import { afterEach, describe, expect, it } from 'vitest';
import { intenticClient } from '../../support/intentic-contract.ts';
import { appOver, BACKENDS, buildTree, type BuiltTree, type Seed } from '../../support/backends.ts';
import { q, request } from '../../support/workspace.ts';

const SPEC: Seed = {
  'README.md': '',
  'packages/web/src/app.ts': '',
  'packages/api/src/server/main.ts': '',
  'apps/x/src/server/main.ts': '',
  'z/src/server/main.ts': '', // the shallowest of three main.ts for src/server/main.ts
  'lib/util.ts': '',
  'deep/a/b/c/d/e/f/g/target.ts': '',
  'mixed/Src/util.ts': '',
  'xsrc/only.ts': '',
  'same/aa/k/n.ts': '',
  'same/b/k/n.ts': '',
  'same/c/k/n.ts': '',
  'node_modules/pkg/src/index.js': '',
  'vendor-ignored/v/lib.ts': '',
  '.gitignore': 'vendor-ignored/\n*.secret\n',
  'conf/db.secret': '',
  'folder/inner/file.txt': '',
  'etc/passwd': 'not the real one',
  'linked': { link: 'packages/web' },
  'away': { link: '../..' },
  '.agents/a1/only-agent/thing.ts': '',
};

for (const backend of BACKENDS) {
  describe(`GET /workspace/resolve (${backend})`, () => {
    let built: BuiltTree;
    afterEach(() => built.cleanup());
    const resolve = async (path: string, overrides = {}) =>
      intenticClient(appOver(built, overrides)).workspace.resolve({ path });

    it('answers the path as written: root-relative, absolute under the root, ./ and \\ normalised', async () => {
      built = await buildTree(backend, SPEC);
      expect(await resolve('lib/util.ts')).toEqual({ path: 'lib/util.ts' });
      expect(await resolve('./lib//util.ts')).toEqual({ path: 'lib/util.ts' });
      expect(await resolve('lib\\util.ts')).toEqual({ path: 'lib/util.ts' });
      expect(await resolve(`${built.root}/lib/util.ts`)).toEqual({ path: 'lib/util.ts' });
      expect(await resolve('README.md')).toEqual({ path: 'README.md' });
      expect(await resolve('linked/src/app.ts')).toEqual({ path: 'linked/src/app.ts' });
    });

    it('resolves any existing file as written, ignored ones included', async () => {
      built = await buildTree(backend, SPEC);
      expect(await resolve('node_modules/pkg/src/index.js')).toEqual({ path: 'node_modules/pkg/src/index.js' });
      expect(await resolve('vendor-ignored/v/lib.ts')).toEqual({ path: 'vendor-ignored/v/lib.ts' });
    });

    it('matches the written path as a tail of the real one, on a segment boundary', async () => {
      built = await buildTree(backend, SPEC);
      expect(await resolve('src/app.ts')).toEqual({ path: 'packages/web/src/app.ts' });
      expect(await resolve('web\\src\\app.ts')).toEqual({ path: 'packages/web/src/app.ts' });
      expect(await resolve('src/only.ts')).toEqual({}); // xsrc/only.ts is not on a segment boundary
      expect(await resolve('src/util.ts')).toEqual({}); // case matters: mixed/Src/util.ts
    });

    it('drops leading segments of a path from elsewhere, up to 6, never below 2', async () => {
      built = await buildTree(backend, SPEC);
      expect(await resolve('/home/someone/checkout/packages/web/src/app.ts')).toEqual({ path: 'packages/web/src/app.ts' });
      expect(await resolve('../../elsewhere/lib/util.ts')).toEqual({ path: 'lib/util.ts' });
      // 6 dropped: o1..o6 go, leaving "g/target.ts".
      expect(await resolve('o1/o2/o3/o4/o5/o6/g/target.ts')).toEqual({ path: 'deep/a/b/c/d/e/f/g/target.ts' });
      // 7 would be needed: nothing.
      expect(await resolve('o1/o2/o3/o4/o5/o6/o7/g/target.ts')).toEqual({});
      // One segment is never looked up by tail, even though exactly one file is called that.
      expect(await resolve('target.ts')).toEqual({});
      expect(await resolve('nowhere/target.ts')).toEqual({});
    });

    it('prefers the longest matching tail, then the shallowest file, then the shorter path, then lexical order', async () => {
      built = await buildTree(backend, SPEC);
      // Longest tail first: "api/src/server/main.ts" matches one file before "src/server/main.ts" matches three.
      expect(await resolve('x/api/src/server/main.ts')).toEqual({ path: 'packages/api/src/server/main.ts' });
      // Three matches of src/server/main.ts: z/… is the shallowest.
      expect(await resolve('src/server/main.ts')).toEqual({ path: 'z/src/server/main.ts' });
      // same/{aa,b,c}/k/n.ts: equal depth; b and c are shorter than aa; b is lexically first.
      expect(await resolve('k/n.ts')).toEqual({ path: 'same/b/k/n.ts' });
    });

    it('never resolves a tail into ignored folders, the agents folder, or through links that leave', async () => {
      built = await buildTree(backend, SPEC);
      expect(await resolve('pkg/src/index.js')).toEqual({}); // only inside node_modules
      expect(await resolve('v/lib.ts')).toEqual({}); // only inside a .gitignore'd folder
      expect(await resolve('conf/db.secret')).toEqual({ path: 'conf/db.secret' }); // ignored file, as written
      expect(await resolve('x/conf/db.secret')).toEqual({ path: 'conf/db.secret' }); // …and by tail: folder entered
      expect(await resolve('.agents/a1/only-agent/thing.ts')).toEqual({});
      expect(await resolve('only-agent/thing.ts')).toEqual({});
      expect(await resolve('away/etc/passwd')).toEqual({ path: 'etc/passwd' }); // a tail, never the outside file
    });

    it('looks up a path outside the workspace by its tails only, and a folder is not a file', async () => {
      built = await buildTree(backend, SPEC);
      expect(await resolve('/etc/passwd')).toEqual({ path: 'etc/passwd' });
      expect(await resolve('/usr/share/nothing-here.txt')).toEqual({});
      expect(await resolve('folder/inner')).toEqual({});
    });

    it('resolves in an agent’s private copy with agent=', async () => {
      built = await buildTree(backend, SPEC);
      const client = intenticClient(appOver(built));
      await client.workspace.createAgent({ agent: 'a2' });
      await client.workspace.mkdir({ agent: 'a2', path: 'agent-made/src/app.ts' });
      // A folder is not a file: the agent's new folder does not shadow packages/web/src/app.ts.
      expect(await client.workspace.resolve({ agent: 'a2', path: 'src/app.ts' })).toEqual({ path: 'packages/web/src/app.ts' });
      expect(await client.workspace.resolve({ agent: 'a2', path: 'lib/util.ts' })).toEqual({ path: 'lib/util.ts' });
    });

    it('walks no more than limits.maxSearchEntries entries for the tails', async () => {
      built = await buildTree(backend, SPEC);
      expect(await resolve('g/target.ts', { limits: { maxSearchEntries: 15 } })).toEqual({});
      expect(await resolve('g/target.ts', { limits: { maxSearchEntries: 5000 } })).toEqual({ path: 'deep/a/b/c/d/e/f/g/target.ts' });
    });
  });
}

describe('GET /workspace/resolve: bad input on the wire', () => {
  let built: BuiltTree;
  afterEach(() => built.cleanup());

  it('refuses a missing path and a NUL byte with oRPC error bodies', async () => {
    built = await buildTree('memory', { 'a/b': '' });
    const app = appOver(built);
    const missing = await app.fetch(request('/workspace/resolve'));
    expect(missing.status).toBe(400);
    expect(await missing.json()).toEqual({
      defined: false,
      code: 'BAD_REQUEST',
      status: 400,
      message: 'invalid query: path: missing path',
      data: { issues: [{ path: ['path'], message: 'missing path', code: 'invalid_type' }] },
    });
    const nul = await app.fetch(request('/workspace/resolve' + q({ path: 'a/b\0' })));
    expect(nul.status).toBe(400);
    expect(await nul.json()).toEqual({
      defined: false,
      code: 'BAD_REQUEST',
      status: 400,
      message: 'invalid query: path: path contains a NUL byte',
      data: { issues: [{ path: ['path'], message: 'path contains a NUL byte', code: 'custom' }] },
    });
  });
});
