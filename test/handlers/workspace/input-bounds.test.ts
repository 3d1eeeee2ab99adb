/**
 * Every bounded input of Intentic's calls, as its published contract declares it (min, max, int, enums) and
 * the rule files add (search's `query`/`include`, install's `dirs`, health's `since`/`limit`): a value at the
 * bound gets past the schema, one past it is BAD_REQUEST with the failing key in `data.issues` — before any
 * work, so nothing is walked or written. Driven through Intentic's own client, as its browser calls them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FileSystem } from '../../../adapters/fs/file-system.ts';
import { createFixture, type Fixture } from '../../support/backends.ts';
import type { IntenticClient } from '../../support/intentic-contract.ts';
import { orpcError } from '../../support/intentic-contract.ts';

const AGENT_AT_BOUND = 'a'.repeat(64);
const AGENT_PAST_BOUND = 'a'.repeat(65);

interface Bound {
  /** `call.key`: the input that is bounded. */
  name: string;
  /** The issue's path in `data.issues`. */
  key: string;
  atBound: (client: IntenticClient) => Promise<unknown>;
  pastBound: (client: IntenticClient) => Promise<unknown>;
}

const bound = (name: string, key: string, atBound: Bound['atBound'], pastBound: Bound['pastBound']): Bound => ({ name, key, atBound, pastBound });

// Inputs the contract types as numbers travel as digit strings; the client's types are by-passed where a
// test sends what the contract forbids (the server must refuse it all the same).
const loose = <T>(value: unknown) => value as T;

const BOUNDS: Bound[] = [
  bound('tree.agent', 'agent', (c) => c.workspace.tree({ agent: AGENT_AT_BOUND }), (c) => c.workspace.tree({ agent: AGENT_PAST_BOUND })),
  bound('children.path (≥ 1)', 'path', (c) => c.workspace.children({ path: 'd' }), (c) => c.workspace.children({ path: '' })),
  bound('children.agent', 'agent', (c) => c.workspace.children({ path: 'd', agent: AGENT_AT_BOUND }), (c) => c.workspace.children({ path: 'd', agent: AGENT_PAST_BOUND })),
  bound('file.path (≥ 1)', 'path', (c) => c.workspace.file({ path: 'a.txt' }), (c) => c.workspace.file({ path: '' })),
  bound('file.limit (≥ 1)', 'limit', (c) => c.workspace.file({ path: 'a.txt', limit: 1 }), (c) => c.workspace.file({ path: 'a.txt', limit: 0 })),
  bound('file.offset (an integer)', 'offset', (c) => c.workspace.file({ path: 'a.txt', offset: -1 }), (c) => c.workspace.file({ path: 'a.txt', offset: 1.5 })),
  bound('file.agent', 'agent', (c) => c.workspace.file({ path: 'a.txt', agent: AGENT_AT_BOUND }), (c) => c.workspace.file({ path: 'a.txt', agent: AGENT_PAST_BOUND })),
  bound('resolve.path (≤ 512)', 'path', (c) => c.workspace.resolve({ path: 'x'.repeat(512) }), (c) => c.workspace.resolve({ path: 'x'.repeat(513) })),
  bound('resolve.path (≥ 1)', 'path', (c) => c.workspace.resolve({ path: 'a' }), (c) => c.workspace.resolve({ path: '' })),
  bound('resolve.agent', 'agent', (c) => c.workspace.resolve({ path: 'a.txt', agent: AGENT_AT_BOUND }), (c) => c.workspace.resolve({ path: 'a.txt', agent: AGENT_PAST_BOUND })),
  bound('mediaTicket.path (≥ 1)', 'path', (c) => c.workspace.mediaTicket({ path: 'a.txt' }), (c) => c.workspace.mediaTicket({ path: '' })),
  bound('mediaTicket.agent', 'agent', (c) => c.workspace.mediaTicket({ path: 'a.txt', agent: AGENT_AT_BOUND }), (c) => c.workspace.mediaTicket({ path: 'a.txt', agent: AGENT_PAST_BOUND })),
  bound('mkdir.path (≥ 1)', 'path', (c) => c.workspace.mkdir({ path: 'new' }), (c) => c.workspace.mkdir({ path: '' })),
  bound('mkdir.agent', 'agent', (c) => c.workspace.mkdir({ path: 'new', agent: AGENT_AT_BOUND }), (c) => c.workspace.mkdir({ path: 'new', agent: AGENT_PAST_BOUND })),
  bound('delete.path (≥ 1)', 'path', (c) => c.workspace.delete({ path: 'gone.txt' }), (c) => c.workspace.delete({ path: '' })),
  bound('move.from (≥ 1)', 'from', (c) => c.workspace.move({ from: 'm.txt', to: 'moved.txt' }), (c) => c.workspace.move({ from: '', to: 'moved2.txt' })),
  bound('move.to (≥ 1)', 'to', (c) => c.workspace.move({ from: 'moved.txt', to: 'm.txt' }), (c) => c.workspace.move({ from: 'm.txt', to: '' })),
  bound('copy.from (≥ 1)', 'from', (c) => c.workspace.copy({ from: 'a.txt', to: 'c1.txt' }), (c) => c.workspace.copy({ from: '', to: 'c2.txt' })),
  bound('copy.to (≥ 1)', 'to', (c) => c.workspace.copy({ from: 'a.txt', to: 'c3.txt' }), (c) => c.workspace.copy({ from: 'a.txt', to: '' })),
  bound('search.query (≥ 2)', 'query', (c) => c.workspace.search({ query: 'ab' }), (c) => c.workspace.search({ query: 'a' })),
  bound('search.query (≤ 512)', 'query', (c) => c.workspace.search({ query: 'q'.repeat(512), mode: 'find' }), (c) => c.workspace.search({ query: 'q'.repeat(513), mode: 'find' })),
  bound('search.include (≤ 512)', 'include', (c) => c.workspace.search({ query: 'ab', include: 'i'.repeat(512) }), (c) => c.workspace.search({ query: 'ab', include: 'i'.repeat(513) })),
  bound('search.mode (one of seven)', 'mode', (c) => c.workspace.search({ query: 'ab', mode: 'ast' }), (c) => c.workspace.search({ query: 'ab', mode: loose('ask') })),
  bound('search.limit (≥ 1)', 'limit', (c) => c.workspace.search({ query: 'ab', limit: 1 }), (c) => c.workspace.search({ query: 'ab', limit: 0 })),
  bound('health.repo (≥ 1)', 'repo', (c) => c.workspace.health({ repo: 'root', limit: 1 }), (c) => c.workspace.health({ repo: '' })),
  bound('health.since (≤ 16)', 'since', (c) => c.workspace.health({ repo: 'root', since: '0'.repeat(13) + '30d' }), (c) => c.workspace.health({ repo: 'root', since: '0'.repeat(14) + '30d' })),
  bound('health.limit (≤ 200)', 'limit', (c) => c.workspace.health({ repo: 'root', limit: 200 }), (c) => c.workspace.health({ repo: 'root', limit: 201 })),
  bound('install.dirs (≤ 50)', 'dirs', (c) => c.workspace.install({ dirs: Array(50).fill('') }), (c) => c.workspace.install({ dirs: Array(51).fill('') })),
  bound('install.dirs (≥ 1)', 'dirs', (c) => c.workspace.install({ dirs: [''] }), (c) => c.workspace.install({ dirs: [] })),
  bound('install.dirs[] (≤ 500)', 'dirs.0', (c) => c.workspace.install({ dirs: ['d'.repeat(500)] }), (c) => c.workspace.install({ dirs: ['d'.repeat(501)] })),
];

