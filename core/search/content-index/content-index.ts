/**
 * The content index: which files may contain a literal, from trigram posting lists (Google Code Search, zoekt).
 * It answers with a SUPERSET of the files that can match; the engine verifies them against their bytes.
 *
 * Files get ids in the order they are indexed. The first pass (or a warm start with many changes) builds shards
 * through an IndexBuilder; afterwards a changed file gets a new id in a small in-memory delta (its sorted
 * trigrams) and its old id simply stops being referenced by the file table (a tombstone); the delta becomes a
 * shard when it grows. The manifest (file table + shard names) is rewritten after each shard, so a restart loads
 * it, re-indexes only the files whose version differs, and is warm.
 *
 * Soundness rules: a file the index has not caught up with (new, changed, unknown version, unreadable) is always a
 * candidate; a file over 1 MiB is never one, nor one with a NUL (text matching skips it) unless the plan asks
 * for binary files too (`def` looks for the source files holding a name: those with a NUL are still parsed).
 */
import { MAX_SEARCHED_FILE_BYTES } from '../answer.ts';
import { createInProcessBuilder, indexFileBytes, type IndexBuilder } from './index-builder.ts';
import { FileFlags, type IndexEntry } from './index-entry.ts';
import type { IndexStore } from './index-store.ts';
import { decodeManifest, encodeManifest, type ManifestFiles } from './manifest.ts';
import { shardCandidates, trigramQuery, trigramSetMayMatch, type IndexPlan } from './plan.ts';
import { PostingsCache } from './postings-cache.ts';
import { Shard } from './shard.ts';
import { CorruptIndexError } from './shard-format.ts';
import { ShardBuilder } from './shard-builder.ts';
import { mergeShards } from './shard-merge.ts';
import { TrigramCollector, type SortedTrigrams } from './trigrams.ts';

export type { IndexEntry } from './index-entry.ts';
export type { IndexPlan } from './plan.ts';

export interface ContentIndexStatus {
  state: 'building' | 'ready';
  /** 0..1, of the first pass. */
  progress: number;
  indexedFiles: number;
  /** Files changed, added or removed that the index has not caught up with yet. */
  pending: number;
  readyAt?: number;
  /** When `pending` last reached 0. */
  lastCaughtUpAt?: number;
  /** Why the last pass or update failed (the index then answers with more candidates, never fewer). */
  error?: string;
}

export interface ContentIndex {
  status(): ContentIndexStatus;
  /**
   * The files among `universe` that may match; every file of `universe` the index has not caught up with (new,
   * changed, unknown version) is included. Before the index is ready: every file of `universe` (≤ 1 MiB).
   */
  candidates(plan: IndexPlan, universe: readonly IndexEntry[]): Promise<IndexEntry[]>;
  /**
   * Files changed or removed (from the live file list's events); re-indexed in the background, batched. A file
   * given at the version already indexed costs nothing.
   */
  update(changed: readonly IndexEntry[], removed: readonly string[]): void;
  /**
   * The list may have changed in ways its events did not say (a `reset`): compares `files()` with the index,
   * re-indexes what differs and forgets what is no longer listed.
   */
  resync(): void;
  /** What the index holds in memory and on storage, for benchmarks and diagnostics. */
  footprint(): ContentIndexFootprint;
  /** Resolves once nothing is pending (tests and benchmarks). */
  settled(): Promise<void>;
  close(): Promise<void>;
}

export interface ContentIndexFootprint {
  shards: number;
  /** Bytes of trigram tables held in memory. */
  tableBytes: number;
  storedBytes: number;
  deltaFiles: number;
  deltaTrigrams: number;
  /** Decoded posting ids held by the cache (4 bytes each). */
  cachedIds: number;
}

export interface ContentIndexOptions {
  /** The files to index: the live list's non-ignored files. */
  files: () => readonly IndexEntry[];
  /** A file's bytes, or undefined when it cannot be read (gone, or not a file any more). */
  read: (entry: IndexEntry) => Promise<Uint8Array | undefined>;
  store: IndexStore;
  /** Builds shards off the event loop (Node: a worker pool). Default: in-process, in slices. */
  builder?: IndexBuilder;
  onProgress?(status: ContentIndexStatus): void;
  /** How long updates are gathered before they are indexed, ms (default 25). */
  batchMs?: number;
  /** Files in the in-memory delta before it becomes a shard (default 2000). */
  deltaMaxFiles?: number;
  /** Decoded postings kept for later queries, in ids (default 2.5M: 15 MiB with their masks, 6 bytes each). */
  cachedPostings?: number;
  /**
   * Build without the dense 2^24 scratch tables, in smaller shards (./index-builder.ts InProcessBuilderOptions):
   * the default builder, the delta and its flushes. For a runtime with a small memory limit (Workers).
   */
  compact?: boolean;
  now?: () => number;
}

