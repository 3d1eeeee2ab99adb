/**
 * The content index's store (core/search/content-index/index-store.ts) in a Durable Object's SQLite storage, beside
 * the workspace's own files (adapters/fs/durable-object-file-system.ts): the manifest and the trigram shards the
 * Node daemon keeps as files in its cache folder (./index-store-disk.ts) are rows here, so an object that restarts
 * (evicted when idle, a deployment) loads its index and re-reads only the files whose version changed.
 *
 * Why the engine's own shards rather than FTS5: the engine's trigram index answers a superset of the files a
 * `find` regex, literal, word or case-insensitive query can match, with the phrase masks that keep it narrow, and
 * the scanner verifies each candidate; every mode's answer is then the scan's by construction. FTS5's trigram
 * tokenizer folds case by Unicode (not the engine's ASCII folding plus its `k`/`s` variants), offers LIKE/GLOB
 * rather than RE2 regexes, and would be a second index to keep sound. Storing the shards reuses all of that.
 *
 * Layout (three tables of their own, `search_index_*`):
 * - `search_index_manifest`: the manifest's bytes in parts, replaced whole in one transaction.
 * - `search_index_shards`: one row per stored shard (its name and size): what `shardNames` lists.
 * - `search_index_parts`: a shard's bytes in parts of PART_BYTES, so no value comes near SQLite's 2 MB row limit
 *   and reading one posting list loads only the part(s) it overlaps, not the shard.
 * A shard is written in one transaction. A shard removed while a query still reads it (the index retires merged
 * shards once its queries end) leaves the shards table at once and its parts when the last reader closes, as an
 * unlinked file stays readable through an open descriptor; parts no shard row names are deleted when the store is
 * first opened over a storage (the isolate died while one was open).
 *
 * Edge-clean: no `node:*`, no Cloudflare import; the storage is typed structurally.
 */
import type { DurableObjectSqlStorage } from '../fs/durable-object-file-system.ts';
import type { ByteSource } from '../../core/search/content-index/byte-source.ts';
import type { IndexStore } from '../../core/search/content-index/index-store.ts';
import { CorruptIndexError } from '../../core/search/content-index/shard-format.ts';

/**
 * Bytes per stored part. A posting list is read by loading the parts it overlaps whole (SQLite reads a BLOB value
 * whole), so parts are small; a shard's trigram table (read once, when the shard opens) spans many.
 */
export const PART_BYTES = 64 * 1024;

const SCHEMA = [
  'CREATE TABLE IF NOT EXISTS search_index_manifest (part INTEGER PRIMARY KEY, bytes BLOB NOT NULL)',
  'CREATE TABLE IF NOT EXISTS search_index_shards (name TEXT PRIMARY KEY, size INTEGER NOT NULL)',
  `CREATE TABLE IF NOT EXISTS search_index_parts (
    name TEXT NOT NULL,
    part INTEGER NOT NULL,
    bytes BLOB NOT NULL,
    PRIMARY KEY (name, part)
  )`,
];

/** Per storage: how many open sources read each shard (every store over one storage must see them). */
const readersOf = new WeakMap<DurableObjectSqlStorage, Map<string, number>>();

export class SqlIndexStore implements IndexStore {
  private readonly readers: Map<string, number>;

  constructor(private readonly storage: DurableObjectSqlStorage) {
    let readers = readersOf.get(storage);
    if (readers === undefined) {
      readers = new Map();
      readersOf.set(storage, readers);
      storage.transactionSync(() => {
        for (const statement of SCHEMA) this.run(statement);
        // No source is open yet over this storage: parts of a removed shard are garbage.
        this.run('DELETE FROM search_index_parts WHERE name NOT IN (SELECT name FROM search_index_shards)');
      });
    }
    this.readers = readers;
  }

  async readManifest(): Promise<Uint8Array | undefined> {
    const rows = this.all<{ bytes: ArrayBuffer }>('SELECT bytes FROM search_index_manifest ORDER BY part');
    return rows.length === 0 ? undefined : concat(rows.map((row) => new Uint8Array(row.bytes)));
  }

  async writeManifest(bytes: Uint8Array): Promise<void> {
    this.storage.transactionSync(() => {
      this.run('DELETE FROM search_index_manifest');
      forEachPart(bytes, (part, slice) => this.run('INSERT INTO search_index_manifest (part, bytes) VALUES (?, ?)', part, slice));
    });
  }

