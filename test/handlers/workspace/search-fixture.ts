/**
 * Fixtures for the `/workspace/search` acceptance suite (docs/intentic-search.md). Every call goes through
 * Intentic's client (test/support/intentic-contract.ts: an oRPC OpenAPILink, GET inputs as query strings, the
 * answer checked against the contract's strict schema), over either backend (test/support/backends.ts).
 *
 * Two states of one workspace, because the engine answers from two paths (core/search/engine/text-search.ts):
 * - `openSearch`: settled, so answers come from the content index (`freshness.state: 'fresh'`);
 * - `openBuilding`: the first index pass is held back by a gated builder, so answers come from a full scan
 *   (`'building'`) for as long as the test wants, not for as long as a race happens to last.
 * `searchPair` opens both over the same seed and `both(input)` asserts they give the same answer.
 */
import { expect } from 'vitest';
import type { FileSystem } from '../../../adapters/fs/file-system.ts';
import { ParcelWatcherAdapter } from '../../../adapters/watcher/parcel-watcher-adapter.ts';
import type { SearchAnswer } from '../../../core/search/answer.ts';
import { createInProcessBuilder, type IndexBuilder } from '../../../core/search/content-index/index-builder.ts';
import { createFixture, failure, type BackendName, type Fixture, type FixtureOptions, type Seed } from '../../support/backends.ts';
import type { IntenticClient } from '../../support/intentic-contract.ts';
import { waitFor } from '../../support/processes.ts';
import { request } from '../../support/workspace.ts';

export type SearchInput = Parameters<IntenticClient['workspace']['search']>[0];
export type UncheckedSearchInput = Omit<SearchInput, 'mode'> & { mode?: string };

export interface SearchFixture {
  readonly backend: BackendName;
  readonly fixture: Fixture;
  readonly root: string;
  readonly fs: FileSystem;
  /** One call through Intentic's client; the answer already passed the contract's output schema. */
  search(input: SearchInput): Promise<SearchAnswer>;
  /** The decoded oRPC error of a call that must fail. */
  /** A call that must fail: `mode` may be any string, past what the contract's enum lets a caller type. */
  failure(input: UncheckedSearchInput): Promise<{ code: string; status: number; message: string; data: unknown }>;
  /** Waits until the file list, the content index and the prose index have caught up. */
  settle(): Promise<void>;
  /** Writes a file through the API (`PUT /api/file`), as an editor would. */
  write(path: string, content: string): Promise<void>;
  /** Deletes through Intentic's own call (`DELETE /workspace/entry`). */
  remove(path: string): Promise<void>;
  cleanup(): Promise<void>;
}

export interface OpenOptions extends FixtureOptions {
  /** Node only: the OS watcher (@parcel/watcher) feeds the change feed, so writes made on disk are seen. */
  watch?: boolean;
}

function wrapFixture(fixture: Fixture, release: () => void = () => {}): SearchFixture {
  return {
    backend: fixture.backend,
    fixture,
    root: fixture.root,
    fs: fixture.fs,
    search: (input) => fixture.client.workspace.search(input) as Promise<SearchAnswer>,
    failure: (input) => failure(fixture.client.workspace.search(input as SearchInput)),
    settle: () => fixture.app.search.settled(),
    async write(path, content) {
      const response = await fixture.app.fetch(
        request(`/api/file?path=${encodeURIComponent(path)}`, {
          method: 'PUT',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ content }),
        }),
      );
      expect(response.status).toBe(200);
      await response.body?.cancel();
    },
    async remove(path) {
      expect(await fixture.client.workspace.delete({ path })).toEqual({ ok: true });
    },
    async cleanup() {
      release();
      await fixture.cleanup();
    },
  };
}

