/**
 * FileSystem backed by the local disk (node:fs/promises). Paths are absolute host paths; containment is
 * decided above this layer. Every errno error is translated into an FsError (see `toFsError`).
 */
import * as fsc from 'node:fs';
import { constants, type BigIntStats } from 'node:fs';
import * as fsp from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import type {
  ByteRange,
  BytesWithStat,
  DirEntry,
  FileStat,
  FileSystem,
  FileSystemCapabilities,
  FileType,
  ReadStreamOptions,
  StreamLimit,
  WriteAtOptions,
  WriteOptions,
} from './file-system.ts';
import { FsError, isFsError } from './fs-error.ts';
import { checkOffset, checkPath, chunkBytesOf, maxBytesOf, rangeBounds, readdirLimitOf } from './arguments.ts';
import { cappedChunks, discardSource } from './capped-chunks.ts';
import { copyFileBeneath, copyTree } from './node-copy-tree.ts';
import { NodeFileRangeStream } from './node-file-range-stream.ts';
import { Confinement, descriptorPath, removeTreeBeneath, type PinnedFolder } from './node-confinement.ts';
import { toFsError } from './node-fs-error.ts';
import { NODE_WRITER_IDENTITY } from './node-writer-identity.ts';
import { basename, dirname, isInside, join } from './posix-path.ts';

/**
 * Default stream chunk size (a caller may ask for another: ReadStreamOptions). On a 1 GiB file 256 KiB
 * streamed in about half the time of 64 KiB (fewer pread round-trips through the libuv thread pool) and beat
 * fs.createReadStream's 64 KiB default; the cost is one 256 KiB buffer in flight per open stream. Streaming to
 * a socket asks for more (runtime/http/serve-content.ts says why).
 */
export const STREAM_CHUNK = 256 * 1024;
/** Linux's MAXSYMLINKS: the hop limit when we follow links ourselves (write through a dangling link). */
const MAX_SYMLINK_HOPS = 40;
/** O_NONBLOCK keeps open() from hanging on a FIFO; it has no effect on regular files. */
const OPEN_FOR_READ = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0);
/** writeAt opens the existing file only: no O_CREAT, no O_TRUNC. */
const OPEN_IN_PLACE = constants.O_WRONLY | (constants.O_NONBLOCK ?? 0);
/**
 * Streamed writes gather a source's chunks (request bodies arrive in 16–64 KiB pieces) into one writev of
 * up to this many bytes, so a 10 GiB upload costs thousands of thread-pool round-trips, not hundreds of
 * thousands. IOV_MAX (1024) bounds the pieces per call.
 */
const WRITE_BATCH_BYTES = 1024 * 1024;
const WRITE_BATCH_PIECES = 512;

/** Removes `deepest` and its parents up to and including `first` (the folders one mkdir -p made), while empty. */
async function removeCreatedFolders(deepest: string, first: string): Promise<void> {
  for (let folder = deepest; isInside(first, folder); folder = dirname(folder)) {
    try {
      await fsp.rmdir(folder);
    } catch {
      return; // not empty (someone else wrote there meanwhile) or already gone: leave the rest
    }
    if (folder === first) return;
  }
}

/** Reads are of regular files only: folders are is-directory, FIFOs/devices/sockets invalid. */
function requireRegularFile(stats: fsc.Stats | BigIntStats, path: string): void {
  if (stats.isDirectory()) throw new FsError('is-directory', path);
  if (!stats.isFile()) throw new FsError('invalid', path, `invalid: not a regular file: ${path}`);
}

/** Promisifies one callback-style node:fs call (cheaper than fs/promises for the small calls of the hot paths). */
function fdCall<T>(call: (callback: (error: NodeJS.ErrnoException | null, value: T) => void) => void): Promise<T> {
  return new Promise((resolve, reject) => call((error, value) => (error ? reject(error) : resolve(value))));
}

function errnoOf(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | undefined)?.code;
}

