/**
 * `GET /workspace/search`: what the wire accepts (docs/intentic-search.md#query), through Intentic's
 * client. Invalid input is BAD_REQUEST (400) in oRPC's error body, before any work; unknown parameters are
 * ignored; a cursor the server could not have issued for this query is BAD_REQUEST too (ours).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKENDS } from '../../support/backends.ts';
import { request } from '../../support/workspace.ts';
import { FRESH, openBuilding, openSearch, textHit, type SearchFixture, type SearchInput } from './search-fixture.ts';

const SEED = {
  'one.txt': 'alpha Beta\nalpha beta\n',
  'two.txt': 'alpha\n',
  'emoji.txt': 'x 😀 y\n',
};

/** oRPC's error for a query-schema failure: one issue, named in the message and in `data.issues`. */
function schemaError(key: string, message: string, code: string) {
  return {
    code: 'BAD_REQUEST',
    status: 400,
    message: `invalid query: ${key}: ${message}`,
    data: { issues: [{ path: [key], message, code }] },
  };
}

const LIMIT_ERROR = 'limit must be an integer ≥ 1';
const BOOLEAN_ERROR = (value: string) => `expected one of true 1 yes on y enabled / false 0 no off n disabled, got '${value}'`;
const CURSOR_ERROR = { code: 'BAD_REQUEST', status: 400, message: 'invalid after: not a cursor this server issued for this query', data: undefined };