interface FileRecord {
  id: number;
  size: number;
  version: string;
  flags: number;
}

/** This many changed files at once go to the builder (new shards) rather than to the delta. */
const BULK_FILES = 2000;
/** The delta becomes a shard at this many files or trigrams (≈4 bytes each in memory). */
const DELTA_MAX_FILES = 2000;
const DELTA_MAX_TRIGRAMS = 4_000_000;
const SLICE_MS = 8;
/** A delta or merged shard stored in fewer bytes is small; this many small ones are merged into one. */
const SMALL_SHARD_BYTES = 8 * 1024 * 1024;
const MERGE_SMALL_SHARDS = 8;

/** Per file of a universe: the id to look up, or one of these. */
const ALWAYS = -1;
const NEVER = -2;
/** Holds a NUL (and is not over the size cap): a candidate only for a plan that wants binary files. */
const BINARY = -3;

function everyId(shard: Shard): Uint32Array {
  const ids = new Uint32Array(shard.span);
  for (let i = 0; i < ids.length; i++) ids[i] = shard.base + i;
  return ids;
}

const yieldToEventLoop = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

export function createContentIndex(options: ContentIndexOptions): ContentIndex {
  return new TrigramContentIndex(options);
}

class TrigramContentIndex implements ContentIndex {
  private readonly records = new Map<string, FileRecord>();
  private shards: Shard[] = [];
  private readonly delta = new Map<number, SortedTrigrams>();
  private deltaTrigrams = 0;
  private nextId = 0;
  private readonly queue = new Map<string, IndexEntry | null>();
  private inFlight = 0;
  private state: 'building' | 'ready' = 'building';
  private progress = 0;
  private readyAt: number | undefined;
  private lastCaughtUpAt: number | undefined;
  /** Bumps whenever a record changes: the key of the per-universe lookup cache. */
  private generation = 0;
  private readonly universes = new WeakMap<readonly IndexEntry[], { generation: number; slots: Int32Array; fold: Uint8Array }>();
  private readonly builder: IndexBuilder;
  private readonly cache: PostingsCache;
  /** For the delta: made on demand and dropped once caught up (its mask table is 32 MiB once touched). */
  private collector: TrigramCollector | undefined;
  private readonly abort = new AbortController();
  private readonly now: () => number;
  private work: Promise<void>;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private closed = false;
  private shardSerial = 0;
  private sliceStart = 0;
  /** Shards replaced while queries may still read them: closed once none is running. */
  private retired: Shard[] = [];
  private activeQueries = 0;
  private idle: { promise: Promise<void>; resolve: () => void } | undefined;
  private failure: string | undefined;
  private resyncWhenReady = false;
  private resyncing = 0;

  constructor(private readonly options: ContentIndexOptions) {
    this.builder = options.builder ?? createInProcessBuilder(options.read, { compact: options.compact ?? false });
    this.cache = new PostingsCache(options.cachedPostings ?? 2.5 * 1024 * 1024);
    this.now = options.now ?? Date.now;
    this.work = this.start().catch((error) => {
      // The first pass failed (a worker died, the store is not writable): the index stays `building`, which
      // the engine answers by scanning; waiters are released and the reason shows in the status.
      this.failure = error instanceof Error ? error.message : String(error);
      this.progress = 0;
      const idle = this.idle;
      this.idle = undefined;
      idle?.resolve();
    });
  }

  status(): ContentIndexStatus {
    const status: ContentIndexStatus = {
      state: this.state,
      progress: this.state === 'ready' ? 1 : this.progress,
      indexedFiles: this.records.size,
      pending: this.queue.size + this.inFlight,
    };
    if (this.readyAt !== undefined) status.readyAt = this.readyAt;
    if (this.lastCaughtUpAt !== undefined) status.lastCaughtUpAt = this.lastCaughtUpAt;
    if (this.failure !== undefined) status.error = this.failure;
    return status;
  }

