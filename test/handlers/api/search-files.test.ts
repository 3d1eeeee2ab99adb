import { mkdir, symlink } from 'node:fs/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { MemoryFileSystem } from '../../../adapters/fs/memory-file-system.ts';
import { createWorkspaceApp } from '../../../runtime/app.ts';
import { nodeApp, q, request, tempWorkspace, type TempWorkspace } from '../../support/workspace.ts';

let ws: TempWorkspace | undefined;
afterEach(async () => {
  await ws?.cleanup();
  ws = undefined;
});

async function workspace(relPaths: string[]): Promise<TempWorkspace> {
  ws = await tempWorkspace(Object.fromEntries(relPaths.map((rel) => [rel, ''])));
  return ws;
}

/** The expected wire shape of a hit under `root`. */
function hit(root: string, relPath: string) {
  return { name: relPath.slice(relPath.lastIndexOf('/') + 1), path: `${root}/${relPath}`, relPath };
}

async function search(app: { fetch(r: Request): Promise<Response> }, query = '') {
  const res = await app.fetch(request('/api/files/search' + query));
  return { status: res.status, type: res.headers.get('content-type'), body: await res.json() };
}

function memoryApp(fs: MemoryFileSystem, extra: { maxSearchEntries?: number } = {}) {
  return createWorkspaceApp({ fs, root: '/ws', auth: { disabled: true }, limits: extra });
}

function memoryTree(count: number): MemoryFileSystem {
  const seed: Record<string, string> = {};
  for (let i = 0; i < count; i++) seed[`/ws/f${String(i).padStart(4, '0')}.txt`] = '';
  return new MemoryFileSystem(seed);
}