  async writeShard(name: string, bytes: Uint8Array): Promise<void> {
    this.storage.transactionSync(() => {
      // The index never reuses a name; a leftover of one is replaced whole.
      this.run('DELETE FROM search_index_parts WHERE name = ?', name);
      forEachPart(bytes, (part, slice) =>
        this.run('INSERT INTO search_index_parts (name, part, bytes) VALUES (?, ?, ?)', name, part, slice),
      );
      this.run('INSERT OR REPLACE INTO search_index_shards (name, size) VALUES (?, ?)', name, bytes.byteLength);
    });
  }

  async openShard(name: string): Promise<ByteSource> {
    const row = this.all<{ size: number }>('SELECT size FROM search_index_shards WHERE name = ?', name)[0];
    if (row === undefined) throw new Error(`no shard ${name}`);
    return this.source(name, row.size);
  }

  async removeShard(name: string): Promise<void> {
    this.storage.transactionSync(() => {
      this.run('DELETE FROM search_index_shards WHERE name = ?', name);
      if (!this.readers.has(name)) this.run('DELETE FROM search_index_parts WHERE name = ?', name);
    });
  }

  async shardNames(): Promise<string[]> {
    return this.all<{ name: string }>('SELECT name FROM search_index_shards').map((row) => row.name);
  }

  async clear(): Promise<void> {
    this.storage.transactionSync(() => {
      this.run('DELETE FROM search_index_manifest');
      this.run('DELETE FROM search_index_shards');
      this.run('DELETE FROM search_index_parts');
    });
  }

  /** Bytes stored for the index (the manifest and every shard's parts), for diagnostics and tests. */
  storedBytes(): number {
    const row = this.all<{ bytes: number | null }>(
      `SELECT (SELECT coalesce(sum(length(bytes)), 0) FROM search_index_manifest) +
        (SELECT coalesce(sum(length(bytes)), 0) FROM search_index_parts) AS bytes`,
    )[0];
    return row?.bytes ?? 0;
  }

  /** A reader of one shard's parts; it holds the parts until closed. */
  private source(name: string, size: number): ByteSource {
    this.readers.set(name, (this.readers.get(name) ?? 0) + 1);
    let open = true;
    return {
      size,
      read: async (offset, length) => {
        if (!open) throw new Error('shard closed');
        const end = Math.min(size, offset + length);
        if (end <= offset) return new Uint8Array(0);
        const first = Math.floor(offset / PART_BYTES);
        const last = Math.floor((end - 1) / PART_BYTES);
        const rows = this.all<{ part: number; bytes: ArrayBuffer }>(
          'SELECT part, bytes FROM search_index_parts WHERE name = ? AND part BETWEEN ? AND ? ORDER BY part',
          name,
          first,
          last,
        );
        // A part missing is a damaged shard: the index then distrusts it (its files become candidates again).
        if (rows.length !== last - first + 1) throw new CorruptIndexError(`shard ${name} lacks stored parts`);
        if (rows.length === 1) return new Uint8Array(rows[0]!.bytes, offset - first * PART_BYTES, end - offset);
        const out = new Uint8Array(end - offset);
        for (const row of rows) {
          const at = row.part * PART_BYTES;
          const from = Math.max(offset, at);
          const to = Math.min(end, at + row.bytes.byteLength);
          out.set(new Uint8Array(row.bytes, from - at, to - from), from - offset);
        }
        return out;
      },
      close: async () => {
        if (!open) return;
        open = false;
        const left = this.readers.get(name)! - 1;
        if (left > 0) {
          this.readers.set(name, left);
          return;
        }
        this.readers.delete(name);
        // Removed while open: its parts go now (the shards table, not memory, says whether it was removed).
        if (this.all('SELECT 1 FROM search_index_shards WHERE name = ?', name).length === 0) {
          this.run('DELETE FROM search_index_parts WHERE name = ?', name);
        }
      },
    };
  }

  private all<T>(query: string, ...bindings: unknown[]): T[] {
    return this.storage.sql.exec(query, ...bindings).toArray() as unknown as T[];
  }

  /** Runs a statement to completion (a cursor left unread might not have run it all). */
  private run(query: string, ...bindings: unknown[]): void {
    this.storage.sql.exec(query, ...bindings).toArray();
  }
}

function forEachPart(bytes: Uint8Array, each: (part: number, slice: Uint8Array) => void): void {
  for (let at = 0, part = 0; at < bytes.byteLength || part === 0; at += PART_BYTES, part++) {
    each(part, bytes.subarray(at, Math.min(bytes.byteLength, at + PART_BYTES)));
  }
}

function concat(parts: readonly Uint8Array[]): Uint8Array {
  if (parts.length === 1) return parts[0]!;
  const out = new Uint8Array(parts.reduce((sum, part) => sum + part.byteLength, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.byteLength;
  }
  return out;
}