/** A settled workspace: the index has read every file, answers are `fresh`. */
export async function openSearch(backend: BackendName, seed: Seed, options: OpenOptions = {}): Promise<SearchFixture> {
  const { watch, ...fixtureOptions } = options;
  const fixture = await createFixture(backend, seed, {
    ...(watch && backend === 'node' ? { watcher: new ParcelWatcherAdapter() } : {}),
    ...fixtureOptions,
  });
  if (watch && backend === 'node') {
    // The feed's first frame waits for every source that is still starting: after it, the watcher sees all.
    const subscription = fixture.app.changes.subscribe();
    expect((await subscription.next()).value).toEqual({ kind: 'ready' });
    subscription.close();
  }
  const opened = wrapFixture(fixture);
  await opened.settle();
  return opened;
}

export interface BuildingOptions extends FixtureOptions {
  /** Files the held builder reports done before it waits (default none: progress 0). */
  doneBeforeGate?: number;
}

/**
 * A workspace whose first index pass does not start until `release()` (or cleanup): every answer before
 * that is a scan, `freshness: { state: 'building', progress: 0 }` (or the share `doneBeforeGate` stands for).
 */
export async function openBuilding(
  backend: BackendName,
  seed: Seed,
  options: BuildingOptions = {},
): Promise<SearchFixture & { release(): void }> {
  const { doneBeforeGate, ...fixtureOptions } = options;
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  let fs: FileSystem | undefined;
  const builder = (): IndexBuilder => {
    const inner = createInProcessBuilder(async (entry) => fs!.read(entry.absolutePath).catch(() => undefined));
    return {
      async build(job, onProgress) {
        if (doneBeforeGate !== undefined) onProgress(doneBeforeGate);
        await gate;
        return inner.build(job, onProgress);
      },
      close: () => inner.close(),
    };
  };
  const fixture = await createFixture(backend, seed, { ...fixtureOptions, search: { ...fixtureOptions.search, indexBuilder: builder() } });
  fs = fixture.fs;
  const wrapped = wrapFixture(fixture, release);
  return {
    ...wrapped,
    // The state this fixture stands for begins once the file list's first walk has ended and the index waits (a
    // search before that walks the disk itself: ./search-walking.test.ts). So a search here starts the engine, as
    // any search does, and is sent once the list is walked; a refused request still starts nothing.
    async search(input) {
      fixture.app.search.start();
      await waitFor(() => fixture.app.search.readyFileList(), { what: "the file list's first walk" });
      return wrapped.search(input);
    },
    release,
  };
}

/**
 * A workspace whose file list is held in its first walk until `release()`: the list's first `readdir` of `held`
 * (an absolute folder; default the root) waits, and `openWalking` returns once it has been called, so the list
 * has not reached that folder's files. Later reads of it (a search's own walk of the disk) pass. Every answer
 * before `release()` comes from that walk: `freshness: { state: 'building', progress: 0 }`.
 */
export async function openWalking(
  backend: BackendName,
  seed: Seed,
  options: FixtureOptions & { held?: (root: string) => string } = {},
): Promise<SearchFixture & { release(): void }> {
  const { held = (root: string) => root, wrap = (fs: FileSystem) => fs, ...fixtureOptions } = options;
  let release!: () => void;
  let reached!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const reachedGate = new Promise<void>((resolve) => (reached = resolve));
  let heldPath: string | undefined;
  let holding = false;
  const holdFirstReaddir = (fs: FileSystem): FileSystem =>
    new Proxy(fs, {
      get(target, key, receiver) {
        const value = Reflect.get(target, key, receiver);
        if (typeof value !== 'function') return value;
        if (key !== 'readdir') return value.bind(target);
        return async (path: string, ...rest: unknown[]) => {
          if (!holding && path === heldPath) {
            holding = true;
            reached();
            await gate;
          }
          return (value as (...args: unknown[]) => unknown).call(target, path, ...rest);
        };
      },
    });
  const fixture = await createFixture(backend, seed, { ...fixtureOptions, wrap: (fs) => holdFirstReaddir(wrap(fs)) });
  heldPath = held(fixture.root);
  fixture.app.search.start();
  await reachedGate;
  return { ...wrapFixture(fixture, release), release };
}

