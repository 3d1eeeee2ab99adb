import { mkdir, stat, symlink } from 'node:fs/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { appOver, buildTree } from '../../support/backends.ts';
import { nodeApp, q, request, tempWorkspace, type TempWorkspace } from '../../support/workspace.ts';
import { instrumented } from '../../core/tree-ops/faulty-file-system.ts';

describe('GET /api/files', () => {
  let ws: TempWorkspace;
  beforeEach(async () => {
    ws = await tempWorkspace({ 'b.txt': 'bb', 'A.md': 'a', 'zeta/z.txt': 'zzz', 'alpha/x': '' });
  });
  afterEach(() => ws.cleanup());
  const get = (query = '') => nodeApp(ws.root).fetch(request('/api/files' + query));

  it('lists the root: folders first, then files, each in code-unit order, folders with size 0', async () => {
    const res = await get();
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      path: ws.root,
      entries: [
        { name: 'alpha', path: `${ws.root}/alpha`, isDir: true, size: 0 },
        { name: 'zeta', path: `${ws.root}/zeta`, isDir: true, size: 0 },
        { name: 'A.md', path: `${ws.root}/A.md`, isDir: false, size: 1 },
        { name: 'b.txt', path: `${ws.root}/b.txt`, isDir: false, size: 2 },
      ],
    });
  });

  it('lists a sub folder by relative or absolute path', async () => {
    const rel = await (await get(q({ path: 'zeta' }))).json();
    const abs = await (await get(q({ path: `${ws.root}/zeta` }))).json();
    expect(rel).toEqual({ path: `${ws.root}/zeta`, entries: [{ name: 'z.txt', path: `${ws.root}/zeta/z.txt`, isDir: false, size: 3 }] });
    expect(abs).toEqual(rel);
  });

  it('reports symlinks as their target kind; dangling ones as empty files', async () => {
    await symlink('zeta', `${ws.root}/link-dir`);
    await symlink('b.txt', `${ws.root}/link-file`);
    await symlink('gone', `${ws.root}/link-dangling`);
    const { entries } = await (await get()).json();
    expect(entries).toContainEqual({ name: 'link-dir', path: `${ws.root}/link-dir`, isDir: true, size: 0 });
    expect(entries).toContainEqual({ name: 'link-file', path: `${ws.root}/link-file`, isDir: false, size: 2 });
    expect(entries).toContainEqual({ name: 'link-dangling', path: `${ws.root}/link-dangling`, isDir: false, size: 0 });
  });

  it('does not reveal the size or kind of a symlink target outside the workspace', async () => {
    await symlink('/etc', `${ws.root}/etc-link`);
    const { entries } = await (await get()).json();
    expect(entries).toContainEqual({ name: 'etc-link', path: `${ws.root}/etc-link`, isDir: false, size: 0 });
    const res = await get(q({ path: 'etc-link' }));
    expect(res.status).toBe(403);
  });

  it('with --unrestricted, follows a link leaving the workspace to its kind and size', async () => {
    await symlink('/etc', `${ws.root}/etc-link`);
    await symlink('/etc/hostname', `${ws.root}/hostname-link`);
    const res = await nodeApp(ws.root, { unrestricted: true }).fetch(request('/api/files'));
    const { entries } = await res.json();
    const { size } = await stat('/etc/hostname');
    expect(entries).toContainEqual({ name: 'etc-link', path: `${ws.root}/etc-link`, isDir: true, size: 0 });
    expect(entries).toContainEqual({ name: 'hostname-link', path: `${ws.root}/hostname-link`, isDir: false, size });
  });

  it('answers 400 for a file, 404 for a missing path, 403 outside the root', async () => {
    const file = await get(q({ path: 'b.txt' }));
    expect(file.status).toBe(400);
    expect(await file.json()).toEqual({ error: 'not a directory' });
    const missing = await get(q({ path: 'nope' }));
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({ error: 'no such file or directory' });
    const outside = await get(q({ path: '../' }));
    expect(outside.status).toBe(403);
    expect(await outside.json()).toEqual({ error: 'path is outside the workspace' });
  });

  it('refuses a repeated path parameter instead of picking one', async () => {
    const res = await get('?path=zeta&path=alpha');
    expect(res.status).toBe(400);
    expect((await res.json()).error).toMatch(/more than once/);
  });

  it('never lists the agents folder (the agents’ private copies are not part of the workspace)', async () => {
    await mkdir(`${ws.root}/.agents/a1`, { recursive: true });
    await mkdir(`${ws.root}/zeta/.agents`);
    const { entries } = await (await get()).json();
    expect(entries.map((e: { name: string }) => e.name)).toEqual(['alpha', 'zeta', 'A.md', 'b.txt']);
    const zeta = await (await get(q({ path: 'zeta' }))).json();
    expect(zeta.entries.map((e: { name: string }) => e.name)).toEqual(['.agents', 'z.txt']);
  });

  it('lists an empty folder as an empty array', async () => {
    await mkdir(`${ws.root}/empty`);
    expect(await (await get(q({ path: 'empty' }))).json()).toEqual({ path: `${ws.root}/empty`, entries: [] });
  });
});

describe('GET /api/files (the work it costs)', () => {
  it('reads the folder once and stats only what needs a size: files and links, never a folder', async () => {
    const seed: Record<string, string> = {};
    for (let i = 0; i < 30; i++) seed[`dir${String(i).padStart(2, '0')}/`] = '';
    for (let i = 0; i < 5; i++) seed[`file${i}.txt`] = 'x'.repeat(i);
    const tree = await buildTree('memory', seed);
    try {
      await tree.fs.symlink('file4.txt', `${tree.root}/link`);
      const counted = instrumented(tree.fs);
      const app = appOver({ fs: counted.fs, root: tree.root });
      try {
        const res = await app.fetch(request('/api/files'));
        expect(res.status).toBe(200);
        const { entries } = await res.json();
        expect(entries).toHaveLength(36);
        expect(entries.slice(28)).toEqual([
          { name: 'dir28', path: `${tree.root}/dir28`, isDir: true, size: 0 },
          { name: 'dir29', path: `${tree.root}/dir29`, isDir: true, size: 0 },
          ...[0, 1, 2, 3, 4].map((i) => ({ name: `file${i}.txt`, path: `${tree.root}/file${i}.txt`, isDir: false, size: i })),
          { name: 'link', path: `${tree.root}/link`, isDir: false, size: 4 },
        ]);
        expect(counted.calls.readdir).toBe(1);
        // Per entry: an lstat for each file, a realpath and a stat for the link; the folders cost nothing.
        const isEntry = (path: unknown) => typeof path === 'string' && /^\/ws\/(dir|file|link)/.test(path);
        const perEntry = (method: string) => (counted.args[method] ?? []).filter(([path]) => isEntry(path)).length;
        expect(perEntry('lstat') + perEntry('stat') + perEntry('realpath')).toBe(5 + 2);
      } finally {
        await app.close();
      }
    } finally {
      await tree.cleanup();
    }
  });
});
