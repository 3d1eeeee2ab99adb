/**
 * Paging (docs/intentic-search.md#paging): a page takes whole groups in rank order until it holds
 * `limit` of them (default and cap 300) or the next would push it past 1000 hits; `cursor` resumes exactly
 * there. Pages never overlap, their union is the whole answer, `total`/`files`/`partial` are the same on every
 * page, the last has `truncated: false` and no cursor — from the index and from the scan alike.
 *
 * The fixture: 30 "heavy" files of 50 matching lines (the first 5 have 60, so they are capped at 50) and 700
 * "light" files of one line: 730 groups, 2200 hits. `find` ranks by matching lines, ties by path, so the
 * whole ranked set is known: h00…h29, then l000…l699.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Group, SearchAnswer } from '../../../core/search/answer.ts';
import { BACKENDS } from '../../support/backends.ts';
import { FRESH, searchPair, textHit, type SearchFixture, type SearchInput, type SearchPair } from './search-fixture.ts';

const pad = (n: number, width: number) => String(n).padStart(width, '0');
const HEAVY = Array.from({ length: 30 }, (_, i) => `heavy/h${pad(i, 2)}.txt`);
const LIGHT = Array.from({ length: 700 }, (_, i) => `light/l${pad(i, 3)}.txt`);
const heavyLines = (i: number) => Array.from({ length: i < 5 ? 60 : 50 }, (_, line) => `pagetoken ${line + 1}`);

const SEED: Record<string, string> = { 'other.txt': 'nothing to page here\n' };
HEAVY.forEach((path, i) => (SEED[path] = heavyLines(i).join('\n') + '\n'));
LIGHT.forEach((path) => (SEED[path] = `one pagetoken in ${path}\n`));

/** The whole ranked set, as the fixture makes it. */
const RANKED: Group[] = [
  ...HEAVY.map((path, i) => {
    const group: Group = { path, score: 0, hits: heavyLines(i).slice(0, 50).map((text, line) => textHit(line + 1, text, 'pagetoken')) };
    if (i < 5) group.capped = true;
    return group;
  }),
  ...LIGHT.map((path) => ({ path, score: 0, hits: [textHit(1, `one pagetoken in ${path}`, 'pagetoken')] })),
].map((group, rank) => ({ ...group, score: 1 / (rank + 1) }));
const TOTAL = 30 * 50 + 700;

const QUERY: SearchInput = { query: 'pagetoken', mode: 'find' };

/** Follows cursors from the first page to the last (bounded, so a cursor loop fails instead of hanging). */
async function allPages(ws: SearchFixture, input: SearchInput): Promise<SearchAnswer[]> {
  const pages = [await ws.search(input)];
  while (pages.at(-1)!.cursor !== undefined) {
    if (pages.length > 1000) throw new Error('more pages than groups');
    pages.push(await ws.search({ ...input, after: pages.at(-1)!.cursor! }));
  }
  return pages;
}

function page(groups: Group[], last: boolean): Omit<SearchAnswer, 'cursor'> & { cursor?: unknown } {
  const shown = groups.reduce((sum, group) => sum + group.hits.length, 0);
  return {
    mode: 'find',
    total: TOTAL,
    files: 730,
    shown,
    groups,
    freshness: FRESH,
    truncated: !last,
    partial: true,
    ...(last ? {} : { cursor: expect.stringMatching(/^\d+\.[A-Za-z0-9_-]{22}$/) }),
  };
}