describe.each(BACKENDS)('GET /workspace/search input (%s)', (backend) => {
  let ws: SearchFixture;
  beforeAll(async () => {
    ws = await openSearch(backend, SEED);
  });
  afterAll(() => ws.cleanup());

  describe('query length in UTF-16 code units', () => {
    it('refuses 1 unit, a lone é (1 unit), and 513 units', async () => {
      const tooShort = schemaError('query', 'query must be at least 2 characters', 'custom');
      expect(await ws.failure({ query: 'a' })).toEqual(tooShort);
      expect(await ws.failure({ query: 'é' })).toEqual(tooShort);
      expect(await ws.failure({ query: 'a'.repeat(513) })).toEqual(schemaError('query', 'query must be at most 512 characters', 'custom'));
      // 256 emoji are 512 units and fit; one more `a` is 513.
      expect(await ws.failure({ query: '😀'.repeat(256) + 'a' })).toEqual(schemaError('query', 'query must be at most 512 characters', 'custom'));
    });

    it('accepts an emoji alone (2 units) and finds it', async () => {
      expect(await ws.search({ query: '😀', mode: 'find' })).toEqual({
        mode: 'find',
        total: 1,
        files: 1,
        shown: 1,
        groups: [{ path: 'emoji.txt', score: 1, hits: [textHit(1, 'x 😀 y', '😀')] }],
        freshness: FRESH,
        truncated: false,
      });
    });

    it('accepts 512 units (a zero-hit answer, with its hint)', async () => {
      expect(await ws.search({ query: 'q'.repeat(512), mode: 'find' })).toEqual({
        mode: 'find',
        total: 0,
        files: 0,
        shown: 0,
        groups: [],
        freshness: FRESH,
        truncated: false,
        hint: 'no line matches; check include, try includeIgnored=true for installed packages and build output, or mode=q',
      });
      expect((await ws.search({ query: '😀'.repeat(256), mode: 'find' })).total).toBe(0);
    });

    it('uses the query as sent, untrimmed: " alpha" matches only where a space precedes', async () => {
      const answer = await ws.search({ query: ' beta', mode: 'find', literal: 'true' });
      expect(answer.groups).toEqual([
        { path: 'one.txt', score: 1, hits: [textHit(1, 'alpha Beta', ' Beta'), textHit(2, 'alpha beta', ' beta')] },
      ]);
    });

    it('refuses a missing query', async () => {
      const response = await ws.fixture.app.fetch(request('/workspace/search'));
      expect(response.status).toBe(400);
      expect(await response.json()).toEqual({
        defined: false,
        code: 'BAD_REQUEST',
        status: 400,
        message: 'invalid query: query: missing query',
        data: { issues: [{ path: ['query'], message: 'missing query', code: 'invalid_type' }] },
      });
    });
  });

  it('refuses an unknown mode', async () => {
    expect(await ws.failure({ query: 'alpha', mode: 'grep' })).toEqual(
      schemaError('mode', 'Invalid option: expected one of "q"|"find"|"files"|"def"|"refs"|"sym"|"ast"', 'invalid_value'),
    );
    // Modes are case-sensitive words, not booleans.
    expect(await ws.failure({ query: 'alpha', mode: 'FIND' })).toEqual(
      schemaError('mode', 'Invalid option: expected one of "q"|"find"|"files"|"def"|"refs"|"sym"|"ast"', 'invalid_value'),
    );
  });

  it.each([
    ['0', 'custom'],
    ['-1', 'invalid_format'],
    ['1.5', 'invalid_format'],
    ['abc', 'invalid_format'],
    ['', 'invalid_format'],
  ])('refuses limit=%j', async (limit, code) => {
    expect(await ws.failure({ query: 'alpha', limit })).toEqual(schemaError('limit', LIMIT_ERROR, code));
  });

  it('coerces limit digits (no schema maximum: 100000 is the 300 cap)', async () => {
    const one = await ws.search({ query: 'alpha', mode: 'find', limit: '1' });
    expect(one.groups.map((group) => group.path)).toEqual(['one.txt']);
    expect(one.truncated).toBe(true);
    const huge = await ws.search({ query: 'alpha', mode: 'find', limit: 100000 });
    expect(huge.groups.map((group) => group.path)).toEqual(['one.txt', 'two.txt']);
    expect(huge.truncated).toBe(false);
  });

  describe('string booleans', () => {
    // caseSensitive decides whether `Beta` matches line 2's `beta` too: its value is observable.
    const hitsFor = async (caseSensitive: string) =>
      (await ws.search({ query: 'Beta', mode: 'find', caseSensitive })).groups.flatMap((group) => group.hits.map((hit) => hit.line));

    it.each(['true', '1', 'yes', 'on', 'y', 'enabled', 'TRUE', 'Yes', 'ON', 'Y', 'Enabled', 'eNaBlEd'])('%s is true', async (word) => {
      expect(await hitsFor(word)).toEqual([1]);
    });

    it.each(['false', '0', 'no', 'off', 'n', 'disabled', 'FALSE', 'No', 'OFF', 'N', 'DISABLED', 'Disabled'])('%s is false', async (word) => {
      expect(await hitsFor(word)).toEqual([1, 2]);
    });

    it.each([
      ['literal', 'maybe'],
      ['word', 'maybe'],
      ['caseSensitive', 'maybe'],
      ['includeIgnored', 'maybe'],
      ['literal', ''],
      ['word', 'truthy'],
      ['caseSensitive', ' true'],
      ['includeIgnored', '2'],
    ] as const)('refuses %s=%j', async (key, value) => {
      expect(await ws.failure({ query: 'alpha', [key]: value } as SearchInput)).toEqual(schemaError(key, BOOLEAN_ERROR(value), 'custom'));
    });
  });

  it('refuses an include of 513 characters and accepts 512', async () => {
    expect(await ws.failure({ query: 'alpha', include: 'a'.repeat(513) })).toEqual(
      schemaError('include', 'include must be at most 512 characters', 'too_big'),
    );
    const at512 = await ws.search({ query: 'alpha', mode: 'find', include: 'one.txt,' + 'x'.repeat(504) });
    expect(at512.groups.map((group) => group.path)).toEqual(['one.txt']);
  });

  describe('cursors', () => {
    it('refuses a cursor never issued', async () => {
      for (const after of ['garbage', '1.AAAAAAAAAAAAAAAAAAAAAA', '0.AAAAAAAAAAAAAAAAAAAAAA', '1', '', '-1.AAAAAAAAAAAAAAAAAAAAAA']) {
        expect(await ws.failure({ query: 'alpha', mode: 'find', limit: '1', after })).toEqual(CURSOR_ERROR);
      }
    });

    it('refuses an issued cursor that was edited', async () => {
      const first = await ws.search({ query: 'alpha', mode: 'find', limit: '1' });
      const [offset, mac] = first.cursor!.split('.');
      expect(offset).toBe('1');
      const flipped = mac!.slice(0, -1) + (mac!.endsWith('A') ? 'B' : 'A');
      expect(await ws.failure({ query: 'alpha', mode: 'find', limit: '1', after: `1.${flipped}` })).toEqual(CURSOR_ERROR);
      expect(await ws.failure({ query: 'alpha', mode: 'find', limit: '1', after: `0.${mac}` })).toEqual(CURSOR_ERROR);
    });

    it('refuses a cursor from another query (another text, mode, switch or include), accepts it for its own', async () => {
      const first = await ws.search({ query: 'alpha', mode: 'find', limit: '1' });
      const after = first.cursor!;
      for (const other of [
        { query: 'alph', mode: 'find' },
        { query: 'alpha', mode: 'files' },
        { query: 'alpha' },
        { query: 'alpha', mode: 'find', literal: 'true' },
        { query: 'alpha', mode: 'find', caseSensitive: 'true' },
        { query: 'alpha', mode: 'find', word: 'true' },
        { query: 'alpha', mode: 'find', includeIgnored: 'true' },
        { query: 'alpha', mode: 'find', include: '.txt' },
      ]) {
        expect(await ws.failure({ ...other, limit: '1', after })).toEqual(CURSOR_ERROR);
      }
      // `limit` is not part of the query: a later page may ask for more files.
      const second = await ws.search({ query: 'alpha', mode: 'find', limit: '5', after });
      expect(second.groups.map((group) => group.path)).toEqual(['two.txt']);
    });

    it('refuses a cursor issued by another app instance over the same files', async () => {
      const other = await openSearch(backend, SEED);
      try {
        const foreign = (await other.search({ query: 'alpha', mode: 'find', limit: '1' })).cursor!;
        expect(await ws.failure({ query: 'alpha', mode: 'find', limit: '1', after: foreign })).toEqual(CURSOR_ERROR);
        // And it is good where it came from.
        expect((await other.search({ query: 'alpha', mode: 'find', limit: '1', after: foreign })).groups.map((g) => g.path)).toEqual(['two.txt']);
      } finally {
        await other.cleanup();
      }
    });
  });

  it('ignores unknown parameters', async () => {
    const plain = await ws.search({ query: 'alpha', mode: 'find' });
    const response = await ws.fixture.app.fetch(
      request('/workspace/search?query=alpha&mode=find&frobnicate=1&agent=nobody&regex=true&limit_=0'),
    );
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual(plain);
  });

  it('never sends null: optional keys are absent from the JSON text', async () => {
    const response = await ws.fixture.app.fetch(request('/workspace/search?query=nothing-matches-this&mode=find'));
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    const text = await response.text();
    expect(text).not.toContain('null');
    expect(Object.keys(JSON.parse(text)).sort()).toEqual(['files', 'freshness', 'groups', 'hint', 'mode', 'shown', 'total', 'truncated']);
  });
});

describe.each(BACKENDS)('bad input is refused before any work (%s)', (backend) => {
  it('a fresh app that only got bad requests has not started its file list', async () => {
    const ws = await openBuilding(backend, SEED);
    try {
      for (const input of [
        { query: 'a' },
        { query: 'alpha', mode: 'nope' },
        { query: 'alpha', limit: '0' },
        { query: 'alpha', literal: 'maybe' },
        { query: 'alpha', include: 'i'.repeat(513) },
        { query: 'alpha', after: 'garbage' },
      ]) {
        expect((await ws.failure(input)).status).toBe(400);
      }
      expect(ws.fixture.app.search.readyFileList()).toBeUndefined();
      // A good request starts it.
      expect((await ws.search({ query: 'alpha', mode: 'files' })).total).toBe(0);
      expect(ws.fixture.app.search.readyFileList()).toBeDefined();
    } finally {
      await ws.cleanup();
    }
  });
});