  footprint(): ContentIndexFootprint {
    return {
      shards: this.shards.length,
      tableBytes: this.shards.reduce((sum, shard) => sum + shard.residentBytes, 0),
      storedBytes: this.shards.reduce((sum, shard) => sum + shard.storedBytes, 0),
      deltaFiles: this.delta.size,
      deltaTrigrams: this.deltaTrigrams,
      cachedIds: this.cache.heldIds,
    };
  }

  async candidates(plan: IndexPlan, universe: readonly IndexEntry[]): Promise<IndexEntry[]> {
    if (this.state !== 'ready') return universe.filter((entry) => entry.size <= MAX_SEARCHED_FILE_BYTES);
    this.activeQueries++;
    try {
      return await this.lookup(plan, universe);
    } finally {
      if (--this.activeQueries === 0) this.closeRetired();
    }
  }

  private async lookup(plan: IndexPlan, universe: readonly IndexEntry[]): Promise<IndexEntry[]> {
    const { slots, fold } = this.slotsOf(universe);
    const always = (slot: number) => slot === ALWAYS || (slot === BINARY && plan.binary === true);
    const query = trigramQuery(plan);
    if (query === undefined) return universe.filter((_entry, i) => always(slots[i]!) || slots[i]! >= 0);
    // The delta and the shard list are read before the first await: a flush moving files from one to the
    // other meanwhile must not hide them from this query.
    const marked = new Uint8Array(this.nextId);
    for (const [id, { trigrams }] of this.delta) if (trigramSetMayMatch(trigrams, query)) marked[id] = 1;
    const shards = this.shards;
    const lists = await Promise.all(
      shards.map((shard) =>
        shardCandidates(shard, query).catch((error: unknown) => {
          if (!(error instanceof CorruptIndexError)) throw error;
          this.distrust(shard);
          return everyId(shard); // this query: every file the shard covered may match
        }),
      ),
    );
    for (const ids of lists) for (let i = 0; i < ids.length; i++) marked[ids[i]!] = 1;
    const foldCounts = !plan.caseSensitive;
    const out: IndexEntry[] = [];
    for (let i = 0; i < universe.length; i++) {
      const slot = slots[i]!;
      if (always(slot) || (slot >= 0 && (marked[slot] === 1 || (foldCounts && fold[i] === 1)))) out.push(universe[i]!);
    }
    return out;
  }

  update(changed: readonly IndexEntry[], removed: readonly string[]): void {
    if (this.closed) return;
    for (const path of removed) this.queue.set(path, null);
    for (const entry of changed) {
      const record = this.records.get(entry.path);
      // Already indexed at this version (a repeat, or a whole list handed over): nothing to read.
      if (record?.version === entry.version && record.size === entry.size && !this.queue.has(entry.path)) continue;
      this.queue.set(entry.path, entry);
    }
    this.generation++;
    if (this.state === 'ready') this.scheduleDrain();
  }

  resync(): void {
    if (this.closed) return;
    if (this.state !== 'ready') {
      this.resyncWhenReady = true; // the first pass read the list when it began: compare again when it ends
      return;
    }
    this.resyncing++;
    this.work = this.work
      .then(() => this.reconcile())
      .catch(() => {})
      .finally(() => {
        this.resyncing--;
        if (this.queue.size > 0) this.scheduleDrain();
        else if (this.resyncing === 0) this.caughtUp();
      });
  }

  settled(): Promise<void> {
    const startFailed = this.state === 'building' && this.failure !== undefined;
    if (startFailed || this.closed || (this.state === 'ready' && this.queue.size === 0 && this.inFlight === 0 && this.timer === undefined && this.resyncing === 0)) {
      return Promise.resolve();
    }
    if (this.idle === undefined) {
      let resolve!: () => void;
      const promise = new Promise<void>((r) => (resolve = r));
      this.idle = { promise, resolve };
    }
    return this.idle.promise;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.abort.abort();
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    await this.work.catch(() => {});
    // The delta becomes a shard, so the next start need not re-read its files.
    if (this.state === 'ready') await (this.delta.size > 0 ? this.flushDelta() : this.saveManifest()).catch(() => {});
    await Promise.all(this.shards.map((shard) => shard.close().catch(() => {})));
    this.shards = [];
    this.closeRetired();
    await this.builder.close();
    this.idle?.resolve();
  }

  // --- the first pass ---------------------------------------------------------------------------------------

  private async start(): Promise<void> {
    if (!(await this.warmStart())) await this.coldBuild();
    if (this.closed) return;
    if (this.resyncWhenReady) await this.reconcile();
    this.state = 'ready';
    this.readyAt = this.now();
    this.generation++;
    this.options.onProgress?.(this.status());
    if (this.queue.size > 0) this.scheduleDrain();
    else this.caughtUp();
  }