/** The schema let it through: it answered, or failed for another reason than its input's shape. */
async function passesTheSchema(call: Promise<unknown>): Promise<void> {
  try {
    await call;
  } catch (error) {
    const { code, data } = await orpcError(Promise.reject(error));
    expect({ code, issues: (data as { issues?: unknown } | undefined)?.issues }).not.toMatchObject({ code: 'BAD_REQUEST', issues: expect.anything() });
  }
}

describe('Intentic inputs honour the contract’s bounds', () => {
  let ws: Fixture;
  beforeAll(async () => {
    ws = await createFixture('memory', { 'a.txt': 'alpha\n', 'gone.txt': 'g', 'm.txt': 'm', 'd/x.txt': 'x' });
  });
  afterAll(() => ws.cleanup());

  it.each(BOUNDS.map((b) => [b.name, b] as const))('%s: at the bound it passes, past it BAD_REQUEST with data.issues', async (_, b) => {
    await passesTheSchema(b.atBound(ws.client));
    const before = await ws.tree();
    const refused = await orpcError(b.pastBound(ws.client));
    expect([refused.status, refused.code]).toEqual([400, 'BAD_REQUEST']);
    const issues = (refused.data as { issues?: { path: string[] }[] } | undefined)?.issues;
    expect(issues?.map((issue) => issue.path.join('.'))).toContain(b.key);
    expect(await ws.tree()).toEqual(before); // nothing written
  });
});

describe('a past-bound input is refused before any walk', () => {
  let ws: Fixture;
  const calls: string[] = [];
  beforeAll(async () => {
    // Every FileSystem call the app makes, by method name.
    const counting = (fs: FileSystem): FileSystem =>
      new Proxy(fs, {
        get(target, key, receiver) {
          const value = Reflect.get(target, key, receiver);
          if (typeof value !== 'function') return value;
          return (...args: unknown[]) => {
            calls.push(String(key));
            return (value as (...a: unknown[]) => unknown).apply(target, args);
          };
        },
      });
    const seed: Record<string, string> = {};
    for (let i = 0; i < 50; i++) seed[`deep/d${i}/x/y/file${i}.ts`] = 'x';
    ws = await createFixture('memory', seed, { wrap: counting });
  });
  afterAll(() => ws.cleanup());

  it('a 513-character resolve path: BAD_REQUEST with no FileSystem call at all', async () => {
    await ws.client.workspace.resolve({ path: 'a/b' }); // the app's own start-up work is done
    calls.length = 0;
    const refused = await orpcError(ws.client.workspace.resolve({ path: 'x/'.repeat(256) + 'y' }));
    expect([refused.status, refused.code]).toEqual([400, 'BAD_REQUEST']);
    expect(calls).toEqual([]);
    // The same call at the bound does walk (the counter sees it).
    expect(await ws.client.workspace.resolve({ path: 'x/'.repeat(255) + 'yy' })).toEqual({});
    expect(calls.filter((name) => name === 'readdir').length).toBeGreaterThan(0);
  });
});