describe.each(BACKENDS)('GET /workspace/search paging (%s)', (backend) => {
  let pair: SearchPair;
  beforeAll(async () => {
    pair = await searchPair(backend, SEED);
  }, 60_000);
  afterAll(() => pair.cleanup());

  it('pages by the default limit (300) and the 1000-hit cap', async () => {
    const pages = await allPages(pair.fresh, QUERY);
    expect(pages).toEqual([
      // 20 heavy groups are exactly 1000 hits; the 21st would push the page past 1000.
      page(RANKED.slice(0, 20), false),
      // h20…h29 (500 hits) and 290 light ones: 300 groups.
      page(RANKED.slice(20, 320), false),
      page(RANKED.slice(320, 620), false),
      page(RANKED.slice(620), true),
    ]);
    expect(pages.map((answer) => answer.shown)).toEqual([1000, 790, 300, 110]);
  });

  it('gives the same pages from the scan while the index is building', async () => {
    const scanned = await allPages(pair.building, QUERY);
    const indexed = await allPages(pair.fresh, QUERY);
    expect(scanned.map((answer) => answer.freshness)).toEqual(scanned.map(() => ({ state: 'building', progress: 0 })));
    expect(scanned.map((answer) => answer.groups)).toEqual(indexed.map((answer) => answer.groups));
    expect(scanned.map(({ total, files, shown, truncated, partial }) => ({ total, files, shown, truncated, partial }))).toEqual(
      indexed.map(({ total, files, shown, truncated, partial }) => ({ total, files, shown, truncated, partial })),
    );
  });

  it('pages by limit: never overlapping, the union the whole set, total/files/partial on every page', async () => {
    const pages = await allPages(pair.fresh, { ...QUERY, limit: '7' });
    const seen = pages.flatMap((answer) => answer.groups);
    expect(seen).toEqual(RANKED);
    expect(new Set(seen.map((group) => group.path)).size).toBe(730);
    expect(pages).toHaveLength(Math.ceil(730 / 7));
    for (const [index, answer] of pages.entries()) {
      const last = index === pages.length - 1;
      expect({ total: answer.total, files: answer.files, partial: answer.partial, truncated: answer.truncated }).toEqual({
        total: TOTAL,
        files: 730,
        partial: true,
        truncated: !last,
      });
      expect(answer.groups).toHaveLength(last ? 730 % 7 : 7);
      expect(answer.shown).toBe(answer.groups.reduce((sum, group) => sum + group.hits.length, 0));
      expect('cursor' in answer).toBe(!last);
    }
  });

  it('a limit over 300 is the cap of 300 files a page', async () => {
    const answer = await pair.fresh.search({ ...QUERY, include: 'light', limit: '5000' });
    expect(answer.groups.map((group) => group.path)).toEqual(LIGHT.slice(0, 300));
    expect({ total: answer.total, files: answer.files, shown: answer.shown, truncated: answer.truncated, partial: answer.partial }).toEqual({
      total: 700,
      files: 700,
      shown: 300,
      truncated: true,
      partial: undefined,
    });
  });

  it('limit=1 takes one group a page', async () => {
    const first = await pair.fresh.search({ ...QUERY, limit: '1' });
    expect(first).toEqual(page(RANKED.slice(0, 1), false));
    const second = await pair.fresh.search({ ...QUERY, limit: '1', after: first.cursor! });
    expect(second).toEqual(page(RANKED.slice(1, 2), false));
  });

  it('a re-run keeps its order', async () => {
    const once = await pair.fresh.search({ ...QUERY, limit: '50' });
    const again = await pair.fresh.search({ ...QUERY, limit: '50' });
    expect(again.groups).toEqual(once.groups);
  });

  it('a cursor still resumes after its answer left the cache (20 other queries in between)', async () => {
    // limit 25: the first page stops at 20 groups (1000 hits), so the cursor resumes at group 20.
    const first = await pair.fresh.search({ ...QUERY, limit: '25' });
    expect(first.groups).toEqual(RANKED.slice(0, 20));
    for (let i = 0; i < 20; i++) await pair.fresh.search({ query: `pagetoken ${i + 1}$`, mode: 'find' });
    const second = await pair.fresh.search({ ...QUERY, limit: '25', after: first.cursor! });
    expect(second).toEqual(page(RANKED.slice(20, 45), false));
    // The scan-state engine too.
    const scanFirst = await pair.building.search({ ...QUERY, limit: '25' });
    for (let i = 0; i < 20; i++) await pair.building.search({ query: `l${pad(i, 3)}`, mode: 'files' });
    const scanSecond = await pair.building.search({ ...QUERY, limit: '25', after: scanFirst.cursor! });
    expect(scanSecond.groups).toEqual(RANKED.slice(20, 45));
  });

  it('a cursor resumes at the group where its page stopped, whatever the next page limit', async () => {
    const first = await pair.fresh.search({ ...QUERY, limit: '3' });
    const rest = await pair.fresh.search({ ...QUERY, limit: '300', after: first.cursor! });
    // From group 3: h03…h19 (17 × 50 = 850 hits), then h20 would make 900, h21 950, h22 1000; h23 would pass 1000.
    expect(rest.groups).toEqual(RANKED.slice(3, 23));
    expect(rest.shown).toBe(1000);
  });
});
