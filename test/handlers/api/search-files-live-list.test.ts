/**
 * /api/files/search over the search engine's live file list answers exactly as the disk walk: the list keeps some
 * folders as names only (bower_components, jspm_packages, .pnpm-store, __pypackages__, .hg, .svn) which docs/ori.md#search
 * enters (it refuses only `.git` and `node_modules`), so while it holds one the disk walk answers (found by review).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { nodeApp, q, request, tempWorkspace, type TempWorkspace } from '../../support/workspace.ts';

let ws: TempWorkspace | undefined;
afterEach(async () => {
  await ws?.cleanup();
  ws = undefined;
});

const SEED = {
  'a.txt': '',
  'bower_components/jquery/jquery.js': '',
  'jspm_packages/dep/dep.js': '',
  '.pnpm-store/v3/pkg.json': '',
  '__pypackages__/3.11/lib/mod.py': '',
  '.hg/store/data.i': '',
  '.svn/entries': '',
  'node_modules/dep/index.js': '',
};

async function search(app: { fetch(r: Request): Promise<Response> }, query: string) {
  const res = await app.fetch(request('/api/files/search' + q({ q: query, limit: 500 })));
  return { status: res.status, body: await res.json() };
}

describe('/api/files/search: the list and the disk walk agree', () => {
  it('lists files inside store folders other than node_modules with and without the ready list', async () => {
    ws = await tempWorkspace(SEED);
    const cold = nodeApp(ws.root); // no search started: the disk walk answers
    const diskAnswer = await search(cold, '');
    await cold.close();

    const warm = nodeApp(ws.root, { search: { eager: true } });
    await warm.search.settled();
    expect(warm.search.readyFileList()).toBeDefined();
    const listAnswer = await search(warm, '');
    await warm.close();

    // The disk walk finds the store folders' files (docs/ori.md#search: only .git and node_modules are never entered).
    expect(diskAnswer.body.files.map((f: { relPath: string }) => f.relPath)).toContain('bower_components/jquery/jquery.js');
    expect(listAnswer).toEqual(diskAnswer);
  });

  it('a query for a file inside bower_components finds it both ways', async () => {
    ws = await tempWorkspace(SEED);
    const cold = nodeApp(ws.root);
    const before = await search(cold, 'jquery');
    await cold.close();
    const warm = nodeApp(ws.root, { search: { eager: true } });
    await warm.search.settled();
    const after = await search(warm, 'jquery');
    await warm.close();
    expect(before.body.files.length).toBe(1);
    expect(after).toEqual(before);
  });
});

describe('/api/files/search from the live list', () => {
  it('answers from the list (same body as the disk walk) once the tree holds no such folder, and sees API writes at once', async () => {
    ws = await tempWorkspace({ 'a.txt': '', 'src/b.ts': '', 'node_modules/dep/index.js': '' });
    const cold = nodeApp(ws.root);
    const diskAnswer = await search(cold, '');
    await cold.close();
    const warm = nodeApp(ws.root, { search: { eager: true } });
    await warm.search.settled();
    expect(warm.search.readyFileList()?.coversBreadthFirstWalk()).toBe(true);
    expect(await search(warm, '')).toEqual(diskAnswer);
    const put = await warm.fetch(request('/api/file' + q({ path: 'src/new.ts' }), { method: 'PUT', body: JSON.stringify({ content: 'x' }) }));
    expect(put.status).toBe(200);
    expect((await search(warm, 'new')).body.files.map((f: { relPath: string }) => f.relPath)).toEqual(['src/new.ts']);
    await warm.close();
  });
});

describe('/api/files/search from the live list: the folded walk it keeps', () => {
  it('answers every query as the disk walk does, and a change made after a query is in the next one', async () => {
    const seed: Record<string, string> = {};
    for (const folder of ['src', 'src/Net', 'src/net/e1000', 'docs', 'Docs/old', 'a/b/c']) {
      for (const name of ['main.c', 'Net.h', 'e1000_main.c', 'README']) seed[`${folder}/${name}`] = '';
    }
    seed['top.txt'] = '';
    ws = await tempWorkspace(seed);
    const queries = ['main', 'NET', 'c/e', 'net/e1', 'src/net/', '/', 'e1000', 'b/c/r', 'zz', 's/n', 'T.'];
    const cold = nodeApp(ws.root);
    const disk = await Promise.all(queries.map((query) => search(cold, query)));
    await cold.close();
    const warm = nodeApp(ws.root, { search: { eager: true } });
    await warm.search.settled();
    expect(warm.search.readyFileList()?.coversBreadthFirstWalk()).toBe(true);
    // Twice: the second round answers from the walk the first one kept.
    for (let round = 0; round < 2; round++) {
      expect(await Promise.all(queries.map((query) => search(warm, query)))).toEqual(disk);
    }
    // No name holds `net/e1`: shorter relPath first, then code-unit order ('N' before 'n').
    expect(disk[3]!.body.files.map((f: { relPath: string }) => f.relPath)).toEqual([
      'src/net/e1000/Net.h',
      'src/Net/e1000_main.c',
      'src/net/e1000/README',
      'src/net/e1000/main.c',
      'src/net/e1000/e1000_main.c',
    ]);
    const put = await warm.fetch(request('/api/file' + q({ path: 'src/net/e1000/new.c' }), { method: 'PUT', body: JSON.stringify({ content: 'x' }) }));
    expect(put.status).toBe(200);
    expect((await search(warm, 'e1000/n')).body.files.map((f: { relPath: string }) => f.relPath)).toEqual([
      'src/net/e1000/Net.h',
      'src/net/e1000/new.c',
    ]);
    await warm.close();
  });
});
