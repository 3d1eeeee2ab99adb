/**
 * Parsed rules files kept across walks, keyed by the file's version: a `.gitignore` read and parsed once is
 * reused by every later walk of the same FileSystem for as long as its version is unchanged. Edge-clean.
 *
 * Why: a tree walk tests every listed entry against the rules (the Linux kernel's root `.gitignore` has ~130
 * patterns); that matching was a third or more of `GET /workspace/tree`'s time. An `ignore` matcher remembers
 * each path it has answered for, and its answers depend on its patterns alone, so the instance kept here answers
 * a path a previous walk already tested with one lookup. Each walk still makes its own IgnoreRules; only the
 * per-file matchers are shared (they are used synchronously and never changed once built).
 *
 * Staleness is ruled out by the key: the backend's `version` changes whenever the content does (NodeFileSystem:
 * mtime-ns, size and inode). The one gap is the backend's own: an outside writer that rewrites a file in
 * place, keeping its size, within the filesystem's timestamp tick leaves the version as it was.
 *
 * Bounded: at most MAX_CACHED_FILES per FileSystem (least recently used dropped first); a matcher's memory of
 * answers grows with the distinct paths tested against it, and is kept for as long as the file is unchanged
 * rather than for one walk (measured: ~14 MiB for one matcher that answered the ~83k paths of a whole Linux kernel
 * tree). Only walks ask these matchers, so those paths are the tree's; a long-lived consumer, asked about every
 * path that comes and goes (temp files' one-off names), asks bounded copies of its own (./ignore-rules.ts).
 */
import type { FileSystem } from '../../adapters/fs/file-system.ts';

export const MAX_CACHED_FILES = 512;

interface CachedRules {
  version: string;
  rules: Promise<unknown>;
}

const byFileSystem = new WeakMap<FileSystem, Map<string, CachedRules>>();

/**
 * The parsed rules file at `path` whose current version is `version`: cached, or built by `parse`. One FileSystem's
 * files are parsed by one reader (./rules-file.ts), so a cached value is always of that reader's type.
 */
export function parsedRules<T>(fs: FileSystem, path: string, version: string, parse: () => Promise<T>): Promise<T> {
  let files = byFileSystem.get(fs);
  if (!files) {
    files = new Map();
    byFileSystem.set(fs, files);
  }
  const cached = files.get(path);
  files.delete(path); // re-inserted below: a Map iterates in insertion order, so the first key is the LRU one
  if (cached?.version === version) {
    files.set(path, cached);
    return cached.rules as Promise<T>;
  }
  const rules = parse();
  const entry: CachedRules = { version, rules };
  files.set(path, entry);
  // A failed read is not an answer to keep.
  entry.rules.catch(() => {
    if (files.get(path) === entry) files.delete(path);
  });
  if (files.size > MAX_CACHED_FILES) files.delete(files.keys().next().value!);
  return rules;
}