/**
 * The same seed three times: settled (index), building (the list walked, the index held: a scan of the list's
 * files) and walking (the list held in its first walk: a scan of the search's own walk of the disk).
 */
export interface SearchPair {
  readonly fresh: SearchFixture;
  readonly building: SearchFixture;
  readonly walking: SearchFixture;
  /**
   * The answer of the settled workspace, after checking that both scans answer exactly the same (all but
   * `freshness`, and the cursor's signature: each instance signs its own), and that each says where its
   * answer came from.
   */
  both(input: SearchInput): Promise<SearchAnswer>;
  cleanup(): Promise<void>;
}

export async function searchPair(backend: BackendName, seed: Seed): Promise<SearchPair> {
  const [fresh, building, walking] = await Promise.all([openSearch(backend, seed), openBuilding(backend, seed), openWalking(backend, seed)]);
  return {
    fresh,
    building,
    walking,
    async both(input) {
      const [indexed, scanned, walked] = await Promise.all([fresh.search(input), building.search(input), walking.search(input)]);
      expect(indexed.freshness).toEqual(FRESH);
      expect(scanned.freshness).toEqual({ state: 'building', progress: 0 });
      expect(walked.freshness, 'walking').toEqual({ state: 'building', progress: 0 });
      expect(comparable(scanned)).toEqual(comparable(indexed));
      expect(comparable(walked), 'walking').toEqual(comparable(indexed));
      return indexed;
    },
    async cleanup() {
      await Promise.all([fresh.cleanup(), building.cleanup(), walking.cleanup()]);
    },
  };
}

/** What a settled engine says about itself. */
export const FRESH = { state: 'fresh', ageMs: 0 } as const;

export function withoutFreshness(answer: SearchAnswer): Omit<SearchAnswer, 'freshness'> {
  const { freshness: _, ...rest } = answer;
  return rest;
}

/** An answer without what differs between two instances: `freshness`, and the cursor beyond its offset. */
export function comparable(answer: SearchAnswer): Omit<SearchAnswer, 'freshness'> {
  const rest = withoutFreshness(answer);
  if (rest.cursor !== undefined) rest.cursor = rest.cursor.split('.')[0] + '.<signature>';
  return rest;
}

/** One text hit as `find` reports it (tag `text`). */
export function textHit(line: number, text: string, ...matches: string[]): SearchAnswer['groups'][number]['hits'][number] {
  return { line, text, spans: spansOf(text, matches), tags: [{ kind: 'text' }] };
}

/**
 * The spans of `matches` in `text`, each found after the previous one (so a repeated word yields its
 * successive occurrences): written from the text, never from the engine's answer.
 */
export function spansOf(text: string, matches: readonly string[]): { start: number; end: number }[] {
  const spans: { start: number; end: number }[] = [];
  let from = 0;
  for (const match of matches) {
    const start = text.indexOf(match, from);
    if (start < 0) throw new Error(`fixture error: ${JSON.stringify(match)} is not in ${JSON.stringify(text)} after ${from}`);
    spans.push({ start, end: start + match.length });
    from = start + match.length;
  }
  return spans;
}

/** The paths of an answer's groups, in order. */
export function pathsOf(answer: SearchAnswer): string[] {
  return answer.groups.map((group) => group.path);
}

/** Polls a search until `check` holds (a write made on disk reaches the index through the watcher). */
export async function searchUntil(
  opened: SearchFixture,
  input: SearchInput,
  check: (answer: SearchAnswer) => boolean,
  what: string,
): Promise<SearchAnswer> {
  return waitFor(
    async () => {
      const answer = await opened.search(input);
      return check(answer) ? answer : undefined;
    },
    { timeoutMs: 10_000, intervalMs: 50, what },
  );
}
