/**
 * A FileFactsStore (core/search/file-facts-store.ts) in a Durable Object's SQLite storage: one table per kind of
 * fact (`search_symbols`, `search_prose`), one row per file — its path, the version the fact was derived from, the
 * fact as JSON. Without them an object restarted after eviction would read and re-derive every file of the
 * workspace for `sym` and prose before its first answer, trigram index or not. A row is written when the engine
 * derives a fact (so on every change it indexes), deleted when the file goes.
 *
 * A table remembers the `format` its rows were derived under (the tokenizer's, the symbol rules'); a store opened
 * with another format (a deployment changed them) empties the table first. A value over MAX_VALUE_BYTES (a fact of
 * a file near the searched-size cap) is offered smaller by the codec, else not stored: that file is derived again
 * after a restart, as without a store. A row that does not decode counts as absent.
 *
 * Edge-clean: no `node:*`, no Cloudflare import; the storage is typed structurally.
 */
import type { DurableObjectSqlStorage } from '../fs/durable-object-file-system.ts';
import type { FileFactsStore } from '../../core/search/file-facts-store.ts';
import type { StoredProse } from '../../core/search/engine/prose-feed.ts';
import type { SymbolDef, SymbolKind } from '../../core/search/symbols/symbol-def.ts';

/** Bytes of JSON one row may hold: well under SQLite's (and the Durable Object's) 2 MB row limit. */
export const MAX_VALUE_BYTES = 1024 * 1024;

export interface FactsCodec<T> {
  /** The encoding's own format: part of the table's (a new encoding empties it too). */
  readonly format: string;
  encode(value: T): string;
  /** Throws for a value it cannot read. */
  decode(json: string): T;
  /** A smaller fact to keep when `value` encodes past MAX_VALUE_BYTES (undefined: keep none). */
  smaller?(value: T): T | undefined;
}

export interface SqlFileFactsStoreOptions<T> {
  /** The table, `search_` and lower-case letters or `_`. */
  table: string;
  /** What derived the facts (the tokenizer's, the rules' version): a table holding another format's is emptied. */
  format: string;
  codec: FactsCodec<T>;
}

const encoder = new TextEncoder();

export class SqlFileFactsStore<T> implements FileFactsStore<T> {
  private readonly table: string;
  private readonly codec: FactsCodec<T>;

  constructor(
    private readonly storage: DurableObjectSqlStorage,
    options: SqlFileFactsStoreOptions<T>,
  ) {
    if (!/^search_[a-z_]+$/.test(options.table)) throw new Error(`bad facts table name ${JSON.stringify(options.table)}`);
    this.table = options.table;
    this.codec = options.codec;
    storage.transactionSync(() => {
      this.run('CREATE TABLE IF NOT EXISTS search_facts_formats (name TEXT PRIMARY KEY, format TEXT NOT NULL)');
      this.run(`CREATE TABLE IF NOT EXISTS ${this.table} (path TEXT PRIMARY KEY, version TEXT NOT NULL, value TEXT NOT NULL)`);
      const stored = this.all<{ format: string }>('SELECT format FROM search_facts_formats WHERE name = ?', this.table)[0];
      const format = `${options.format}/${options.codec.format}`;
      if (stored?.format !== format) {
        this.run(`DELETE FROM ${this.table}`);
        this.run('INSERT OR REPLACE INTO search_facts_formats (name, format) VALUES (?, ?)', this.table, format);
      }
    });
  }

  async get(path: string, version: string): Promise<T | undefined> {
    const row = this.all<{ version: string; value: string }>(`SELECT version, value FROM ${this.table} WHERE path = ?`, path)[0];
    if (row === undefined || row.version !== version) return undefined;
    try {
      return this.codec.decode(row.value);
    } catch {
      return undefined; // derived again, and stored afresh
    }
  }

  async put(path: string, version: string, value: T): Promise<void> {
    let json: string | undefined = this.codec.encode(value);
    if (tooBig(json)) {
      const smaller = this.codec.smaller?.(value);
      json = smaller === undefined ? undefined : this.codec.encode(smaller);
    }
    if (json === undefined || tooBig(json)) {
      this.run(`DELETE FROM ${this.table} WHERE path = ?`, path); // an older version's fact must not stay
      return;
    }
    this.run(`INSERT OR REPLACE INTO ${this.table} (path, version, value) VALUES (?, ?, ?)`, path, version, json);
  }

