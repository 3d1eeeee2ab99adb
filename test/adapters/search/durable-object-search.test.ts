import { build } from 'esbuild';
import { Miniflare } from 'miniflare';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { projectRoot } from '../../../runtime/worker-build.ts';
import { fixtureSeed } from '../../core/search/symbols/fixture-repo.ts';
import { generatedFile, TOKEN } from './workerd/generated-workspace.ts';

/**
 * Search in a Durable Object with its index in the object's SQLite (runtime/search/durable-object-search.ts), in
 * real workerd (miniflare, SQLite-backed objects, storage persisted to a temporary folder so workerd can be
 * restarted on it). ./workerd/search-worker.ts serves each object's workspace twice: `/edge/…` with the index and
 * `/scan/…` with the per-request scan it replaces, whose answers are the reference; both count their file reads.
 *
 * - `big`: 10 000 generated files. The first query builds the index (and the prose and symbol facts); later ones
 *   read only the files that can match; a write is found and a delete gone by the next query; a restarted workerd
 *   answers from what the object stored, reading no more than the files that match.
 * - `modes`: the search fixture repo and 200 generated files, for every mode, paging and `/ws` against the scan,
 *   before and after writes, deletes, a move and a `.gitignore` change.
 */

const SCRIPT = join(projectRoot, 'dist/test-search-do/worker.js');
await build({
  entryPoints: [join(projectRoot, 'test/adapters/search/workerd/search-worker.ts')],
  bundle: true,
  format: 'esm',
  platform: 'browser',
  conditions: ['workerd', 'worker', 'browser'],
  outfile: SCRIPT,
  logLevel: 'silent',
});

const BIG_FILES = 10_000;
const persist = await mkdtemp(join(tmpdir(), 'wsapi-do-search-'));
const start = () =>
  new Miniflare({
    scriptPath: SCRIPT,
    modules: true,
    compatibilityDate: '2026-04-26',
    durableObjects: { SEARCH: { className: 'SearchObject', useSQLite: true } },
    durableObjectsPersist: persist,
  });
let mf = start();
/** Figures for the log line at the end. */
const figures: Record<string, unknown> = {};

afterAll(async () => {
  await mf.dispose();
  await rm(persist, { recursive: true, force: true });
  console.log(`durable-object search: ${JSON.stringify(figures)}`);
});

const headers = { authorization: `Bearer ${TOKEN}`, 'x-intentic-control': TOKEN };
type Side = 'edge' | 'scan';
type Json = Record<string, unknown>;

