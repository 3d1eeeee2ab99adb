/**
 * What the engine derives from one file's bytes — its definitions (./symbols), its prose terms (./prose) — kept
 * between runs by path and version. The content index has its own store (./content-index/index-store.ts); these
 * serve the two parts that otherwise read and re-derive every file each time an engine starts. A runtime whose
 * engine dies with its process while its storage lives on (a Durable Object, evicted when idle: its SQLite store
 * is adapters/search/sql-file-facts-store.ts) hands one per part, so a restarted engine reads no file that has not
 * changed. A fact is used only at the version it was stored for; the engine keeps the store to the listed files.
 */
export interface FileFactsStore<T> {
  /** What was stored for `path` at `version`; undefined when nothing was, or for another version. */
  get(path: string, version: string): Promise<T | undefined>;
  /** Stores `value` for `path` at `version`, replacing what the path had. */
  put(path: string, version: string, value: T): Promise<void>;
  remove(path: string): Promise<void>;
  /** Forgets every path `keep` rejects (files removed, or now ignored, while no engine listened). */
  retain(keep: (path: string) => boolean): Promise<void>;
}