describe('GET /api/files/search', () => {
  it('ranks: base name contains the query, then shorter relPath, then code-unit order', async () => {
    const { root } = await workspace([
      'README.md',
      'src/main.go',
      'src/server/main_test.go',
      'cmd/main/app.go',
      'docs/Main.md',
      'a/b/c/domain.txt',
      'x/main',
      'src/util.go',
    ]);
    const res = await search(nodeApp(root), q({ q: 'main' }));
    expect(res).toEqual({
      status: 200,
      type: 'application/json; charset=utf-8',
      body: {
        root,
        files: [
          hit(root, 'x/main'),
          hit(root, 'src/main.go'),
          hit(root, 'docs/Main.md'),
          hit(root, 'a/b/c/domain.txt'),
          hit(root, 'src/server/main_test.go'),
          hit(root, 'cmd/main/app.go'),
        ],
      },
    });
  });

  it('breaks length ties by relPath in code-unit order (upper case before lower case)', async () => {
    const { root } = await workspace(['b/ab.txt', 'a/AB.txt', 'c/aB.txt', 'ab/x.txt', 'B/ab.txt']);
    const { body } = await search(nodeApp(root), q({ q: 'AB' }));
    expect(body.files).toEqual(['B/ab.txt', 'a/AB.txt', 'b/ab.txt', 'c/aB.txt', 'ab/x.txt'].map((r) => hit(root, r)));
  });

  it('matches case-insensitively across the whole relative path, slashes included', async () => {
    const { root } = await workspace(['src/Lib/Util.TS', 'src/lib.ts', 'other/util.js']);
    expect((await search(nodeApp(root), q({ q: 'SRC/lib/u' }))).body.files).toEqual([hit(root, 'src/Lib/Util.TS')]);
    expect((await search(nodeApp(root), q({ q: 'b/u' }))).body.files).toEqual([hit(root, 'src/Lib/Util.TS')]);
  });

  it('answers files: [] when nothing matches, and never lists folders', async () => {
    const { root } = await workspace(['folder-match/file.txt']);
    await mkdir(`${root}/empty-match`);
    expect((await search(nodeApp(root), q({ q: 'nothing' }))).body).toEqual({ root, files: [] });
    expect((await search(nodeApp(root), q({ q: 'match' }))).body).toEqual({ root, files: [hit(root, 'folder-match/file.txt')] });
  });

  it('an empty or missing q lists the first files breadth-first, each folder in name order', async () => {
    const { root } = await workspace(['z.txt', 'A.txt', 'b/deep/y.txt', 'b/x.txt', 'a/w.txt']);
    const expected = { root, files: ['A.txt', 'z.txt', 'a/w.txt', 'b/x.txt', 'b/deep/y.txt'].map((r) => hit(root, r)) };
    expect((await search(nodeApp(root))).body).toEqual(expected);
    expect((await search(nodeApp(root), '?q=')).body).toEqual(expected);
    expect((await search(nodeApp(root), q({ limit: 2 }))).body).toEqual({ root, files: expected.files.slice(0, 2) });
  });

  it('returns 50 hits by default and clamps a larger limit to 500', async () => {
    const app = memoryApp(memoryTree(600));
    const names = (body: { files: { relPath: string }[] }) => body.files.map((f) => f.relPath);
    const all = Array.from({ length: 600 }, (_, i) => `f${String(i).padStart(4, '0')}.txt`);
    expect(names((await search(app, q({ q: 'F' }))).body)).toEqual(all.slice(0, 50));
    expect(names((await search(app)).body)).toEqual(all.slice(0, 50));
    expect(names((await search(app, q({ q: '.txt', limit: 501 }))).body)).toEqual(all.slice(0, 500));
    expect(names((await search(app, q({ limit: '99999999999999999999' }))).body)).toEqual(all.slice(0, 500));
    expect(names((await search(app, q({ limit: '007' }))).body)).toEqual(all.slice(0, 7));
    expect((await search(app, q({ q: 'f0599', limit: 1 }))).body).toEqual({
      root: '/ws',
      files: [{ name: 'f0599.txt', path: '/ws/f0599.txt', relPath: 'f0599.txt' }],
    });
  });

  it.each(['0', '-1', '1.5', 'abc', '', ' 5', '1e3', '+5', '0x10'])('answers 400 for limit=%j', async (limit) => {
    const app = memoryApp(memoryTree(1));
    expect(await search(app, q({ limit }))).toEqual({
      status: 400,
      type: 'application/json; charset=utf-8',
      body: { error: 'invalid query: limit: must be a whole number of at least 1' },
    });
  });

  it('answers 400 for a repeated parameter', async () => {
    const res = await search(memoryApp(memoryTree(1)), '?q=a&q=b');
    expect(res).toMatchObject({ status: 400, body: { error: "invalid query: 'q' is given more than once" } });
  });

  it('never enters .git or node_modules, at any depth', async () => {
    const { root } = await workspace([
      '.git/config',
      'node_modules/config/index.js',
      'pkg/node_modules/config.js',
      'pkg/.git/config',
      'pkg/config.ts',
      'sub/.git',
    ]);
    expect((await search(nodeApp(root), q({ q: 'config' }))).body.files).toEqual([hit(root, 'pkg/config.ts')]);
    expect((await search(nodeApp(root))).body.files).toEqual([hit(root, 'pkg/config.ts'), hit(root, 'sub/.git')]);
  });

  it('never searches the agents folder (the agents’ private copies are not part of the workspace)', async () => {
    const { root } = await workspace(['.agents/a1/config.ts', 'pkg/.agents/config.ts', 'pkg/config.ts']);
    expect((await search(nodeApp(root), q({ q: 'config' }))).body.files).toEqual([
      hit(root, 'pkg/config.ts'),
      hit(root, 'pkg/.agents/config.ts'), // only the agents folder itself is left out, not every ".agents"
    ]);
    expect((await search(nodeApp(root))).body.files).toEqual([hit(root, 'pkg/config.ts'), hit(root, 'pkg/.agents/config.ts')]);
  });

  it('stops after maxSearchEntries directory entries, counted in walk order', async () => {
    // Entries in walk order: a.txt b.txt dir node_modules | dir: c.txt d.txt
    const { root } = await workspace(['a.txt', 'b.txt', 'dir/c.txt', 'dir/d.txt', 'node_modules/m.txt']);
    const files = async (maxSearchEntries: number, query = '') =>
      (await search(nodeApp(root, { limits: { maxSearchEntries } }), query)).body.files.map((f: { relPath: string }) => f.relPath);
    expect(await files(1)).toEqual(['a.txt']);
    expect(await files(4)).toEqual(['a.txt', 'b.txt']);
    expect(await files(5)).toEqual(['a.txt', 'b.txt', 'dir/c.txt']);
    expect(await files(5, q({ q: 'd.txt' }))).toEqual([]);
    expect(await files(6, q({ q: 'd.txt' }))).toEqual(['dir/d.txt']);
  });

  it('skips folders it cannot read', async () => {
    const fs = new MemoryFileSystem({
      '/ws/locked/secret.txt': '',
      '/ws/locked/inner/deep.txt': '',
      '/ws/open/secret-not.txt': '',
      '/ws/top.txt': '',
    });
    await fs.chmod('/ws/locked', 0);
    const app = memoryApp(fs);
    expect((await search(app, q({ q: 'secret' }))).body).toEqual({
      root: '/ws',
      files: [{ name: 'secret-not.txt', path: '/ws/open/secret-not.txt', relPath: 'open/secret-not.txt' }],
    });
    expect((await search(app)).body.files.map((f: { relPath: string }) => f.relPath)).toEqual(['top.txt', 'open/secret-not.txt']);
  });

  it('answers 404 when the root does not exist (or is not a folder), 403 when it cannot be read', async () => {
    const { root } = await workspace(['file.txt']);
    expect(await search(nodeApp(`${root}/missing`), q({ q: 'x' }))).toEqual({
      status: 404,
      type: 'application/json; charset=utf-8',
      body: { error: 'workspace root does not exist' },
    });
    expect(await search(nodeApp(`${root}/file.txt`))).toMatchObject({
      status: 404,
      body: { error: 'workspace root is not a directory' },
    });
    const fs = new MemoryFileSystem({ '/ws/a.txt': '' });
    await fs.chmod('/ws', 0o300);
    expect(await search(memoryApp(fs))).toMatchObject({ status: 403, body: { error: 'permission denied' } });
  });

  it('lists symlinked files inside the workspace, never enters symlinked folders', async () => {
    const { root } = await workspace(['real/target.txt', 'note.txt']);
    const outside = await tempWorkspace({ 'outside.txt': '' });
    try {
      await symlink(`${root}/real`, `${root}/dir-link`);
      await symlink(root, `${root}/real/loop`);
      await symlink('note.txt', `${root}/note-link.txt`);
      await symlink('gone.txt', `${root}/dangling.txt`);
      await symlink(`${outside.root}/outside.txt`, `${root}/escape.txt`);
      const confined = (await search(nodeApp(root), q({ q: '.txt' }))).body.files;
      expect(confined).toEqual([hit(root, 'note.txt'), hit(root, 'note-link.txt'), hit(root, 'real/target.txt')]);
      const unrestricted = (await search(nodeApp(root, { unrestricted: true }), q({ q: '.txt' }))).body.files;
      expect(unrestricted).toEqual([
        hit(root, 'note.txt'),
        hit(root, 'escape.txt'),
        hit(root, 'note-link.txt'),
        hit(root, 'real/target.txt'),
      ]);
    } finally {
      await outside.cleanup();
    }
  });

  it('reports the real root when the workspace is reached through a symlink', async () => {
    const { root } = await workspace(['real/a.txt']);
    await symlink(`${root}/real`, `${root}/alias`);
    expect((await search(nodeApp(`${root}/alias`))).body).toEqual({
      root: `${root}/real`,
      files: [hit(`${root}/real`, 'a.txt')],
    });
  });

  it('requires the token', async () => {
    const { root } = await workspace(['a.txt']);
    const res = await nodeApp(root).fetch(request('/api/files/search', { headers: { authorization: 'Bearer nope' } }));
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({ error: 'missing or invalid token' });
  });
});