async function call(object: string, path: string, init: { method?: string; body?: unknown } = {}): Promise<{ status: number; body: Json; ms: number }> {
  const started = performance.now();
  const response = await mf.dispatchFetch(`http://search.test/o/${object}${path}`, {
    method: init.method ?? 'GET',
    headers: { ...headers, ...(init.body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
  });
  const body = (await response.json()) as Json;
  return { status: response.status, body, ms: Math.round(performance.now() - started) };
}

const search = (object: string, side: Side, params: Record<string, string>) =>
  call(object, `/${side}/workspace/search?${new URLSearchParams(params)}`);

async function reads(object: string): Promise<{ edge: number; scan: number }> {
  const { body } = await call(object, '/stats');
  await call(object, '/stats/reset', { method: 'POST' });
  return body.reads as { edge: number; scan: number };
}

/** An answer as both sides must give it: freshness apart (the scan's has no `ageMs`), a cursor by its offset only (each app signs with its own key). */
function comparable(answer: Json): Json {
  const { freshness: _freshness, cursor, ...rest } = answer;
  return { ...rest, ...(typeof cursor === 'string' ? { cursor: cursor.split('.')[0] } : {}) };
}

/** Every page of a query, following the cursors. */
async function pages(object: string, side: Side, params: Record<string, string>): Promise<Json[]> {
  const out: Json[] = [];
  let after: string | undefined;
  do {
    const { status, body } = await search(object, side, { ...params, ...(after === undefined ? {} : { after }) });
    expect(status, JSON.stringify(body)).toBe(200);
    if (side === 'edge') expect(body.freshness).toEqual({ state: 'fresh', ageMs: 0 }); // whole, never building nor stale
    out.push(comparable(body));
    after = body.cursor as string | undefined;
  } while (after !== undefined && out.length < 50);
  return out;
}

async function sameAsScan(object: string, params: Record<string, string>): Promise<Json[]> {
  const edge = await pages(object, 'edge', params);
  expect(edge, JSON.stringify(params)).toEqual(await pages(object, 'scan', params));
  return edge;
}

const groupsOf = (answer: Json) => (answer.groups as { path: string }[]).map((group) => group.path);

/** The generated files (./workerd/generated-workspace.ts) whose number passes `which`, of one extension, sorted. */
function generatedPaths(which: (i: number) => boolean, extension: '.ts' | '.md'): string[] {
  const paths: string[] = [];
  for (let i = 0; i < BIG_FILES; i++) {
    const { path } = generatedFile(i);
    if (which(i) && path.endsWith(extension)) paths.push(path);
  }
  return paths.sort();
}

describe('the SQLite stores inside workerd', () => {
  it('SqlIndexStore: the manifest and shards in parts, ranged reads across parts, a shard removed while open stays readable until closed', async () => {
    const { body } = await call('stores', '/checks/index-store', { method: 'POST' });
    expect(body).toEqual({
      emptyManifest: true,
      manifestBack: true,
      across: true,
      tail: true,
      whole: true,
      within: true,
      namesAfterRemove: ['s1'],
      readAfterRemove: true,
      partsWhileOpen: 1,
      partsAfterClose: 0,
      partsOfClosed: 3,
      missingPart: 'CorruptIndexError',
      beforeMissing: true,
      unknown: 'Error',
      afterClear: { manifest: true, shards: [], stored: 0 },
    });
  });

  it('SqlFileFactsStore: a fact at its version only, removal, retain, a value too big kept smaller, a format change forgets', async () => {
    const { body } = await call('stores', '/checks/facts-store', { method: 'POST' });
    expect(body).toEqual({
      back: { length: 3, counts: [['alpha', 2], ['beta', 1]], text: 'alpha alpha beta' },
      otherVersion: true,
      removed: true,
      retained: [false, true],
      bigBack: 'terms only',
      sameFormat: true,
      undecodable: true,
      afterFormatChange: true,
    });
  });
});

describe(`${BIG_FILES} files in one object`, () => {
  it('the first query builds the index; warm queries read only the files that can match', async () => {
    const seeded = await call('big', `/seed?files=${BIG_FILES}`, { method: 'POST' });
    expect(seeded.body.files).toBe(BIG_FILES);
    await reads('big');

    const cold = await search('big', 'edge', { query: 'widget1234', mode: 'find' });
    expect(cold.status).toBe(200);
    expect(groupsOf(cold.body)).toEqual(['src/pkg012/file1234.ts']);
    const coldReads = (await reads('big')).edge;
    // Built once: the trigram index, the prose terms and the definitions each read every file.
    expect(coldReads).toBeGreaterThanOrEqual(BIG_FILES);

    const warm = await search('big', 'edge', { query: 'widget4321', mode: 'find' });
    expect(groupsOf(warm.body)).toEqual(['src/pkg043/file4321.ts']);
    const warmReads = (await reads('big')).edge;
    // The one file that can match (its context from the stored definitions, without a read).
    expect(warmReads).toBeLessThanOrEqual(2);

    const broad = await search('big', 'edge', { query: 'token7 marker', mode: 'find' });
    const matching = (broad.body.groups as unknown[]).length;
    expect(matching).toBe(generatedPaths((i) => i % 37 === 7, '.ts').length); // label… = 'token7 marker'
    const broadReads = (await reads('big')).edge;
    expect(broadReads).toBeLessThanOrEqual(matching + 2);

    const q = await search('big', 'edge', { query: 'widget2468' }); // q: its definition, the word, prose
    expect((q.body.groups as { path: string }[])[0]!.path).toBe('src/pkg024/file2468.ts');
    const qReads = (await reads('big')).edge;
    expect(qReads).toBeLessThanOrEqual(5);
    Object.assign(figures, {
      files: BIG_FILES,
      coldMs: cold.ms,
      coldReads,
      warmMs: warm.ms,
      warmReads,
      broadMs: broad.ms,
      broadReads,
      broadMatching: matching,
      qMs: q.ms,
      qReads,
    });
  }, 60_000);

  it('a file written after indexing is found by the next query, a deleted one is gone', async () => {
    const written = await call('big', '/edge/api/file?path=src/late/fresh.ts', { method: 'PUT', body: { content: 'export const lateArrival = "zebra";\n' } });
    expect(written.status).toBe(200);
    const removed = await call('big', '/edge/workspace/entry', { method: 'DELETE', body: { path: 'src/pkg055/file5555.ts' } });
    expect(removed.status).toBe(200);
    await reads('big');
    expect(groupsOf((await search('big', 'edge', { query: 'zebra', mode: 'find' })).body)).toEqual(['src/late/fresh.ts']);
    expect(groupsOf((await search('big', 'edge', { query: 'lateArrival', mode: 'def' })).body)).toEqual(['src/late/fresh.ts']);
    expect((await search('big', 'edge', { query: 'widget5555', mode: 'find' })).body.total).toBe(0);
    // The new file, read to index it (twice: trigrams, prose terms; its definitions once more for `def`), and the match.
    expect((await reads('big')).edge).toBeLessThanOrEqual(6);
  });

  it('search_in_files over /ws: the index rules out the files that cannot match, the answer is the full read\'s', async () => {
    const found = await Promise.all((['edge', 'scan'] as const).map((side) => rpcSearch('big', side, 'widget7531')));
    expect(found[0]).toEqual(found[1]);
    expect(JSON.stringify(found[0])).toContain('file7531.ts');
    const counted = await reads('big');
    expect(counted.scan).toBeGreaterThanOrEqual(BIG_FILES - 1);
    expect(counted.edge).toBeLessThanOrEqual(2);
    Object.assign(figures, { wsEdgeReads: counted.edge, wsScanReads: counted.scan });
  }, 60_000);

  it('restarted on the same storage, the object answers from its stored index, reading only what matches', async () => {
    const { body: stored } = await call('big', '/stats');
    await mf.dispose();
    mf = start();
    const boot = await call('big', '/stats'); // workerd up, the object made: no app, no engine yet
    const first = await search('big', 'edge', { query: 'widget8642', mode: 'find' });
    expect(groupsOf(first.body)).toEqual(['src/pkg086/file8642.ts']);
    expect(first.body.freshness).toEqual({ state: 'fresh', ageMs: 0 });
    const firstReads = (await reads('big')).edge;
    // The match, and the file written before the restart: in no stored shard yet (changes are stored 64 at a time).
    expect(firstReads).toBeLessThanOrEqual(4);
    expect(groupsOf((await search('big', 'edge', { query: 'zebra', mode: 'find' })).body)).toEqual(['src/late/fresh.ts']);
    expect((await search('big', 'edge', { query: 'widget5555', mode: 'find' })).body.total).toBe(0);
    const sym = await search('big', 'edge', { query: 'label999*', mode: 'sym' });
    expect(groupsOf(sym.body).sort()).toEqual(generatedPaths((i) => String(i).startsWith('999'), '.ts'));
    const prose = await search('big', 'edge', { query: 'caching layer evicts stale entries' });
    const evicting = generatedPaths((i) => i % 7 === 0, '.md');
    expect(groupsOf(prose.body).slice(0, evicting.length).sort()).toEqual(evicting); // then every other guide
    expect((await reads('big')).edge).toBeLessThanOrEqual(2);
    Object.assign(figures, {
      restartBootMs: boot.ms,
      restartFirstMs: first.ms,
      restartFirstReads: firstReads,
      databaseBytes: stored.databaseSize,
      contentBytes: stored.contentBytes,
      searchTables: stored.searchTables,
    });
  }, 60_000);
});

describe('every mode against the scan (the fixture repo and 200 generated files)', () => {
  // Those marked `again` run again after the changes.
  const queries: (Record<string, string> & { again?: 'yes' })[] = [
    { query: 'renderWidget', again: 'yes' },
    { query: 'renderWidget', mode: 'find', literal: 'true', includeIgnored: 'true' },
    { query: 'renderWidget', mode: 'refs', include: 'src', again: 'yes' },
    { query: 'Widget', mode: 'sym', again: 'yes' },
    { query: 'Widget*', mode: 'sym' },
    { query: 'Circle', mode: 'def' },
    { query: 'Circl', mode: 'def' },
    { query: 'widget', mode: 'files', limit: '80', again: 'yes' },
    { query: 'label\\w+', mode: 'find', limit: '60' },
    { query: 'WIDGET', mode: 'find', caseSensitive: 'true' },
    { query: 'how are widgets rendered', again: 'yes' },
    { query: '*.ts', limit: '100' },
    { query: 'token7 marker', mode: 'find', include: 'src/pkg001, !*.md', limit: '2' },
    { query: 'console.log($$$)', mode: 'ast' },
  ];

  it('the same answers and pages in every mode', async () => {
    const seed = await fixtureSeed();
    const files = Object.fromEntries(Object.entries(seed).map(([path, bytes]) => [path, Buffer.from(bytes as Uint8Array).toString('base64')]));
    expect((await call('modes', '/seed-files', { method: 'POST', body: files })).status).toBe(200);
    expect((await call('modes', '/seed?files=200', { method: 'POST' })).status).toBe(200);
    for (const { again: _again, ...params } of queries) await sameAsScan('modes', params);
    const ori = await Promise.all((['edge', 'scan'] as const).map((side) => call('modes', `/${side}/api/files/search?q=widget&limit=500`)));
    expect(ori[0]!.body).toEqual(ori[1]!.body);
  }, 60_000);

  it('after writes, deletes, a move and a .gitignore change: the next query answers as the scan', async () => {
    const write = (path: string, content: string) => call('modes', `/edge/api/file?path=${path}`, { method: 'PUT', body: { content } });
    expect((await write('src/fresh.ts', 'export function freshWidget() { return renderWidget(defaultWidgets[0]); }\n')).status).toBe(200);
    expect((await write('src/widgets.ts', 'export function renderWidget(label: string) { return label; }\n')).status).toBe(200);
    expect((await call('modes', '/edge/workspace/entry', { method: 'DELETE', body: { path: 'src/legacy.js' } })).status).toBe(200);
    expect((await call('modes', '/edge/workspace/entry', { method: 'DELETE', body: { path: 'go' } })).status).toBe(200);
    expect((await call('modes', '/edge/workspace/move', { method: 'POST', body: { from: 'docs/guide.md', to: 'docs/moved/guide.md' } })).status).toBe(200);
    expect((await write('.gitignore', 'dist/\n*.log\npy/\n')).status).toBe(200);
    const again = queries.filter((params) => params.again).map(({ again: _again, ...params }) => params);
    for (const params of [...again, { query: 'restock', mode: 'def' }, { query: 'Job', mode: 'def' }, { query: 'restock', mode: 'find', includeIgnored: 'true' }]) {
      await sameAsScan('modes', params);
    }
    expect(groupsOf((await search('modes', 'edge', { query: 'freshWidget', mode: 'def' })).body)).toEqual(['src/fresh.ts']);
    expect(groupsOf((await search('modes', 'edge', { query: 'restock', mode: 'find' })).body)).toEqual([]); // py/ now ignored
  }, 60_000);

  it('search_in_files over /ws answers as the full read', async () => {
    for (const query of ['renderWidget', 'widget', 'nothing matches this']) {
      const [edge, scan] = await Promise.all((['edge', 'scan'] as const).map((side) => rpcSearch('modes', side, query)));
      expect(edge, query).toEqual(scan);
    }
  });
});

/** `search_in_files` of the whole workspace over a `/ws` connection to one side. */
async function rpcSearch(object: string, side: Side, query: string): Promise<unknown> {
  const response = await mf.dispatchFetch(`http://search.test/o/${object}/${side}/ws?token=${TOKEN}`, { headers: { upgrade: 'websocket' } });
  expect(response.status).toBe(101);
  const ws = response.webSocket!;
  const reply = new Promise<{ ok: boolean; result?: unknown; error?: string }>((resolve) => {
    ws.addEventListener('message', (event) => resolve(JSON.parse(String(event.data)) as { ok: boolean; result?: unknown }));
  });
  ws.accept();
  ws.send(JSON.stringify({ id: 1, command: 'search_in_files', args: { path: '.', query } }));
  const answer = await reply;
  ws.close(1000, 'done');
  expect(answer.ok, answer.error).toBe(true);
  return answer.result;
}
