/**
 * A FileSystem decorator that runs the mutating calls on one path one at a time, so a conditional write's
 * check and commit (`ifVersion`, `exclusive`) can never interleave with another write through it: of two
 * concurrent writes with the same `ifVersion`, exactly one wins and the other is `version-mismatch`.
 * Reads are not locked (writes are atomic renames, so a read sees old or new bytes anyway).
 *
 * Locks are keyed by the real path of what the call changes: a write, writeStream, writeAt or chmod by the
 * real path of its target (a link is followed, so writes through two links to one file share a key); a
 * remove, rename, copy target, mkdir or symlink by the entry itself (its real folder plus its name). The key
 * is computed just before locking, so a link retargeted in between may send a call to a stale key; and a
 * lock covers one path, not a subtree (removing a folder does not wait for writes inside it).
 *
 * What remains for writers that do not go through this daemon (a shell, an editor, `git checkout`): they
 * take no lock, and POSIX has no compare-and-swap on paths, so one that replaces the file between a
 * backend's last `ifVersion` check and its rename is overwritten (NodeFileSystem re-checks right before the
 * rename, which shrinks that window to a stat and a rename but cannot close it). Their writes are never torn
 * by ours, nor ours by theirs when they too write atomically; `exclusive` has no gap (link() refuses a name
 * that appeared).
 *
 * Edge-clean: no `node:*`; it wraps any backend.
 */
import type {
  ByteRange,
  BytesWithStat,
  DirEntry,
  FileStat,
  FileSystem,
  FileSystemCapabilities,
  ReadStreamOptions,
  StreamLimit,
  WatchEvent,
  WriteAtOptions,
  WriteOptions,
} from './file-system.ts';
import { PathLocks } from './path-locks.ts';
import { realContentPath, realEntryPath } from './real-paths.ts';

export class SerializedFileSystem implements FileSystem {
  readonly capabilities: FileSystemCapabilities;
  readonly watch?: (path: string, onEvent: (event: WatchEvent) => void) => () => void;

  /**
   * `held` is non-empty only for the FileSystem an `exclusive` section hands to its callback: the keys that
   * section holds, which its own calls take without waiting (emptied when the section ends).
   */
  constructor(
    private readonly inner: FileSystem,
    private readonly locks: PathLocks = new PathLocks(),
    private readonly held: ReadonlySet<string> = new Set(),
  ) {
    this.capabilities = inner.capabilities;
    if (inner.watch) this.watch = (path, onEvent) => inner.watch!(path, onEvent);
  }

  confine(folder: string): void {
    this.inner.confine?.(folder);
  }

  /** Keys held or waited for right now (0 when idle: entries never outlive their holders). */
  get pendingLocks(): number {
    return this.locks.size;
  }

  /**
   * Runs `fn` as one critical section for `path`: no other mutation of `path` through this FileSystem runs
   * until it settles. `fn` gets a FileSystem that mutates `path` without waiting for the lock it already
   * holds (calling this one's write on `path` inside `fn` would wait for `fn` itself: a deadlock). Meant for
   * "read, check, write" sequences that `ifVersion` cannot express.
   */
  async exclusive<T>(path: string, fn: (fs: FileSystem) => Promise<T>): Promise<T> {
    const key = await this.contentKey(path);
    if (this.held.has(key)) return fn(this);
    return this.locks.run([key], async () => {
      const held = new Set([...this.held, key]);
      try {
        return await fn(new SerializedFileSystem(this.inner, this.locks, held));
      } finally {
        held.clear(); // a handle kept past its section locks like any other
      }
    });
  }

  stat(path: string): Promise<FileStat> {
    return this.inner.stat(path);
  }

  lstat(path: string): Promise<FileStat> {
    return this.inner.lstat(path);
  }

  readdir(path: string, options?: { limit?: number }): Promise<DirEntry[]> {
    return this.inner.readdir(path, options);
  }

  readlink(path: string): Promise<string> {
    return this.inner.readlink(path);
  }

  realpath(path: string): Promise<string> {
    return this.inner.realpath(path);
  }

  read(path: string, range?: ByteRange): Promise<Uint8Array> {
    return this.inner.read(path, range);
  }

  readWithStat(path: string, range?: ByteRange): Promise<BytesWithStat> {
    return this.inner.readWithStat(path, range);
  }

  readStream(path: string, range?: ByteRange, options?: ReadStreamOptions): Promise<ReadableStream<Uint8Array>> {
    return this.inner.readStream(path, range, options);
  }

  async write(path: string, data: Uint8Array | string, options?: WriteOptions): Promise<FileStat> {
    return this.locked([await this.contentKey(path)], () => this.inner.write(path, data, options));
  }

  async writeStream(
    path: string,
    data: ReadableStream<Uint8Array>,
    options?: WriteOptions & StreamLimit,
  ): Promise<FileStat> {
    // The lock is held while the data arrives: a conditional write's check and commit bracket the whole
    // stream, so writers to the same path queue behind a long upload rather than race it.
    return this.locked([await this.contentKey(path)], () => this.inner.writeStream(path, data, options));
  }

  async writeAt(
    path: string,
    offset: number,
    data: ReadableStream<Uint8Array> | Uint8Array,
    options?: WriteAtOptions,
  ): Promise<FileStat> {
    return this.locked([await this.contentKey(path)], () => this.inner.writeAt(path, offset, data, options));
  }

  async chmod(path: string, mode: number): Promise<void> {
    return this.locked([await this.contentKey(path)], () => this.inner.chmod(path, mode));
  }

  async mkdir(path: string, options?: { recursive?: boolean }): Promise<void> {
    return this.locked([await this.entryKey(path)], () => this.inner.mkdir(path, options));
  }

  async remove(path: string, options?: { recursive?: boolean }): Promise<void> {
    return this.locked([await this.entryKey(path)], () => this.inner.remove(path, options));
  }

  async rename(from: string, to: string, options?: { overwrite?: boolean }): Promise<void> {
    const keys = [await this.entryKey(from), await this.entryKey(to)];
    return this.locked(keys, () => this.inner.rename(from, to, options));
  }

  async copy(from: string, to: string, options?: { overwrite?: boolean }): Promise<void> {
    // Only the target changes; the source is read, and atomic writes keep its reads whole.
    return this.locked([await this.entryKey(to)], () => this.inner.copy(from, to, options));
  }

  async symlink(target: string, path: string): Promise<void> {
    return this.locked([await this.entryKey(path)], () => this.inner.symlink(target, path));
  }

  // ---------------------------------------------------------------------------------------------------------

  private locked<T>(keys: string[], call: () => Promise<T>): Promise<T> {
    const needed = keys.filter((key) => !this.held.has(key));
    return needed.length === 0 ? call() : this.locks.run(needed, call);
  }

  /** A content change's key: the real path it lands on, links followed. */
  private contentKey(path: string): Promise<string> {
    return realContentPath(this.inner, path);
  }

  /** A change to the entry itself: its real folder plus its name. */
  private entryKey(path: string): Promise<string> {
    return realEntryPath(this.inner, path);
  }
}