  /** Loads the stored index and queues what differs from the live list; false when there is none usable. */
  private async warmStart(): Promise<boolean> {
    const store = this.options.store;
    const bytes = await store.readManifest();
    if (bytes === undefined) return false;
    const opened: Shard[] = [];
    try {
      const manifest = await decodeManifest(bytes, () => this.pause());
      for (const name of manifest.shards) {
        opened.push(await Shard.open(name, await store.openShard(name), this.cache));
        await this.pause();
      }
      const covered = new Uint8Array(manifest.nextId);
      for (const shard of opened) {
        if (shard.base + shard.span > manifest.nextId) throw new Error('shard beyond the id range');
        covered.fill(1, shard.base, shard.base + shard.span);
      }
      const { paths, sizes, versions, ids, flags } = manifest;
      for (let i = 0; i < paths.length; i++) {
        if ((flags[i] === FileFlags.text || flags[i] === FileFlags.foldVariant) && covered[ids[i]!] !== 1) {
          throw new Error('file outside every shard');
        }
        this.records.set(paths[i]!, { id: ids[i]!, size: sizes[i]!, version: versions[i]!, flags: flags[i]! });
        if ((i & 1023) === 0) await this.pause();
      }
      this.nextId = manifest.nextId;
    } catch {
      // Damaged, foreign or incomplete: forget it and build afresh.
      await Promise.all(opened.map((shard) => shard.close().catch(() => {})));
      this.records.clear();
      await store.clear();
      return false;
    }
    this.shards = opened;
    const names = new Set(opened.map((shard) => shard.name));
    for (const name of await store.shardNames()) if (!names.has(name)) await store.removeShard(name);
    await this.reconcile();
    return true;
  }

  /** Queues every listed file whose version differs from the indexed one, and every indexed file no longer listed. */
  private async reconcile(): Promise<void> {
    const live = this.options.files();
    const livePaths = new Set<string>();
    for (let i = 0; i < live.length; i++) {
      const entry = live[i]!;
      livePaths.add(entry.path);
      const record = this.records.get(entry.path);
      if (record === undefined || record.version !== entry.version || record.size !== entry.size) {
        this.queue.set(entry.path, entry);
      } else if (record !== undefined && !this.queue.has(entry.path)) {
        // Re-keyed by the live list's own string: later lookups by its entries compare by identity.
        this.records.delete(entry.path);
        this.records.set(entry.path, record);
      }
      if ((i & 1023) === 0) await this.pause();
    }
    for (const path of this.records.keys()) if (!livePaths.has(path)) this.queue.set(path, null);
    this.generation++;
  }

  private async coldBuild(): Promise<void> {
    const files = this.options.files();
    const total = files.length;
    await this.indexBulk(files, (done) => {
      this.progress = total === 0 ? 1 : done / total;
      this.options.onProgress?.(this.status());
    });
  }

  /** Indexes many files through the builder into new shards, then saves the manifest. */
  private async indexBulk(files: readonly IndexEntry[], onProgress: (done: number) => void): Promise<void> {
    const firstId = this.nextId;
    this.nextId += files.length;
    const result = await this.builder.build(
      { files, firstId, shardName: (base, span) => this.shardName('b', base, span), signal: this.abort.signal },
      onProgress,
    );
    for (const built of result.shards) {
      if (built.bytes !== undefined) await this.options.store.writeShard(built.name, built.bytes);
      this.shards.push(await Shard.open(built.name, await this.options.store.openShard(built.name), this.cache));
      await this.pause();
    }
    for (let i = 0; i < files.length; i++) {
      const entry = files[i]!;
      this.forget(entry.path);
      this.records.set(entry.path, { id: firstId + i, size: entry.size, version: entry.version, flags: result.flags[i]! });
      if ((i & 1023) === 0) await this.pause();
    }
    this.generation++;
    await this.saveManifest();
  }

  // --- keeping up -------------------------------------------------------------------------------------------

