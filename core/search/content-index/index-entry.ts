/** What the index is told about a file: the live file list's ListedFile, minus what the index does not use. */
export interface IndexEntry {
  /** Root-relative, '/'-separated. */
  readonly path: string;
  /** Absolute real path (the Node build reads it directly). */
  readonly absolutePath: string;
  readonly size: number;
  /** The FileSystem's version: the index holds a file's trigrams only for the version it read. */
  readonly version: string;
}

/** What the index recorded about one file's content (a bit set). */
export const FileFlags = {
  /** Indexed: its trigrams are in a shard or the delta. */
  text: 0,
  /** Holds a NUL or is over 1 MiB: text matching skips it, so it is not a candidate (a NUL one is for IndexPlan.binary). */
  skipped: 1,
  /** Could not be read: always a candidate (the verification decides). */
  unreadable: 2,
  /** Holds a non-ASCII case variant of `k` or `s` (see trigrams.ts): a candidate for every case-insensitive query. */
  foldVariant: 4,
} as const;
