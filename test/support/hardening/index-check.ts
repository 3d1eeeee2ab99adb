/**
 * Holds the daemon's own view against the disk (./disk-check.ts), through its routes: the search index (Intentic's
 * `GET /workspace/search`, `find` mode) must find each marker in exactly the files that hold it — every marker at
 * once by their shared prefix, then a sample one by one, superseded versions among them (found nowhere) — and
 * health (`GET /workspace/health?repo=root`) must count the files on disk. Both are asked once they say `fresh`.
 */
import type { DiskCheck } from './disk-check.ts';
import { MARKER_PREFIX } from './versioned-content.ts';
import type { Daemon } from './write-routes.ts';

interface SearchAnswer {
  groups: { path: string; hits: { text: string }[] }[];
  truncated: boolean;
  cursor?: string;
  freshness: { state: string };
}

export interface IndexCheck {
  /** Disagreements between the index or health and the disk, one line each. */
  mismatches: string[];
  searches: number;
  /** How long search and health took to be fresh and answer, ms. */
  searchMs: number;
  healthMs: number;
}

const MARKER = /QZMARK_[A-Za-z0-9_]+/g;

export async function checkIndex(daemon: Daemon, disk: DiskCheck, options: { sample: string[]; timeoutMs?: number }): Promise<IndexCheck> {
  const deadline = Date.now() + (options.timeoutMs ?? 60_000);
  const started = performance.now();
  const result: IndexCheck = { mismatches: [], searches: 0, searchMs: 0, healthMs: 0 };
  const search = async (query: string): Promise<Map<string, string[]>> => {
    const found = new Map<string, string[]>();
    let after: string | undefined;
    for (;;) {
      const params = new URLSearchParams({ query, mode: 'find', literal: 'true', limit: '300', ...(after === undefined ? {} : { after }) });
      const answer = (await get(daemon, `/workspace/search?${params}`)) as SearchAnswer;
      result.searches += 1;
      if (answer.freshness.state !== 'fresh') throw new NotFresh();
      for (const group of answer.groups) found.set(group.path, group.hits.flatMap((hit) => hit.text.match(MARKER) ?? []));
      if (!answer.truncated) return found;
      after = answer.cursor;
    }
  };

  // Waits on a `files` query: it lists names only, where a text search before the index is fresh would scan every
  // file on each poll and slow the very catching-up it waits for.
  await untilFresh(deadline, 'search', async () => {
    const probe = (await get(daemon, `/workspace/search?${new URLSearchParams({ query: 'no-such-file-name', mode: 'files' })}`)) as SearchAnswer;
    if (probe.freshness.state !== 'fresh') throw new NotFresh();
  });
  const everything = await untilFresh(deadline, 'search', () => search(MARKER_PREFIX));
  for (const [path, marker] of disk.markers) {
    const seen = everything.get(path);
    if (seen === undefined || seen.length !== 1 || seen[0] !== marker) result.mismatches.push(`search: ${path} holds ${marker}, the index shows ${seen?.join(' ') ?? 'nothing'}`);
  }
  for (const [path, seen] of everything) {
    if (!disk.markers.has(path)) result.mismatches.push(`search: the index shows ${path} (${seen.join(' ')}), not a whole file on disk`);
  }

  const holders = new Map<string, string[]>();
  for (const [path, marker] of disk.markers) holders.set(marker, [...(holders.get(marker) ?? []), path]);
  for (const marker of options.sample) {
    const found = [...(await untilFresh(deadline, 'search', () => search(marker))).keys()].sort();
    const expected = (holders.get(marker) ?? []).sort();
    if (found.join('\n') !== expected.join('\n')) result.mismatches.push(`search ${marker}: found [${found.join(', ')}], on disk [${expected.join(', ')}]`);
  }

  result.searchMs = performance.now() - started;
  const health = await untilFresh(deadline, 'health', async () => {
    const answer = (await get(daemon, '/workspace/health?repo=root')) as { totals: { files: number }; freshness: { state: string } };
    if (answer.freshness.state !== 'fresh') throw new NotFresh();
    return answer;
  });
  result.healthMs = performance.now() - started - result.searchMs;
  if (health.totals.files !== disk.files) result.mismatches.push(`health: ${health.totals.files} files, ${disk.files} on disk`);
  return result;
}

class NotFresh extends Error {}

/** Asks until the answer is fresh: the index catches up after a restart (no event to wait for over HTTP). */
async function untilFresh<T>(deadline: number, what: string, ask: () => Promise<T>): Promise<T> {
  for (;;) {
    try {
      return await ask();
    } catch (error) {
      if (!(error instanceof NotFresh)) throw error;
      if (Date.now() > deadline) throw new Error(`${what} was not fresh in time`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
}

async function get(daemon: Daemon, target: string): Promise<unknown> {
  const response = await fetch(`${daemon.url}${target}`, { headers: { authorization: `Bearer ${daemon.token}` } });
  if (!response.ok) throw new Error(`GET ${target}: ${response.status} ${await response.text()}`);
  return response.json();
}
