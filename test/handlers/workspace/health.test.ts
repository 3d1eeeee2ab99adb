/**
 * `GET /workspace/health` through Intentic's client, over a real workspace: a repo with commits at fixed dates
 * (real git), the real tree-sitter parsers, a nested repo, gitignored, linked and generated files.
 */
import { execFileSync } from 'node:child_process';
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGitProcess } from '../../../adapters/git/git-process.ts';
import { TreeSitterParsers } from '../../../adapters/search/tree-sitter-parsers.ts';
import type { WorkspaceApp } from '../../../runtime/app.ts';
import { intenticClient, orpcFailure } from '../../support/intentic-contract.ts';
import { nodeApp, tempWorkspace, type TempWorkspace } from '../../support/workspace.ts';
import { GIT_TEST_ENV } from '../../core/git/temp-repos.ts';

const DAY = 86_400;
const nowSeconds = Math.floor(Date.now() / 1000);
const C1 = nowSeconds - 10 * DAY;
const C2 = nowSeconds - 2 * DAY;

const A_V1 = 'export function a(x: number) {\n  return x;\n}\n';
// if, &&, ternary: 3
const A_V2 = "import { b } from './b.js';\nexport function a(x: number) {\n  if (x > 1 && b(x)) return 1;\n  return x ? 2 : 3;\n}\n";
// ||: 1
const B = 'export function b(x: number) {\n  return x > 0 || x < -5;\n}\nexport const B = 1;\n';

let ws: TempWorkspace;
let app: WorkspaceApp;

async function put(rel: string, content: string) {
  await mkdir(dirname(join(ws.root, rel)), { recursive: true });
  await writeFile(join(ws.root, rel), content);
}
function git(cwd: string, time: number, ...args: string[]) {
  const env = { ...GIT_TEST_ENV, GIT_AUTHOR_DATE: `${time} +0000`, GIT_COMMITTER_DATE: `${time} +0000` };
  execFileSync('git', ['-C', cwd, ...args], { env, stdio: 'pipe' });
}

beforeAll(async () => {
  ws = await tempWorkspace({
    '.gitignore': 'ignored.ts\n',
    'notes.ts': 'export const n = 1;\nif (n && n) {}\n', // if, &&: 2
    'ignored.ts': 'export const i = 1;\nif (i) {}\n',
    '.intentic/config/templates.json': '{}\n',
  });
  await symlink(join(ws.root, 'notes.ts'), join(ws.root, 'link.ts'));
  const shop = join(ws.root, 'shop');
  await mkdir(shop);
  git(shop, C1, 'init', '-q', '-b', 'main');
  await put('shop/package.json', '{"name":"shop"}\n');
  await put('shop/README.md', '# shop\nif and while && ||\n');
  await put('shop/.gitignore', 'build/\n');
  await put('shop/src/a.ts', A_V1);
  await put('shop/src/b.ts', B);
  git(shop, C1, 'add', '-A');
  git(shop, C1, 'commit', '-q', '-m', 'c1');
  await put('shop/src/a.ts', A_V2);
  await put('shop/src/generated/api.ts', 'export const api = 1;\nif (api) {}\n');
  git(shop, C2, 'add', '-A');
  git(shop, C2, 'commit', '-q', '-m', 'c2');
  // Not part of shop's figures: ignored, installed, a nested repo.
  await put('shop/build/out.js', 'if (a) {}\n');
  await put('shop/node_modules/x/index.js', 'export const x = 1;\n');
  await put('shop/vendor/lib/lib.ts', 'export const l = 1;\nif (l) {}\n');
  git(join(shop, 'vendor/lib'), C2, 'init', '-q', '-b', 'main');
  // A repo inside a plain top-level folder.
  await put('libs/README.md', '# libs\n');
  await put('libs/util/util.ts', 'export const u = 1;\nif (u || u) {}\n');
  git(join(ws.root, 'libs/util'), C2, 'init', '-q', '-b', 'main');
  app = nodeApp(ws.root, { git: createGitProcess({ root: ws.root }), parsers: new TreeSitterParsers() });
});
afterAll(async () => {
  await app?.close();
  await ws?.cleanup();
});

const health = (input: { repo: string; since?: string; limit?: number }) => intenticClient(app).workspace.health(input);
const failure = orpcFailure;
const fresh = { state: 'fresh', ageMs: expect.any(Number) };