  private scheduleDrain(): void {
    if (this.timer !== undefined || this.closed) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.work = this.work.then(() => this.drain()).catch(() => {});
    }, this.options.batchMs ?? 25);
  }

  private async drain(): Promise<void> {
    if (this.closed) return;
    const batch = [...this.queue];
    this.queue.clear();
    this.inFlight = batch.length;
    const changed: IndexEntry[] = [];
    for (const [path, entry] of batch) {
      if (entry === null) {
        this.forget(path);
        this.inFlight--;
      } else changed.push(entry);
    }
    this.generation++;
    try {
      if (changed.length >= BULK_FILES) {
        await this.indexBulk(changed, () => {});
      } else {
        for (const entry of changed) {
          if (this.closed) return;
          await this.indexIntoDelta(entry);
          this.inFlight--;
          await this.pause();
        }
        if (this.delta.size >= (this.options.deltaMaxFiles ?? DELTA_MAX_FILES) || this.deltaTrigrams >= DELTA_MAX_TRIGRAMS) {
          await this.flushDelta();
        }
      }
    } catch (error) {
      // A failed shard write or build: files not re-indexed keep their old record, so their listed version
      // differs and they stay candidates; the delta stays in memory. Sound, only less narrow.
      this.failure = error instanceof Error ? error.message : String(error);
    } finally {
      this.inFlight = 0;
      this.generation++;
    }
    if (this.closed) return;
    if (this.queue.size > 0) this.scheduleDrain();
    else if (this.resyncing === 0) this.caughtUp();
  }

  private caughtUp(): void {
    this.lastCaughtUpAt = this.now();
    this.collector = undefined;
    this.options.onProgress?.(this.status());
    const idle = this.idle;
    this.idle = undefined;
    idle?.resolve();
  }

  private async indexIntoDelta(entry: IndexEntry): Promise<void> {
    const bytes = entry.size <= MAX_SEARCHED_FILE_BYTES ? await this.options.read(entry).catch(() => undefined) : undefined;
    const length = entry.size > MAX_SEARCHED_FILE_BYTES ? entry.size : (bytes?.length ?? 0);
    const id = this.nextId++;
    let trigrams: SortedTrigrams | undefined;
    const collector = (this.collector ??= new TrigramCollector(this.options.compact ?? false));
    const flags = indexFileBytes(bytes, length, collector, (_trigrams, _masks, count) => {
      trigrams = collector.sortedCopy(count);
    });
    this.forget(entry.path);
    this.records.set(entry.path, { id, size: entry.size, version: entry.version, flags });
    if (trigrams !== undefined) {
      this.delta.set(id, trigrams);
      this.deltaTrigrams += trigrams.trigrams.length;
    }
  }

  /** Drops a path's record: its old id stays in its shard, referenced by nothing (a tombstone). */
  private forget(path: string): void {
    const record = this.records.get(path);
    if (record === undefined) return;
    this.records.delete(path);
    const trigrams = this.delta.get(record.id);
    if (trigrams !== undefined) {
      this.delta.delete(record.id);
      this.deltaTrigrams -= trigrams.trigrams.length;
    }
  }

  private async flushDelta(): Promise<void> {
    if (this.delta.size === 0) return;
    const ids = [...this.delta.keys()].sort((a, b) => a - b);
    const base = ids[0]!;
    const span = ids[ids.length - 1]! - base + 1;
    const builder = new ShardBuilder(false, this.options.compact ?? false);
    for (const id of ids) {
      const { trigrams, masks } = this.delta.get(id)!;
      builder.add(id - base, trigrams, masks, trigrams.length);
    }
    const bytes = builder.finish(base, span);
    builder.release();
    const name = this.shardName('d', base, span);
    await this.options.store.writeShard(name, bytes);
    this.shards.push(await Shard.open(name, await this.options.store.openShard(name), this.cache));
    for (const id of ids) this.delta.delete(id);
    this.deltaTrigrams = 0;
    await this.saveManifest();
    await this.mergeSmallShards();
  }

  private async mergeSmallShards(): Promise<void> {
    // Bulk shards are large by design (SHARD_TEXT_BYTES of text): never merged, so a merge stays small.
    const small = this.shards.filter((shard) => !shard.name.startsWith('b') && shard.storedBytes < SMALL_SHARD_BYTES);
    if (small.length < MERGE_SMALL_SHARDS) return;
    const live = this.liveIds();
    const bytes = await mergeShards(small, live, () => this.pause());
    const merged = new Set(small);
    const kept = this.shards.filter((shard) => !merged.has(shard));
    if (bytes !== undefined) {
      const name = this.shardName('m', small[0]!.base, bytes.length);
      await this.options.store.writeShard(name, bytes);
      kept.push(await Shard.open(name, await this.options.store.openShard(name), this.cache));
    }
    // Swapped in one step: a query in flight holds the old array and its shards stay open until saved below.
    this.shards = kept;
    await this.saveManifest();
    for (const shard of small) await this.retire(shard);
  }

  /**
   * A shard whose postings turned out damaged: it goes, its files are forgotten (so they are candidates of every
   * query) and re-read through a resync, which indexes every listed file the index no longer knows.
   */
  private distrust(shard: Shard): void {
    if (this.closed || !this.shards.includes(shard)) return;
    this.shards = this.shards.filter((kept) => kept !== shard);
    const end = shard.base + shard.span;
    for (const [path, record] of this.records) {
      if (record.id >= shard.base && record.id < end && !this.delta.has(record.id)) this.records.delete(path);
    }
    this.generation++;
    this.failure = `index shard ${shard.name} was damaged; its files are being re-read`;
    void this.retire(shard).catch(() => {});
    this.resync();
  }

  /** Takes a shard out of storage; its reader closes once no query is using it. */
  private async retire(shard: Shard): Promise<void> {
    await this.options.store.removeShard(shard.name);
    this.retired.push(shard);
    if (this.activeQueries === 0) this.closeRetired();
  }

  private closeRetired(): void {
    for (const shard of this.retired.splice(0)) void shard.close().catch(() => {});
  }

  /** Ids a file record points at: what the shards must keep. */
  private liveIds(): Uint8Array {
    const live = new Uint8Array(this.nextId);
    for (const record of this.records.values()) live[record.id] = 1;
    return live;
  }

  /** Writes the file table (minus the delta's files, which a restart re-reads) and drops shards nothing uses. */
  private async saveManifest(): Promise<void> {
    const live = this.liveIds();
    const files: ManifestFiles = { paths: [], sizes: [], versions: [], ids: [], flags: [] };
    for (const [path, record] of this.records) {
      if (this.delta.has(record.id)) continue;
      if ((files.paths.length & 1023) === 0) await this.pause();
      files.paths.push(path);
      files.sizes.push(record.size);
      files.versions.push(record.version);
      files.ids.push(record.id);
      files.flags.push(record.flags);
    }
    const kept: Shard[] = [];
    const dropped: Shard[] = [];
    for (const shard of this.shards) {
      (live.subarray(shard.base, shard.base + shard.span).includes(1) ? kept : dropped).push(shard);
    }
    this.shards = kept;
    await this.options.store.writeManifest(
      await encodeManifest({ nextId: this.nextId, shards: kept.map((shard) => shard.name), ...files }, () => this.pause()),
    );
    for (const shard of dropped) await this.retire(shard);
  }

  /** Yields to the event loop once SLICE_MS of work has passed since the last yield, so requests keep flowing. */
  private async pause(): Promise<void> {
    if (Date.now() - this.sliceStart < SLICE_MS) return;
    await yieldToEventLoop();
    this.sliceStart = Date.now();
  }

  /** `origin`: b (bulk build), d (delta flush), m (merged); only d and m shards are merged. */
  private shardName(origin: 'b' | 'd' | 'm', base: number, span: number): string {
    return `${origin}${base}-${span}-${this.now().toString(36)}${(this.shardSerial++).toString(36)}`;
  }

  /** Per file of `universe`: the id to look up, ALWAYS or NEVER; cached while the index is unchanged. */
  private slotsOf(universe: readonly IndexEntry[]): { slots: Int32Array; fold: Uint8Array } {
    const cached = this.universes.get(universe);
    if (cached !== undefined && cached.generation === this.generation) return cached;
    const slots = new Int32Array(universe.length);
    const fold = new Uint8Array(universe.length);
    for (let i = 0; i < universe.length; i++) {
      const entry = universe[i]!;
      const record = this.records.get(entry.path);
      if (entry.size > MAX_SEARCHED_FILE_BYTES) slots[i] = NEVER;
      else if (record === undefined || record.version !== entry.version || this.queue.has(entry.path)) slots[i] = ALWAYS;
      else if (record.flags & FileFlags.unreadable) slots[i] = ALWAYS;
      else if (record.flags & FileFlags.skipped) slots[i] = BINARY; // within the size cap: skipped for its NUL
      else {
        slots[i] = record.id;
        if (record.flags & FileFlags.foldVariant) fold[i] = 1;
      }
    }
    const computed = { generation: this.generation, slots, fold };
    this.universes.set(universe, computed);
    return computed;
  }
}
