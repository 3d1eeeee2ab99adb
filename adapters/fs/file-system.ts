/**
 * The FileSystem adapter: the one seam between handlers and storage. Modeled on VS Code's
 * IFileSystemProvider — a small interface, typed errors (FsError), capability flags.
 *
 * Rules every backend follows (the contract suite in test/adapters/fs checks them all):
 * - Paths are absolute POSIX strings ("/a/b"), already normalised; backends never see "..".
 *   Containment is decided above this layer (core/paths), not here.
 * - `stat`, `read*`, `readdir` and `write` follow symlinks; `lstat`, `readlink`, `remove` and `rename`
 *   act on the link itself.
 * - `version` is an opaque string that changes whenever a file's content changes.
 * - `write` is atomic: readers see the old bytes or the new bytes, never a mix (temp + rename). Writing
 *   through a symlink writes its target (a dangling link's target is created); the link stays a link.
 * - `exclusive` treats a dangling link as existing. `overwrite` on rename/copy replaces whatever is at `to`,
 *   folders included; renaming a path onto itself does nothing, copying it onto itself is `invalid`.
 * - Permission checks (where `capabilities.permissions`) use the owner bits, as for files the daemon owns.
 */
export type FileType = 'file' | 'dir' | 'symlink' | 'other';

export interface FileStat {
  type: FileType;
  size: number; // bytes; 0 for folders
  mtimeMs: number; // milliseconds since the epoch
  version: string;
}

export interface DirEntry {
  name: string;
  /** The entry's own type: a symlink is reported as 'symlink' (call `stat` to follow it). */
  type: FileType;
}

/** A byte window: `offset` from the start, at most `length` bytes (to end of file when omitted). */
export interface ByteRange {
  offset: number;
  length?: number;
}

/** What `readWithStat` returns: the bytes read and the stat of the file they were read from. */
export interface BytesWithStat {
  bytes: Uint8Array;
  stat: FileStat;
}

/**
 * How a stream reads, a hint for the consumer's pattern: `chunkBytes` is the most each read (and so each
 * chunk) holds. A scanner that may stop early wants small reads (the backend's default); streaming a whole
 * range to a socket wants large ones, as each chunk costs a trip through every stream layer. Wrappers forward
 * it; a backend honours it (chunks of at most that size) and refuses one that is not a positive integer.
 */
export interface ReadStreamOptions {
  chunkBytes?: number;
}

export interface WriteOptions {
  /** Create missing parent folders. */
  mkdirs?: boolean;
  /** Only write if the file's current version equals this (a missing file never matches). */
  ifVersion?: string;
  /** Only write if nothing exists at the path yet. */
  exclusive?: boolean;
}

/** A streamed write's cap: past `maxBytes` bytes of data the write fails `too-large` and leaves nothing. */
export interface StreamLimit {
  maxBytes?: number;
}

/** `writeAt` writes in place; `ifVersion` makes it conditional as for `write`. */
export interface WriteAtOptions extends StreamLimit {
  ifVersion?: string;
}

export interface FileSystemCapabilities {
  symlinks: boolean;
  watch: boolean;
  /** Permission bits are enforced for the current user (false on Node when running as root). */
  permissions: boolean;
}

export type WatchEvent = { kind: 'change' | 'create' | 'delete'; path: string };

export interface FileSystem {
  readonly capabilities: FileSystemCapabilities;

  stat(path: string): Promise<FileStat>;
  lstat(path: string): Promise<FileStat>;
  /**
   * The folder's entries. With `limit`, at most that many, in the backend's own order (not sorted), and the
   * backend stops reading the folder there: a caller that wants N entries and to know whether there are more
   * asks for N + 1, and a huge folder costs it N + 1 entries, not the whole listing. A limit is a safe
   * integer ≥ 0 (else `invalid`).
   */
  readdir(path: string, options?: { limit?: number }): Promise<DirEntry[]>;
  readlink(path: string): Promise<string>;
  /** Resolves every symlink on the way; `not-found` if any part is missing, `loop` on a cycle. */
  realpath(path: string): Promise<string>;

  read(path: string, range?: ByteRange): Promise<Uint8Array>;
  /**
   * `read`, plus the stat of the file the bytes came from, taken on the same open file just before them: the
   * version belongs to these bytes (an in-place write during the read can leave it older than the bytes,
   * never newer). Same arguments, checks and errors as `read`. For callers that send bytes with their
   * version (an ETag): one call where a `stat` and a `read` would each cost a trip to storage.
   */
  readWithStat(path: string, range?: ByteRange): Promise<BytesWithStat>;
  /** Errors such as `not-found` reject the promise, before any byte is produced. */
  readStream(path: string, range?: ByteRange, options?: ReadStreamOptions): Promise<ReadableStream<Uint8Array>>;

  write(path: string, data: Uint8Array | string, options?: WriteOptions): Promise<FileStat>;
  /**
   * `write` for data that arrives as a stream (uploads reach 10 GiB: never buffered whole). Atomic like
   * `write`; the preconditions are checked before the first byte is read and again at the commit. Any failure
   * (`too-large` past `maxBytes`, a failing source, a precondition) leaves nothing behind: no file, no temp
   * file, no folder it made. The source is consumed, or cancelled on failure.
   */
  writeStream(
    path: string,
    data: ReadableStream<Uint8Array>,
    options?: WriteOptions & StreamLimit,
  ): Promise<FileStat>;
  /**
   * Writes `data` in place into an existing regular file at `offset` (≤ its size: `invalid` past the end,
   * `not-found` for a missing file), growing it when the data runs past the end; every call moves the
   * version. A streamed source is received in full (spooled beside the file on disk) before the file is
   * touched, so a failing or over-`maxBytes` source changes nothing. In place, so not atomic for readers.
   */
  writeAt(
    path: string,
    offset: number,
    data: ReadableStream<Uint8Array> | Uint8Array,
    options?: WriteAtOptions,
  ): Promise<FileStat>;
  mkdir(path: string, options?: { recursive?: boolean }): Promise<void>;
  remove(path: string, options?: { recursive?: boolean }): Promise<void>;
  rename(from: string, to: string, options?: { overwrite?: boolean }): Promise<void>;
  copy(from: string, to: string, options?: { overwrite?: boolean }): Promise<void>;
  symlink(target: string, path: string): Promise<void>;
  /** Sets permission bits (e.g. 0o000 to make a file unreadable). */
  chmod(path: string, mode: number): Promise<void>;

  watch?(path: string, onEvent: (event: WatchEvent) => void): () => void;
  /**
   * From now on, work on a path inside `folder` (a real path) must not reach outside it, even when the tree changes
   * while a call runs: a folder on the way swapped for a link out is refused (`permission-denied`), never followed.
   * The check above this layer (core/paths/resolve-inside-root.ts) decides on real paths; this keeps that decision
   * true until the call is done. Backends whose calls cannot interleave with other changes (memory, Durable
   * Object) have nothing to add; wrappers pass it on.
   */
  confine?(folder: string): void;
}