describe('GET /workspace/health', () => {
  it('a repo over all history: totals, hotspots by commits × complexity, modules by PageRank', async () => {
    expect(await health({ repo: 'shop' })).toEqual({
      repo: 'shop',
      // .gitignore, README.md, package.json, src/a.ts, src/b.ts, src/generated/api.ts
      totals: { files: 6, symbols: 4, complexity: 3 + 1 + 1, hotspots: 3 },
      hotspots: [
        { path: 'shop/src/a.ts', commits: 2, adds: 3 + 3, dels: 1, complexity: 3, score: 6, latestMs: C2 * 1000 },
        { path: 'shop/src/b.ts', commits: 1, adds: 4, dels: 0, complexity: 1, score: 1, latestMs: C1 * 1000 },
        { path: 'shop/src/generated/api.ts', commits: 1, adds: 2, dels: 0, complexity: 1, score: 1, latestMs: C2 * 1000 },
      ],
      // b.ts is imported by a.ts; the generated file exports but is left out.
      modules: [
        { path: 'shop/src/b.ts', exports: 2 },
        { path: 'shop/src/a.ts', exports: 1 },
      ],
      freshness: fresh,
    });
  });

  it('a `since` window keeps the commits inside it; `limit` cuts hotspots and modules, not the totals', async () => {
    expect(await health({ repo: 'shop', since: '5d', limit: 1 })).toEqual({
      repo: 'shop',
      totals: { files: 6, symbols: 4, complexity: 5, hotspots: 2 },
      hotspots: [{ path: 'shop/src/a.ts', commits: 1, adds: 3, dels: 1, complexity: 3, score: 3, latestMs: C2 * 1000 }],
      modules: [{ path: 'shop/src/b.ts', exports: 2 }],
      freshness: fresh,
    });
    expect((await health({ repo: 'shop', since: '1h' })).hotspots).toEqual([]);
    expect((await health({ repo: 'shop', since: '2w' })).totals.hotspots).toBe(3);
    expect((await health({ repo: 'shop', since: '1m' })).totals.hotspots).toBe(3);
  });

  it('root: files outside every repo, not ignored, not links, not .intentic; no repo there: no churn', async () => {
    expect(await health({ repo: 'root' })).toEqual({
      repo: 'root',
      // .gitignore, libs/README.md, notes.ts
      totals: { files: 3, symbols: 1, complexity: 2, hotspots: 0 },
      hotspots: [],
      modules: [{ path: 'notes.ts', exports: 1 }],
      freshness: fresh,
    });
  });

  it('a repo under a plain folder is its own scope, and not part of the folder\'s', async () => {
    const repo = await health({ repo: 'libs/util' });
    expect(repo.totals).toEqual({ files: 1, symbols: 1, complexity: 2, hotspots: 0 });
    expect(repo.modules).toEqual([{ path: 'libs/util/util.ts', exports: 1 }]);
    const folder = await health({ repo: 'libs' });
    expect(folder.totals).toEqual({ files: 1, symbols: 0, complexity: 0, hotspots: 0 });
    expect(folder.modules).toEqual([]);
  });

  it('a bad `since` is BAD_REQUEST naming it (not 500)', async () => {
    for (const since of ['10', '3x', 'd', '-1d', '1.5d']) {
      expect(await failure(health({ repo: 'shop', since }))).toEqual({
        code: 'BAD_REQUEST',
        status: 400,
        message: `invalid query: since: invalid since "${since}": expected <number><h|d|w|m> (e.g. 30d)`,
      });
    }
  });

  it('a `limit` outside 1–200 is BAD_REQUEST naming it', async () => {
    for (const limit of [0, 201, -3]) {
      expect(await failure(health({ repo: 'shop', limit }))).toEqual({
        code: 'BAD_REQUEST',
        status: 400,
        message: `invalid query: limit: invalid limit "${limit}": expected an integer from 1 to 200`,
      });
    }
    expect((await health({ repo: 'shop', limit: 200 })).hotspots).toHaveLength(3);
  });

  it('an unknown repo is NOT_FOUND naming it; a malformed one BAD_REQUEST', async () => {
    expect(await failure(health({ repo: 'nope' }))).toEqual({ code: 'NOT_FOUND', status: 404, message: 'no repo named "nope"' });
    expect(await failure(health({ repo: 'shop/src' }))).toEqual({ code: 'NOT_FOUND', status: 404, message: 'no repo named "shop/src"' });
    expect(await failure(health({ repo: '../x' }))).toEqual({ code: 'BAD_REQUEST', status: 400, message: 'invalid repo "../x"' });
  });
});