function typeOf(stats: { isFile(): boolean; isDirectory(): boolean; isSymbolicLink(): boolean }): FileType {
  if (stats.isFile()) return 'file';
  if (stats.isDirectory()) return 'dir';
  if (stats.isSymbolicLink()) return 'symlink';
  return 'other';
}

/** mtime-ns, size and inode: content changes move mtime, and atomic writes also change the inode. */
function versionOf(stats: BigIntStats): string {
  return `${stats.mtimeNs.toString(36)}-${stats.size.toString(36)}-${stats.ino.toString(36)}`;
}

function toFileStat(stats: BigIntStats): FileStat {
  const type = typeOf(stats);
  return {
    type,
    size: type === 'dir' ? 0 : Number(stats.size),
    mtimeMs: Number(stats.mtimeNs) / 1e6,
    version: versionOf(stats),
  };
}

/** Splits an absolute, possibly unnormalised path into its parent and last segment, without folding "..". */
function splitLast(path: string): [string, string] {
  const trimmed = path.replace(/\/+$/, '');
  const i = trimmed.lastIndexOf('/');
  return [trimmed.slice(0, i) || '/', trimmed.slice(i + 1)];
}

/** A plain Uint8Array view of a Buffer (callers get one array type from every backend). */
function plain(bytes: Uint8Array): Uint8Array {
  return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/**
 * A write's temp file, beside its target: `.wsapi-<pid>-<tag>-<16 hex>.tmp` (./node-writer-identity.ts). A process
 * killed mid-write (SIGKILL, power loss) leaves its temp file behind: the write never committed, so the target is
 * still whole. The name says whose it is, so the daemon's start-up sweep (./leftover-sweep.ts) removes those of
 * writers that are gone and never one a live writer — another daemon on the same root — is still filling.
 */
function tempPathFor(folder: string): string {
  // Fixed length, whatever the target's name: a 255-byte name must still get a temp file beside it.
  return join(folder, `.wsapi-${NODE_WRITER_IDENTITY}-${randomBytes(8).toString('hex')}.tmp`);
}

export class NodeFileSystem implements FileSystem {
  readonly capabilities: FileSystemCapabilities = {
    symlinks: true,
    watch: false,
    permissions: process.getuid?.() !== 0,
  };
  // A plain private field, not #: tests wrap the adapter in proxies, which cannot reach # fields.
  private readonly confinement = new Confinement();

  /** ./node-confinement.ts: reads, listings and changes under `folder` stay inside it while the tree changes. */
  confine(folder: string): void {
    this.confinement.add(folder);
  }

  async stat(path: string): Promise<FileStat> {
    checkPath(path);
    try {
      // Callback style, as in read: fs/promises costs ~5 µs more per call here (a quarter of a small stat).
      return toFileStat(await fdCall<BigIntStats>((cb) => fsc.stat(path, { bigint: true }, cb)));
    } catch (error) {
      throw toFsError(error, path);
    }
  }

  async lstat(path: string): Promise<FileStat> {
    checkPath(path);
    try {
      // Callback style too: the search file list lstats every file of the tree (78 579 on the kernel).
      return toFileStat(await fdCall<BigIntStats>((cb) => fsc.lstat(path, { bigint: true }, cb)));
    } catch (error) {
      throw toFsError(error, path);
    }
  }

  async readdir(path: string, options?: { limit?: number }): Promise<DirEntry[]> {
    checkPath(path);
    const limit = readdirLimitOf(options, path);
    let pinned: PinnedFolder | undefined;
    try {
      // Listed through the folder's own descriptor where confined: the names are of the folder that was checked.
      pinned = await this.confinement.pinFolder(path);
      if (limit !== Infinity) return await readdirPrefix(pinned.self, limit);
      const entries = await fsp.readdir(pinned.self, { withFileTypes: true });
      return entries.map((entry) => ({ name: entry.name, type: typeOf(entry) }));
    } catch (error) {
      throw toFsError(error, path);
    } finally {
      pinned?.release();
    }
  }

  async readlink(path: string): Promise<string> {
    checkPath(path);
    try {
      return await fsp.readlink(path, 'utf8');
    } catch (error) {
      throw toFsError(error, path);
    }
  }

  async realpath(path: string): Promise<string> {
    checkPath(path);
    try {
      // realpath(3), as fs/promises' realpath is, without its promise overhead: every request resolves a path.
      return await fdCall<string>((cb) => fsc.realpath.native(path, cb));
    } catch (error) {
      throw toFsError(error, path);
    }
  }

  async read(path: string, range?: ByteRange): Promise<Uint8Array> {
    return (await this.readWithStat(path, range)).bytes;
  }

  async readWithStat(path: string, range?: ByteRange): Promise<BytesWithStat> {
    checkPath(path);
    const [start, end] = rangeBounds(range, path);
    // Raw descriptors rather than a FileHandle: this is the hot path of small reads (`GET /api/file`), and a
    // FileHandle's object, promise and GC bookkeeping cost more than the syscalls themselves there. The stat
    // is the fstat the read needs anyway (a regular file? how many bytes?), so the version costs no extra call.
    let fd: number;
    try {
      fd = await fdCall<number>((cb) => fsc.open(path, OPEN_FOR_READ, cb));
    } catch (error) {
      throw toFsError(error, path);
    }
    try {
      this.confinement.checkOpened(fd, path);
      const stats = await fdCall<BigIntStats>((cb) => fsc.fstat(fd, { bigint: true }, cb));
      requireRegularFile(stats, path);
      const want = Math.max(0, Math.min(end, Number(stats.size)) - start);
      const buffer = Buffer.allocUnsafeSlow(want);
      let filled = 0;
      while (filled < want) {
        const bytesRead = await fdCall<number>((cb) => fsc.read(fd, buffer, filled, want - filled, start + filled, cb));
        if (bytesRead === 0) break; // the file shrank under us
        filled += bytesRead;
      }
      return { bytes: plain(buffer.subarray(0, filled)), stat: toFileStat(stats) };
    } catch (error) {
      throw toFsError(error, path);
    } finally {
      fsc.close(fd, () => {});
    }
  }

  async readStream(path: string, range?: ByteRange, options?: ReadStreamOptions): Promise<ReadableStream<Uint8Array>> {
    checkPath(path);
    const [start, end] = rangeBounds(range, path);
    const chunkBytes = chunkBytesOf(options?.chunkBytes, STREAM_CHUNK, path);
    const { handle } = await this.openRegularFile(path);
    // One read in flight at a time, at most one chunk ahead of the consumer. The handle stays open until end,
    // cancel or error (an abandoned, unread stream is closed by GC), or until a Node host takes it to send
    // the range itself (runtime/node/send-file-body.ts).
    return new NodeFileRangeStream({ handle, start, end, chunkBytes }, (error) => toFsError(error, path));
  }

  async write(path: string, data: Uint8Array | string, options: WriteOptions = {}): Promise<FileStat> {
    checkPath(path);
    const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
    return this.replaceFile(path, options, async (handle) => {
      await handle.writeFile(bytes);
    });
  }

  async writeStream(
    path: string,
    data: ReadableStream<Uint8Array>,
    options: WriteOptions & StreamLimit = {},
  ): Promise<FileStat> {
    try {
      checkPath(path);
      const maxBytes = maxBytesOf(options.maxBytes, path);
      return await this.replaceFile(path, options, (handle) => writeSource(handle, data, maxBytes, path, 0));
    } catch (error) {
      await discardSource(data);
      throw error;
    }
  }

  /**
   * A streamed source is first spooled into a temp file beside the target (under the cap), and only then
   * copied in place: a failing client or an over-cap body leaves the file exactly as it was, and the window
   * in which readers can see a half-applied part shrinks to a local copy.
   */
  async writeAt(
    path: string,
    offset: number,
    data: ReadableStream<Uint8Array> | Uint8Array,
    options: WriteAtOptions = {},
  ): Promise<FileStat> {
    let spool: string | undefined;
    let spoolFolder: PinnedFolder | undefined;
    try {
      checkPath(path);
      checkOffset(offset, path);
      const maxBytes = maxBytesOf(options.maxBytes, path);
      if (!(data instanceof ReadableStream) && data.byteLength > maxBytes) {
        throw new FsError('too-large', path, `too-large: more than ${maxBytes} bytes for ${path}`);
      }
      // Fail fast, before a byte of the source is read; repeated on the open descriptor below.
      requireInPlaceTarget(await fsp.stat(path, { bigint: true }), path, offset, options.ifVersion);
      if (data instanceof ReadableStream) {
        spoolFolder = await this.confinement.pinFolder(dirname(await this.resolveWriteTarget(path)), path);
        spool = tempPathFor(spoolFolder.self);
        const handle = await fsp.open(spool, 'wx', 0o600);
        try {
          await writeSource(handle, data, maxBytes, path, 0);
        } finally {
          await handle.close();
        }
      }
      const handle = await fsp.open(path, OPEN_IN_PLACE);
      try {
        this.confinement.checkOpened(handle.fd, path);
        const before = await handle.stat({ bigint: true });
        requireInPlaceTarget(before, path, offset, options.ifVersion);
        if (spool === undefined) await writeFully(handle, [data as Uint8Array], offset);
        else await copyInto(spool, handle, offset);
        await bumpMtime(handle, before);
        return toFileStat(await handle.stat({ bigint: true }));
      } finally {
        await handle.close();
      }
    } catch (error) {
      await discardSource(data);
      throw toFsError(error, path);
    } finally {
      if (spool !== undefined) await fsp.rm(spool, { force: true }).catch(() => {});
      spoolFolder?.release();
    }
  }

  async mkdir(path: string, options: { recursive?: boolean } = {}): Promise<void> {
    checkPath(path);
    if (options.recursive === true) {
      try {
        await this.confinement.makeFolders(path);
      } catch (error) {
        throw toFsError(error, path);
      }
      return;
    }
    await this.inParent(path, (at) => fsp.mkdir(at));
  }

  async remove(path: string, options: { recursive?: boolean } = {}): Promise<void> {
    checkPath(path);
    if (path === '/') throw new FsError('invalid', path, 'invalid: refusing to remove /');
    await this.inParent(path, async (at, pinned) => {
      const stats = await fsp.lstat(at);
      if (!stats.isDirectory()) await fsp.unlink(at); // a link is removed itself, never its target
      else if (options.recursive) await removeTree(at, pinned);
      else await fsp.rmdir(at);
    });
  }

  /**
   * Moves the entry itself (a link stays a link). With `overwrite`, whatever is at `to` is replaced: a file
   * over a file is one atomic rename; otherwise the target is removed first. Without `overwrite` there is a
   * small window in which a `to` created concurrently would be replaced (Node exposes no RENAME_NOREPLACE).
   */
  async rename(from: string, to: string, options: { overwrite?: boolean } = {}): Promise<void> {
    checkPath(from);
    checkPath(to);
    const pair = await this.resolvePair(from, to, options.overwrite === true);
    if (!pair) return;
    const { source, target, fromReal, toReal } = pair;
    await this.inParents(fromReal, from, toReal, to, async (fromAt, toAt, toFolder) => {
      if (target && (target.isDirectory() || source.isDirectory())) await removeTree(toAt, toFolder);
      await fsp.rename(fromAt, toAt);
    });
  }

  /** Copies files and folders recursively (./node-copy-tree.ts); links are copied as links with the same text. */
  async copy(from: string, to: string, options: { overwrite?: boolean } = {}): Promise<void> {
    checkPath(from);
    checkPath(to);
    const pair = await this.resolvePair(from, to, options.overwrite === true);
    if (!pair) throw new FsError('invalid', to, `invalid: cannot copy onto itself: ${to}`);
    const { source, target, fromReal, toReal } = pair;
    await this.inParents(fromReal, from, toReal, to, async (fromAt, toAt, toFolder, fromFolder) => {
      if (source.isFile() && !target?.isDirectory()) {
        // Copy into a temp file, then rename (overwrite) or link (no overwrite): readers never see half a copy.
        await this.commitViaTemp(toAt, to, !target, async (tempPath) => {
          await copyFileBeneath(fromAt, tempPath, fromFolder.confined);
          return await fsp.stat(tempPath, { bigint: true });
        });
        return;
      }
      if (target) await removeTree(toAt, toFolder);
      await copyTree(fromAt, toAt, source, { beneath: fromFolder.confined || toFolder.confined, named: toReal });
    });
  }

  async symlink(target: string, path: string): Promise<void> {
    checkPath(path);
    if (target === '' || target.includes('\0')) throw new FsError('invalid', path, `invalid: bad link text`);
    await this.inParent(path, (at) => fsp.symlink(target, at));
  }

  async chmod(path: string, mode: number): Promise<void> {
    checkPath(path);
    if (!Number.isInteger(mode) || mode < 0 || mode > 0o7777) throw new FsError('invalid', path, 'invalid: mode');
    await this.inParent(path, async (at, pinned) => {
      if (!pinned.confined) return fsp.chmod(at, mode);
      // chmod follows a link at the end: open what it names, check where that landed, and change that one.
      const handle = await fsp.open(at, OPEN_FOR_READ);
      try {
        this.confinement.checkOpened(handle.fd, path);
        await handle.chmod(mode);
      } finally {
        await handle.close();
      }
    });
  }

  // ---------------------------------------------------------------------------------------------------------

  /** Opens a regular file for reading (see requireRegularFile); its size comes from the same fstat. */
  private async openRegularFile(path: string): Promise<{ handle: FileHandle; size: number }> {
    let handle: FileHandle;
    try {
      handle = await fsp.open(path, OPEN_FOR_READ);
    } catch (error) {
      throw toFsError(error, path);
    }
    try {
      this.confinement.checkOpened(handle.fd, path);
      const stats = await handle.stat();
      requireRegularFile(stats, path);
      return { handle, size: stats.size };
    } catch (error) {
      await handle.close().catch(() => {});
      throw toFsError(error, path);
    }
  }

  /**
   * The body of `write` and `writeStream`: checks, then `fill` writes the content into a fresh temp file
   * beside the target, which replaces the target atomically (see commitViaTemp). A failed write leaves no
   * trace: the folders it created for itself go too.
   */
  private async replaceFile(
    path: string,
    options: WriteOptions,
    fill: (handle: FileHandle) => Promise<void>,
  ): Promise<FileStat> {
    let createdFrom: string | undefined;
    try {
      if (options.mkdirs) createdFrom = await this.mkdirsForWrite(dirname(path));
      // Exclusive means "nothing at all at this path", a dangling link included (as with O_CREAT|O_EXCL).
      if (options.exclusive && (await lstatOrNull(path))) throw new FsError('exists', path);
      // The target's folder is held from here to the commit: the temp file and the rename are in that folder.
      const { pinned, name } = await this.confinement.pinParent(await this.resolveWriteTarget(path), path);
      try {
        return await this.replaceIn(pinned.at(name), path, options, fill);
      } finally {
        pinned.release();
      }
    } catch (error) {
      if (createdFrom !== undefined) await removeCreatedFolders(dirname(path), createdFrom);
      throw toFsError(error, path);
    }
  }

  /** replaceFile's work once the target's folder is held: `target` names the file through that folder. */
  private async replaceIn(
    target: string,
    path: string,
    options: WriteOptions,
    fill: (handle: FileHandle) => Promise<void>,
  ): Promise<FileStat> {
    const existing = await replaceableTarget(target, path, options.ifVersion);
      // The rename below only needs the folder to be writable; refuse read-only files like a plain write would.
      if (existing) await fsp.access(target, constants.W_OK);
      const mode = existing ? Number(existing.mode & 0o7777n) : undefined;
      // Node has no compare-and-swap on paths, so `ifVersion` is checked before the content is written and
      // again right before the rename: a writer racing between that last check and the rename can still be
      // overwritten. Writers through this daemon never race there: SerializedFileSystem runs one mutation per
      // path at a time. `exclusive` has no gap at all: it commits with link(), which fails if the name exists.
      const recheck =
        options.ifVersion === undefined ? undefined : () => replaceableTarget(target, path, options.ifVersion);
      return await this.commitViaTemp(
        target,
        path,
        options.exclusive === true,
        async (tempPath) => {
          const handle = await fsp.open(tempPath, 'wx', mode ?? 0o666);
          try {
            await fill(handle);
            if (mode !== undefined) await handle.chmod(mode); // open()'s mode is filtered by the umask
            return await handle.stat({ bigint: true });
          } finally {
            await handle.close();
          }
        },
        recheck,
      );
  }

  /** mkdir -p; returns the first folder it created (undefined when all existed). */
  private async mkdirsForWrite(folder: string): Promise<string | undefined> {
    try {
      return await this.confinement.makeFolders(folder);
    } catch (error) {
      // mkdir -p reports EEXIST when the folder path itself is a file; for a write that is "parent not a folder".
      if (errnoOf(error) === 'EEXIST' || isFsError(error, 'exists')) throw new FsError('not-directory', folder);
      throw error;
    }
  }

  /**
   * Where a write to `path` lands, as a real path: a symlink at `path` is followed to its final target (so the
   * link stays a link), also when that target does not exist yet (POSIX open(O_CREAT) semantics).
   */
  private async resolveWriteTarget(path: string): Promise<string> {
    let current = path;
    for (let hop = 0; hop <= MAX_SYMLINK_HOPS; hop++) {
      const [parent, name] = splitLast(current);
      const stats = await lstatOrNull(current);
      if (!stats?.isSymbolicLink()) return join(await fsp.realpath(parent), name);
      try {
        return await fsp.realpath(current);
      } catch (error) {
        if (errnoOf(error) !== 'ENOENT') throw error;
      }
      // A dangling link: continue from its text, resolved against the link's real folder.
      const text = await fsp.readlink(current, 'utf8');
      current = text.startsWith('/') ? text : `${await fsp.realpath(parent)}/${text}`;
    }
    throw new FsError('loop', path);
  }

  /**
   * Creates `target` atomically: `fill` creates a temp file in the same folder (and returns its stats), which
   * is then renamed over `target`, or hard-linked to it when `exclusive` (link() fails if the name exists, so
   * there is no check-then-create gap); `beforeCommit` may veto in between. The temp file is removed on any
   * failure. Returns the stat of the
   * written inode (rename and link keep its mtime and inode), not of whatever is at the path afterwards.
   */
  private async commitViaTemp(
    target: string,
    reportedPath: string,
    exclusive: boolean,
    fill: (tempPath: string) => Promise<BigIntStats>,
    beforeCommit?: () => Promise<unknown>,
  ): Promise<FileStat> {
    const tempPath = tempPathFor(dirname(target));
    try {
      const stats = await fill(tempPath);
      await beforeCommit?.();
      if (exclusive) {
        try {
          await fsp.link(tempPath, target);
        } catch (error) {
          if (errnoOf(error) === 'EEXIST') throw new FsError('exists', reportedPath);
          throw error;
        }
        await fsp.unlink(tempPath);
      } else {
        await fsp.rename(tempPath, target);
      }
      return toFileStat(stats);
    } catch (error) {
      await fsp.rm(tempPath, { force: true }).catch(() => {});
      throw toFsError(error, reportedPath);
    }
  }

  /** Runs `work` on `path`'s entry in its folder, held open and checked where confined; errors as `path`'s. */
  private async inParent<T>(path: string, work: (at: string, pinned: PinnedFolder) => Promise<T>): Promise<T> {
    let pinned: PinnedFolder | undefined;
    try {
      const parent = await this.confinement.pinParent(path);
      pinned = parent.pinned;
      return await work(pinned.at(parent.name), pinned);
    } catch (error) {
      throw toFsError(error, path);
    } finally {
      pinned?.release();
    }
  }

  /** inParent for the two ends of a move or copy, resolved to `fromReal` and `toReal`; errors as `from`'s. */
  private async inParents(
    fromReal: string,
    from: string,
    toReal: string,
    to: string,
    work: (fromAt: string, toAt: string, toFolder: PinnedFolder, fromFolder: PinnedFolder) => Promise<void>,
  ): Promise<void> {
    const held: PinnedFolder[] = [];
    try {
      const source = await this.confinement.pinParent(fromReal, from);
      held.push(source.pinned);
      const target = await this.confinement.pinParent(toReal, to);
      held.push(target.pinned);
      await work(source.pinned.at(source.name), target.pinned.at(target.name), target.pinned, source.pinned);
    } catch (error) {
      throw toFsError(error, from);
    } finally {
      for (const pinned of held) pinned.release();
    }
  }

  /**
   * The shared preamble of rename and copy: both entries (not followed) and their real locations, checked
   * in a fixed order so every backend reports the same code. Returns undefined when both name the same entry.
   */
  private async resolvePair(
    from: string,
    to: string,
    overwrite: boolean,
  ): Promise<
    { source: BigIntStats; target: BigIntStats | undefined; fromReal: string; toReal: string } | undefined
  > {
    if (from === '/' || to === '/') throw new FsError('invalid', from, 'invalid: cannot move or copy /');
    let source: BigIntStats;
    let fromReal: string;
    try {
      source = await fsp.lstat(from, { bigint: true });
      fromReal = join(await fsp.realpath(dirname(from)), basename(from));
    } catch (error) {
      throw toFsError(error, from);
    }
    let target: BigIntStats | undefined;
    let toReal: string;
    try {
      toReal = join(await fsp.realpath(dirname(to)), basename(to));
      target = await lstatOrNull(toReal);
    } catch (error) {
      throw toFsError(error, to);
    }
    if (fromReal === toReal) return undefined;
    if (target && !overwrite) throw new FsError('exists', to);
    if (source.isDirectory() && isInside(fromReal, toReal)) {
      throw new FsError('invalid', to, `invalid: cannot put a folder inside itself: ${to}`);
    }
    if (target && isInside(toReal, fromReal)) {
      throw new FsError('invalid', to, `invalid: cannot replace a folder that contains the source: ${to}`);
    }
    return { source, target, fromReal, toReal };
  }
}

/** rm -r of a folder entry: through descriptors, never following a link, where its folder is confined. */
function removeTree(at: string, folder: PinnedFolder): Promise<void> {
  return folder.confined ? removeTreeBeneath(at) : fsp.rm(at, { recursive: true });
}

/**
 * The first `limit` entries in the kernel's order, through opendir: it reads the folder a batch at a time and
 * stops there, where readdir(3)-to-the-end would list (and allocate) every entry of a huge folder first.
 */
async function readdirPrefix(path: string, limit: number): Promise<DirEntry[]> {
  const dir = await fsp.opendir(path, { bufferSize: Math.max(1, Math.min(limit, 1024)) });
  const entries: DirEntry[] = [];
  try {
    while (entries.length < limit) {
      const entry = await dir.read();
      if (!entry) break;
      entries.push({ name: entry.name, type: typeOf(entry) });
    }
  } finally {
    await dir.close().catch(() => {});
  }
  return entries;
}

async function lstatOrNull(path: string): Promise<BigIntStats | undefined> {
  try {
    return await fsp.lstat(path, { bigint: true });
  } catch (error) {
    if (errnoOf(error) === 'ENOENT') return undefined;
    throw error;
  }
}

async function statOrNull(path: string): Promise<BigIntStats | undefined> {
  try {
    return await fsp.stat(path, { bigint: true });
  } catch (error) {
    if (errnoOf(error) === 'ENOENT') return undefined;
    throw error;
  }
}

/** The existing file a replacing write may overwrite (undefined: none yet), after its preconditions. */
async function replaceableTarget(
  target: string,
  path: string,
  ifVersion: string | undefined,
): Promise<BigIntStats | undefined> {
  const existing = await statOrNull(target);
  if (existing?.isDirectory()) throw new FsError('is-directory', path);
  if (existing && !existing.isFile()) throw new FsError('invalid', path, `invalid: not a regular file: ${path}`);
  if (ifVersion !== undefined && (!existing || versionOf(existing) !== ifVersion)) {
    throw new FsError('version-mismatch', path);
  }
  return existing;
}

/** writeAt's preconditions: a regular file, `offset` within it, and the version asked for. */
function requireInPlaceTarget(stats: BigIntStats, path: string, offset: number, ifVersion: string | undefined): void {
  if (stats.isDirectory()) throw new FsError('is-directory', path);
  if (!stats.isFile()) throw new FsError('invalid', path, `invalid: not a regular file: ${path}`);
  if (BigInt(offset) > stats.size) throw new FsError('invalid', path, `invalid: offset past the end of ${path}`);
  if (ifVersion !== undefined && versionOf(stats) !== ifVersion) throw new FsError('version-mismatch', path);
}

/**
 * An in-place write may land within the kernel's coarse timestamp tick and keep the size and inode, which
 * would leave the version unchanged; moving mtime past the old one keeps "every content write moves the
 * version" true.
 */
async function bumpMtime(handle: FileHandle, before: BigIntStats): Promise<void> {
  const after = await handle.stat({ bigint: true });
  if (after.mtimeNs > before.mtimeNs) return;
  const mtimeNs = before.mtimeNs + 1000n; // 1 µs: well above a double's resolution at today's epoch seconds
  await handle.utimes(Number(after.atimeNs) / 1e9, Number(mtimeNs) / 1e9);
}

/** Streams a capped source into `handle` from `position`, batching small chunks into one writev. */
async function writeSource(
  handle: FileHandle,
  source: ReadableStream<Uint8Array>,
  maxBytes: number,
  path: string,
  position: number,
): Promise<void> {
  let batch: Uint8Array[] = [];
  let batchBytes = 0;
  for await (const chunk of cappedChunks(source, maxBytes, path)) {
    batch.push(chunk);
    batchBytes += chunk.byteLength;
    if (batchBytes >= WRITE_BATCH_BYTES || batch.length >= WRITE_BATCH_PIECES) {
      await writeFully(handle, batch, position);
      position += batchBytes;
      batch = [];
      batchBytes = 0;
    }
  }
  if (batch.length > 0) await writeFully(handle, batch, position);
}

/** writev that finishes a short write (a full disk reports ENOSPC on the retry rather than silently). */
async function writeFully(handle: FileHandle, pieces: Uint8Array[], position: number): Promise<void> {
  const total = pieces.reduce((n, piece) => n + piece.byteLength, 0);
  let written = (await handle.writev(pieces, position)).bytesWritten;
  if (written >= total) return;
  const rest = Buffer.concat(pieces);
  while (written < total) {
    const { bytesWritten } = await handle.write(rest, written, total - written, position + written);
    written += bytesWritten;
  }
}

/** Copies a spooled part into `target` at `offset`. */
async function copyInto(spool: string, target: FileHandle, offset: number): Promise<void> {
  const source = await fsp.open(spool, 'r');
  try {
    const buffer = Buffer.allocUnsafeSlow(WRITE_BATCH_BYTES);
    for (let position = 0; ; ) {
      const { bytesRead } = await source.read(buffer, 0, buffer.byteLength, position);
      if (bytesRead === 0) return;
      await writeFully(target, [buffer.subarray(0, bytesRead)], offset + position);
      position += bytesRead;
    }
  } finally {
    await source.close();
  }
}