  async remove(path: string): Promise<void> {
    this.run(`DELETE FROM ${this.table} WHERE path = ?`, path);
  }

  async retain(keep: (path: string) => boolean): Promise<void> {
    const gone = this.all<{ path: string }>(`SELECT path FROM ${this.table}`).filter((row) => !keep(row.path));
    if (gone.length === 0) return;
    this.storage.transactionSync(() => {
      for (const { path } of gone) this.run(`DELETE FROM ${this.table} WHERE path = ?`, path);
    });
  }

  private all<R>(query: string, ...bindings: unknown[]): R[] {
    return this.storage.sql.exec(query, ...bindings).toArray() as unknown as R[];
  }

  /** Runs a statement to completion (a cursor left unread might not have run it all). */
  private run(query: string, ...bindings: unknown[]): void {
    this.storage.sql.exec(query, ...bindings).toArray();
  }
}

function tooBig(json: string): boolean {
  // UTF-8 takes at most 3 bytes per UTF-16 code unit: most values are told apart without encoding them.
  if (json.length * 3 <= MAX_VALUE_BYTES) return false;
  return json.length > MAX_VALUE_BYTES || encoder.encode(json).byteLength > MAX_VALUE_BYTES;
}

/**
 * A file's definitions, each a tuple `[name, kind, line, endLine, signature, flags]` (flags: 1 exported, 2
 * heuristic): half the bytes of the objects' own JSON, on tens of thousands of rows.
 */
export const symbolsCodec: FactsCodec<readonly SymbolDef[]> = {
  format: 'tuples-1',
  encode: (defs) =>
    JSON.stringify(defs.map((def) => [def.name, def.kind, def.line, def.endLine, def.signature, (def.exported ? 1 : 0) | (def.heuristic ? 2 : 0)])),
  decode(json) {
    const rows: unknown = JSON.parse(json);
    if (!Array.isArray(rows)) throw new Error('not definitions');
    return rows.map((row: unknown): SymbolDef => {
      if (!Array.isArray(row) || row.length !== 6) throw new Error('not a definition');
      const [name, kind, line, endLine, signature, flags] = row as unknown[];
      if (typeof name !== 'string' || !SYMBOL_KINDS.has(kind as SymbolKind) || typeof signature !== 'string') throw new Error('not a definition');
      if (!Number.isSafeInteger(line) || !Number.isSafeInteger(endLine) || !Number.isSafeInteger(flags)) throw new Error('not a definition');
      return { name, kind: kind as SymbolKind, line: line as number, endLine: endLine as number, signature, exported: ((flags as number) & 1) !== 0, heuristic: ((flags as number) & 2) !== 0 };
    });
  },
};

const SYMBOL_KINDS: ReadonlySet<SymbolKind> = new Set<SymbolKind>(['fn', 'method', 'class', 'type', 'const', 'test']);

/** A file's prose terms as two parallel arrays (terms, frequencies), its length, and its text when kept. */
export const proseCodec: FactsCodec<StoredProse> = {
  format: 'columns-1',
  encode({ terms, text }) {
    return JSON.stringify({ n: terms.length, t: [...terms.counts.keys()], f: [...terms.counts.values()], ...(text === undefined ? {} : { x: text }) });
  },
  decode(json) {
    const { n, t, f, x } = JSON.parse(json) as { n: unknown; t: unknown; f: unknown; x: unknown };
    if (!Number.isSafeInteger(n) || !Array.isArray(t) || !Array.isArray(f) || t.length !== f.length) throw new Error('not prose terms');
    if (x !== undefined && typeof x !== 'string') throw new Error('not a text');
    const counts = new Map<string, number>();
    for (let i = 0; i < t.length; i++) {
      const term: unknown = t[i];
      const count: unknown = f[i];
      if (typeof term !== 'string' || !Number.isSafeInteger(count) || (count as number) < 1) throw new Error('not a term');
      counts.set(term, count as number);
    }
    return { terms: { length: n as number, counts }, ...(x === undefined ? {} : { text: x }) };
  },
  // The text is only a read saved; the terms are what the index needs.
  smaller: ({ terms, text }) => (text === undefined ? undefined : { terms }),
};
