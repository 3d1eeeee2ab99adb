/**
 * The FileSystem over a Cloudflare Durable Object's SQLite storage (`ctx.storage`): folders, files and symlinks
 * as rows, file contents in chunks, so one object holds a workspace that outlives the isolate. It passes the same
 * contract suite as the memory and disk backends (run inside workerd by test/adapters/fs).
 *
 * Model notes:
 * - `fs_entries` has one row per path (the real path: links are rows of their own, resolved component by
 *   component like the memory backend does). A file's bytes live in `fs_chunks` under a content id, in chunks of
 *   `chunk_size` bytes (every chunk but the last is full), so a row stays far below SQLite's 2 MB limit and a
 *   ranged read loads only the chunks it overlaps.
 * - SQL calls are synchronous and every change runs in one `transactionSync`, so each operation is atomic for other
 *   callers and a failed one (a precondition, a thrown error) rolls back whole: no folder `mkdirs` made, no chunks.
 * - A replacing write stores a new content id and drops the old one in the same transaction. Like an open file
 *   descriptor, a read stream holds its content id: a content dropped while held is parked in `fs_loose` and
 *   deleted when the last stream lets go. Streamed writes spool their data into `fs_loose` content as it arrives
 *   and claim it at the commit. Whatever is still loose when the storage is opened afresh (the isolate died
 *   mid-stream) is garbage, and is deleted then.
 * - Versions come from one counter in `fs_meta` (never the clock: workerd's Date.now() stands still during a
 *   request), prefixed by a random epoch made with the tables, so a recreated store never repeats an old version.
 * - The caller owns every entry; modes are stored (chmod) but not enforced: `capabilities.permissions` is false.
 * - Edge-clean: no `node:*` and no Cloudflare imports; the storage is typed structurally below.
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
import { FsError, isFsError } from './fs-error.ts';
import { checkOffset, checkPath, chunkBytesOf, maxBytesOf, rangeBounds, readdirLimitOf } from './arguments.ts';
import { cappedChunks, discardSource } from './capped-chunks.ts';
import { dirname, isInside, segments } from './posix-path.ts';
import { resolvePath, type PathTree } from './resolve-path.ts';
import { ConfinedFolders } from './confined-folders.ts';

/** The part of workerd's SqlStorageCursor used here. */
export interface SqlCursor extends Iterable<Record<string, unknown>> {
  toArray(): Record<string, unknown>[];
  /** The only row; throws unless there is exactly one. */
  one(): Record<string, unknown>;
}

/** The part of a SQLite-backed Durable Object's `ctx.storage` used here. */
export interface DurableObjectSqlStorage {
  sql: { exec(query: string, ...bindings: unknown[]): SqlCursor };
  /** Runs `fn` in a transaction: a throw rolls every statement back. */
  transactionSync<T>(fn: () => T): T;
}

export interface DurableObjectFileSystemOptions {
  /** Bytes per stored chunk of a file (default 256 KiB, at most 1 MiB: a row must stay well under 2 MB). */
  chunkBytes?: number;
}

const DEFAULT_CHUNK_BYTES = 256 * 1024;
const MAX_CHUNK_BYTES = 1024 * 1024;
/** A read stream's default piece, as the memory backend's: small reads for scanners that stop early. */
const STREAM_CHUNK = 64 * 1024;
const DEFAULT_FILE_MODE = 0o644;
const DEFAULT_DIR_MODE = 0o755;
const LINK_MODE = 0o777;

const SCHEMA = [
  `CREATE TABLE IF NOT EXISTS fs_entries (
    path TEXT PRIMARY KEY,   -- the real absolute path
    parent TEXT NOT NULL,    -- its folder's path ('' for the root)
    type TEXT NOT NULL,      -- 'file' | 'dir' | 'symlink'
    mode INTEGER NOT NULL,
    size INTEGER NOT NULL,   -- bytes of a file, of a link's text; 0 for a folder
    version TEXT NOT NULL,
    mtime INTEGER NOT NULL,
    target TEXT,             -- a link's text
    content INTEGER,         -- a file's content id (fs_chunks.content)
    chunk_size INTEGER       -- a file's bytes per chunk (fixed when the content was made)
  )`,
  'CREATE INDEX IF NOT EXISTS fs_entries_parent ON fs_entries (parent)',
  `CREATE TABLE IF NOT EXISTS fs_chunks (
    content INTEGER NOT NULL,
    idx INTEGER NOT NULL,
    data BLOB NOT NULL,
    PRIMARY KEY (content, idx)
  )`,
  'CREATE TABLE IF NOT EXISTS fs_meta (key TEXT PRIMARY KEY, value NOT NULL)',
  /** Content no entry points at: a streamed write's spool, or a dropped content a read stream still holds. */
  'CREATE TABLE IF NOT EXISTS fs_loose (content INTEGER PRIMARY KEY)',
];

/** A row of fs_entries. */
interface Entry {
  path: string;
  parent: string;
  type: 'file' | 'dir' | 'symlink';
  mode: number;
  size: number;
  version: string;
  mtime: number;
  target: string | null;
  content: number | null;
  chunk_size: number | null;
}

/** A file's bytes: `size` bytes in chunks of `chunkSize` under content id `id`. */
interface Content {
  id: number;
  size: number;
  chunkSize: number;
}

/** Where a path leads. */
interface Lookup {
  /** The real path of the entry (a link at the end is followed only when asked). */
  path: string;
  /** The real path of its folder; undefined only for the root itself. */
  parent: string | undefined;
  /** What is there, if anything. */
  entry: Entry | undefined;
}

/** The stored chunk a read stream is part-way through, so the next piece does not read it again. */
interface ChunkCache {
  idx: number;
  bytes: Uint8Array;
}

/**
 * What every DurableObjectFileSystem over one storage shares (a Durable Object may make several, one per
 * request): open streams' holds must be seen by all of them, and the loose content is cleaned only once.
 */
interface SharedState {
  /** Content id → how many open read streams hold it. */
  readers: Map<number, number>;
  epoch: string;
}

const shared = new WeakMap<DurableObjectSqlStorage, SharedState>();
const encoder = new TextEncoder();

export class DurableObjectFileSystem implements FileSystem {
  readonly capabilities: FileSystemCapabilities = { symlinks: true, watch: true, permissions: false };

  private readonly chunkBytes: number;
  private readonly state: SharedState;
  private readonly watchers = new Set<{ path: string; onEvent: (event: WatchEvent) => void }>();
  /** Events of the change in progress, reported once its transaction commits. */
  private pending: WatchEvent[] = [];

  constructor(
    private readonly storage: DurableObjectSqlStorage,
    options: DurableObjectFileSystemOptions = {},
  ) {
    const chunkBytes = options.chunkBytes ?? DEFAULT_CHUNK_BYTES;
    if (!Number.isSafeInteger(chunkBytes) || chunkBytes < 1 || chunkBytes > MAX_CHUNK_BYTES) {
      throw new RangeError(`chunkBytes must be an integer from 1 to ${MAX_CHUNK_BYTES}`);
    }
    this.chunkBytes = chunkBytes;
    let state = shared.get(storage);
    if (!state) {
      state = this.openStore();
      shared.set(storage, state);
    }
    this.state = state;
  }

  /** FileSystem.confine: content, listings and changes under a confined folder end inside it (./resolve-path.ts). */
  private readonly confined = new ConfinedFolders();

  confine(folder: string): void {
    this.confined.add(folder);
  }

  async stat(path: string): Promise<FileStat> {
    return statOf(this.existing(path, true, false));
  }

  async lstat(path: string): Promise<FileStat> {
    return statOf(this.existing(path, false, false));
  }

  async readdir(path: string, options?: { limit?: number }): Promise<DirEntry[]> {
    const limit = readdirLimitOf(options, path);
    const found = this.lookup(path, true);
    if (!found.entry) throw new FsError('not-found', path);
    if (found.entry.type !== 'dir') throw new FsError('not-directory', path);
    // The backend's order is the parent index's; SQLite stops at the limit (-1: none).
    const rows = this.all<{ path: string; type: Entry['type'] }>(
      'SELECT path, type FROM fs_entries WHERE parent = ? LIMIT ?',
      found.path,
      limit === Infinity ? -1 : limit,
    );
    return rows.map((row) => ({ name: row.path.slice(row.path.lastIndexOf('/') + 1), type: row.type }));
  }

  async readlink(path: string): Promise<string> {
    const entry = this.existing(path, false);
    if (entry.type !== 'symlink') throw new FsError('invalid', path, `invalid: not a symbolic link: ${path}`);
    return entry.target!;
  }

  async realpath(path: string): Promise<string> {
    const found = this.lookup(path, true, false); // where it leads, even outside: the caller judges that
    if (!found.entry) throw new FsError('not-found', path);
    return found.path;
  }

  async read(path: string, range?: ByteRange): Promise<Uint8Array> {
    return (await this.readWithStat(path, range)).bytes;
  }

  async readWithStat(path: string, range?: ByteRange): Promise<BytesWithStat> {
    const [start, end] = rangeBounds(range, path);
    const file = this.readableFile(path);
    const stop = Math.min(end, file.size);
    return { bytes: this.slice(contentOf(file), Math.min(start, stop), stop), stat: statOf(file) };
  }

  async readStream(path: string, range?: ByteRange, options?: ReadStreamOptions): Promise<ReadableStream<Uint8Array>> {
    const [start, end] = rangeBounds(range, path);
    const chunkBytes = chunkBytesOf(options?.chunkBytes, STREAM_CHUNK, path);
    const file = this.readableFile(path);
    const content = contentOf(file);
    const stop = Math.min(end, file.size);
    let position = Math.min(start, stop);
    // Like an open file descriptor: the stream keeps reading the content it opened, whatever is written later
    // (a write that replaces it defers deleting its chunks until the stream is done). Rows are read per pull.
    const release = this.hold(content.id);
    const cache: ChunkCache = { idx: -1, bytes: new Uint8Array(0) };
    return new ReadableStream<Uint8Array>({
      pull: (controller) => {
        try {
          if (position < stop) {
            const next = Math.min(position + chunkBytes, stop);
            controller.enqueue(this.slice(content, position, next, cache));
            position = next;
          }
        } catch (error) {
          release();
          throw error;
        }
        if (position >= stop) {
          release();
          controller.close();
        }
      },
      cancel: release,
    });
  }

  async write(path: string, data: Uint8Array | string, options: WriteOptions = {}): Promise<FileStat> {
    checkPath(path);
    const bytes = typeof data === 'string' ? encoder.encode(data) : data;
    return this.change(() => this.commitWrite(path, options, () => this.storeBytes(bytes)));
  }

  /**
   * The preconditions are checked before the source is read (fail fast) and again at the commit: whatever was
   * written while the data arrived is seen there. The data is spooled into loose chunks as it arrives, and the
   * commit points the file at them.
   */
  async writeStream(
    path: string,
    data: ReadableStream<Uint8Array>,
    options: WriteOptions & StreamLimit = {},
  ): Promise<FileStat> {
    let spooled: Content | undefined;
    try {
      checkPath(path);
      const maxBytes = maxBytesOf(options.maxBytes, path);
      this.precheckWrite(path, options);
      const content = (spooled = await this.spool(data, maxBytes, path));
      return this.change(() => this.commitWrite(path, options, () => content));
    } catch (error) {
      if (spooled) this.discard(spooled.id);
      await discardSource(data);
      throw error;
    }
  }

  async writeAt(
    path: string,
    offset: number,
    data: ReadableStream<Uint8Array> | Uint8Array,
    options: WriteAtOptions = {},
  ): Promise<FileStat> {
    let spooled: Content | undefined;
    try {
      checkPath(path);
      checkOffset(offset, path);
      const maxBytes = maxBytesOf(options.maxBytes, path);
      this.inPlaceTarget(path, offset, options.ifVersion);
      // A streamed source is received in full (spooled) before the file is touched.
      let pieces: () => Iterable<Uint8Array>;
      if (data instanceof ReadableStream) {
        const content = (spooled = await this.spool(data, maxBytes, path));
        pieces = () => this.chunksOf(content);
      } else {
        if (data.byteLength > maxBytes) {
          throw new FsError('too-large', path, `too-large: more than ${maxBytes} bytes for ${path}`);
        }
        pieces = () => [data];
      }
      return this.change(() => {
        const found = this.inPlaceTarget(path, offset, options.ifVersion);
        const end = this.patch(contentOf(found.entry), offset, pieces());
        const size = Math.max(found.entry.size, end);
        const stat: FileStat = { type: 'file', size, mtimeMs: Date.now(), version: this.nextVersion() };
        this.run('UPDATE fs_entries SET size = ?, version = ?, mtime = ? WHERE path = ?', size, stat.version, stat.mtimeMs, found.path);
        if (spooled) this.deleteContent(spooled.id);
        this.pending.push({ kind: 'change', path: found.path });
        return stat;
      });
    } catch (error) {
      if (spooled) this.discard(spooled.id);
      await discardSource(data);
      throw error;
    }
  }

  async mkdir(path: string, options: { recursive?: boolean } = {}): Promise<void> {
    checkPath(path);
    this.change(() => {
      if (options.recursive) return this.mkdirChain(path);
      const found = this.lookup(path, false);
      if (found.entry || found.parent === undefined) throw new FsError('exists', path);
      this.createDir(found.path, found.parent);
    });
  }

  async remove(path: string, options: { recursive?: boolean } = {}): Promise<void> {
    checkPath(path);
    this.change(() => {
      const found = this.lookup(path, false);
      if (!found.entry) throw new FsError('not-found', path);
      if (found.parent === undefined) throw new FsError('invalid', path, 'invalid: refusing to remove /');
      if (found.entry.type === 'dir' && !options.recursive && this.hasChildren(found.path)) {
        throw new FsError('not-empty', path);
      }
      this.removeTree(found.path);
      this.touch(found.parent);
      this.pending.push({ kind: 'delete', path: found.path });
    });
  }

  async rename(from: string, to: string, options: { overwrite?: boolean } = {}): Promise<void> {
    this.change(() => {
      const pair = this.resolvePair(from, to, options.overwrite === true);
      if (!pair) return;
      const { source, target } = pair;
      if (target.entry) this.removeTree(target.path);
      this.run('UPDATE fs_entries SET path = ?, parent = ? WHERE path = ?', target.path, target.parent, source.path);
      if (source.entry.type === 'dir') {
        // Every descendant in one statement: swap the old prefix of its path and its folder's path for the new
        // one (length() counts as substr() does, in characters).
        this.run(
          `UPDATE fs_entries SET path = ?1 || substr(path, length(?2) + 1), parent = ?1 || substr(parent, length(?2) + 1)
           WHERE path >= ?2 || '/' AND path < ?2 || '0'`,
          target.path,
          source.path,
        );
      }
      this.touch(source.parent);
      this.touch(target.parent);
      this.pending.push({ kind: 'delete', path: source.path }, { kind: 'create', path: target.path });
    });
  }

  async copy(from: string, to: string, options: { overwrite?: boolean } = {}): Promise<void> {
    this.change(() => {
      const pair = this.resolvePair(from, to, options.overwrite === true);
      if (!pair) throw new FsError('invalid', to, `invalid: cannot copy onto itself: ${to}`);
      const { source, target } = pair;
      if (target.entry) this.removeTree(target.path);
      const now = Date.now();
      for (const row of this.all<Entry>(`SELECT * FROM fs_entries WHERE ${SUBTREE}`, source.path)) {
        // Every row's path starts with the source's: the rest is the same under the target.
        const rest = row.path.slice(source.path.length);
        let content: number | null = null;
        if (row.content !== null) {
          content = this.nextNumber();
          this.run('INSERT INTO fs_chunks (content, idx, data) SELECT ?, idx, data FROM fs_chunks WHERE content = ?', content, row.content);
        }
        this.insertEntry({
          ...row,
          path: target.path + rest,
          parent: rest === '' ? target.parent : target.path + row.parent.slice(source.path.length),
          version: this.nextVersion(),
          mtime: now,
          content,
        });
      }
      this.touch(target.parent);
      this.pending.push({ kind: 'create', path: target.path });
    });
  }

  async symlink(target: string, path: string): Promise<void> {
    checkPath(path);
    if (target === '' || target.includes('\0')) throw new FsError('invalid', path, 'invalid: bad link text');
    this.change(() => {
      const found = this.lookup(path, false);
      if (found.entry || found.parent === undefined) throw new FsError('exists', path);
      this.insertEntry({
        path: found.path,
        parent: found.parent,
        type: 'symlink',
        mode: LINK_MODE,
        size: encoder.encode(target).byteLength,
        version: this.nextVersion(),
        mtime: Date.now(),
        target,
        content: null,
        chunk_size: null,
      });
      this.touch(found.parent);
      this.pending.push({ kind: 'create', path: found.path });
    });
  }

  /** Stores the bits (through links, as chmod does); nothing enforces them here (`permissions: false`). */
  async chmod(path: string, mode: number): Promise<void> {
    if (!Number.isInteger(mode) || mode < 0 || mode > 0o7777) throw new FsError('invalid', path, 'invalid: mode');
    const found = this.lookup(path, true);
    if (!found.entry) throw new FsError('not-found', path);
    this.run('UPDATE fs_entries SET mode = ? WHERE path = ?', mode, found.path);
  }

  /**
   * Reports the changes this object makes at or under `path` (by real path, after they commit): content writes,
   * entries created, removed and moved. Writes made through another object over the same storage are not seen.
   */
  watch(path: string, onEvent: (event: WatchEvent) => void): () => void {
    checkPath(path);
    const watcher = { path, onEvent };
    this.watchers.add(watcher);
    return () => {
      this.watchers.delete(watcher);
    };
  }

  // ---------------------------------------------------------------------------------------------------------

  /** Creates the tables (first use) and deletes the loose content a previous isolate left behind. */
  private openStore(): SharedState {
    return this.storage.transactionSync(() => {
      for (const statement of SCHEMA) this.run(statement);
      this.run("INSERT OR IGNORE INTO fs_meta (key, value) VALUES ('counter', 0), ('epoch', ?)", randomEpoch());
      const epoch = String(this.all<{ value: unknown }>("SELECT value FROM fs_meta WHERE key = 'epoch'")[0]!.value);
      const state: SharedState = { readers: new Map(), epoch };
      this.run('DELETE FROM fs_chunks WHERE content IN (SELECT content FROM fs_loose)');
      this.run('DELETE FROM fs_loose');
      if (!this.entryAt('/')) {
        const version = `${epoch}-${this.nextNumber()}`;
        this.run(
          "INSERT INTO fs_entries (path, parent, type, mode, size, version, mtime) VALUES ('/', '', 'dir', ?, 0, ?, ?)",
          DEFAULT_DIR_MODE,
          version,
          Date.now(),
        );
      }
      return state;
    });
  }

  /**
   * Resolves `path` like the kernel does: every intermediate symlink is followed (relative text against the
   * link's folder, ".." physically), the last one only when `followLast`; at most 40 links per lookup.
   * Throws not-found / not-directory / loop for the path up to the last name; the last name itself may be
   * missing (entry undefined). One indexed row read per component.
   */
  private lookup(path: string, followLast: boolean, confine = true): Lookup {
    const found = resolvePath(path, followLast, this.tree, confine ? this.confined : undefined);
    const folder = pathOf(found.names);
    if (found.kind === 'entry') return { path: childOf(folder, found.name), parent: folder, entry: found.entry };
    return { path: folder, parent: found.names.length === 0 ? undefined : pathOf(found.names.slice(0, -1)), entry: this.entryAt(folder) };
  }

  /** The entries as the shared walk sees them (./resolve-path.ts): a folder is known by its real path. */
  private readonly tree: PathTree<string, Entry> = {
    root: '/',
    child: (dir, name) => this.entryAt(childOf(dir, name)),
    linkTarget: (entry) => (entry.type === 'symlink' ? entry.target! : undefined),
    asFolder: (entry) => (entry.type === 'dir' ? entry.path : undefined),
  };

  private existing(path: string, followLast: boolean, confine = true): Entry {
    const entry = this.lookup(path, followLast, confine).entry;
    if (!entry) throw new FsError('not-found', path);
    return entry;
  }

  private readableFile(path: string): Entry {
    const entry = this.existing(path, true);
    if (entry.type === 'dir') throw new FsError('is-directory', path);
    if (entry.type !== 'file') throw new FsError('invalid', path);
    return entry;
  }

  /**
   * Inside a transaction: makes the missing parents (`mkdirs`), checks the preconditions, then points the file at
   * the content `store` gives (a new content id; the one it replaces is dropped).
   */
  private commitWrite(path: string, options: WriteOptions, store: () => Content): FileStat {
    if (options.mkdirs) {
      try {
        this.mkdirChain(dirname(path));
      } catch (error) {
        if (isFsError(error, 'exists')) throw new FsError('not-directory', dirname(path));
        throw error;
      }
    }
    const found = this.writeTarget(path, options);
    const content = store();
    const stat: FileStat = { type: 'file', size: content.size, mtimeMs: Date.now(), version: this.nextVersion() };
    const old = found.entry;
    if (old) {
      this.run(
        'UPDATE fs_entries SET size = ?, version = ?, mtime = ?, content = ?, chunk_size = ? WHERE path = ?',
        stat.size,
        stat.version,
        stat.mtimeMs,
        content.id,
        content.chunkSize,
        found.path,
      );
      this.dropContent(old.content!);
    } else {
      this.insertEntry({
        path: found.path,
        parent: found.parent,
        type: 'file',
        mode: DEFAULT_FILE_MODE,
        size: stat.size,
        version: stat.version,
        mtime: stat.mtimeMs,
        target: null,
        content: content.id,
        chunk_size: content.chunkSize,
      });
      this.touch(found.parent);
    }
    // A spool is the file's now.
    this.run('DELETE FROM fs_loose WHERE content = ?', content.id);
    this.pending.push({ kind: old ? 'change' : 'create', path: found.path });
    return stat;
  }

  /** Where a replacing write lands, after every check it makes before changing anything. */
  private writeTarget(path: string, options: WriteOptions): Lookup & { parent: string } {
    // Exclusive means nothing at all at the path, a dangling link included (O_CREAT|O_EXCL).
    if (options.exclusive && this.lookup(path, false).entry) throw new FsError('exists', path);
    // Follows a link at the path to its target, also a missing one (open(O_CREAT) semantics).
    const found = this.lookup(path, true);
    if (found.parent === undefined || found.entry?.type === 'dir') throw new FsError('is-directory', path);
    if (options.ifVersion !== undefined && found.entry?.version !== options.ifVersion) {
      throw new FsError('version-mismatch', path);
    }
    return found as Lookup & { parent: string };
  }

  /** writeStream's early check: writeTarget's, where parents that `mkdirs` would create are missing too. */
  private precheckWrite(path: string, options: WriteOptions): void {
    try {
      this.writeTarget(path, options);
    } catch (error) {
      if (!(options.mkdirs && isFsError(error, 'not-found'))) throw error;
      // The file cannot exist under a missing folder, so only `ifVersion` can already fail.
      if (options.ifVersion !== undefined) throw new FsError('version-mismatch', path);
    }
  }

  /** writeAt's target, in the other backends' order: folder, not a file, offset, version. */
  private inPlaceTarget(path: string, offset: number, ifVersion: string | undefined): { path: string; entry: Entry } {
    const found = this.lookup(path, true);
    const entry = found.entry;
    if (!entry) throw new FsError('not-found', path);
    if (entry.type === 'dir') throw new FsError('is-directory', path);
    if (entry.type !== 'file') throw new FsError('invalid', path, `invalid: not a regular file: ${path}`);
    if (offset > entry.size) throw new FsError('invalid', path, `invalid: offset past the end of ${path}`);
    if (ifVersion !== undefined && entry.version !== ifVersion) throw new FsError('version-mismatch', path);
    return { path: found.path, entry };
  }

  /** mkdir -p, following links on the way, in the other backends' order of errors. */
  private mkdirChain(path: string): void {
    const parts = segments(path);
    for (let i = 1; i <= parts.length; i++) {
      const prefix = '/' + parts.slice(0, i).join('/');
      const found = this.lookup(prefix, true);
      if (found.entry?.type === 'dir') continue;
      if (found.entry) throw new FsError(i === parts.length ? 'exists' : 'not-directory', path);
      // A dangling link on the way: mkdir would not create its target (EEXIST on the link, then ENOENT).
      if (this.lookup(prefix, false).entry) throw new FsError('not-found', path);
      this.createDir(found.path, found.parent!);
    }
  }

  private createDir(path: string, parent: string): void {
    this.insertEntry({
      path,
      parent,
      type: 'dir',
      mode: DEFAULT_DIR_MODE,
      size: 0,
      version: this.nextVersion(),
      mtime: Date.now(),
      target: null,
      content: null,
      chunk_size: null,
    });
    this.touch(parent);
    this.pending.push({ kind: 'create', path });
  }

  /**
   * The shared preamble of rename and copy, in the same order as the other backends: source, target's folder,
   * same entry (undefined), exists, folder into itself, target containing the source.
   */
  private resolvePair(
    from: string,
    to: string,
    overwrite: boolean,
  ): { source: Lookup & { entry: Entry; parent: string }; target: Lookup & { parent: string } } | undefined {
    checkPath(from);
    checkPath(to);
    if (from === '/' || to === '/') throw new FsError('invalid', from, 'invalid: cannot move or copy /');
    const source = this.lookup(from, false);
    if (!source.entry) throw new FsError('not-found', from);
    const target = this.lookup(to, false);
    if (source.parent === undefined || target.parent === undefined) throw new FsError('invalid', from);
    if (source.path === target.path) return undefined;
    if (target.entry && !overwrite) throw new FsError('exists', to);
    if (source.entry.type === 'dir' && isInside(source.path, target.parent)) {
      throw new FsError('invalid', to, `invalid: cannot put a folder inside itself: ${to}`);
    }
    if (target.entry?.type === 'dir' && isInside(target.path, source.parent)) {
      throw new FsError('invalid', to, `invalid: cannot replace a folder that contains the source: ${to}`);
    }
    return {
      source: source as Lookup & { entry: Entry; parent: string },
      target: target as Lookup & { parent: string },
    };
  }

  private hasChildren(path: string): boolean {
    return this.all('SELECT 1 FROM fs_entries WHERE parent = ? LIMIT 1', path).length > 0;
  }

  /** Deletes the entry at `path` and everything under it, with their contents. */
  private removeTree(path: string): void {
    for (const row of this.all<{ content: number }>(`SELECT content FROM fs_entries WHERE content IS NOT NULL AND ${SUBTREE}`, path)) {
      this.dropContent(row.content);
    }
    this.run(`DELETE FROM fs_entries WHERE ${SUBTREE}`, path);
  }

  /** A folder's entries changed: like a disk folder, its mtime and version move. */
  private touch(dir: string): void {
    this.run('UPDATE fs_entries SET mtime = ?, version = ? WHERE path = ?', Date.now(), this.nextVersion(), dir);
  }

  private insertEntry(entry: Entry): void {
    this.run(
      `INSERT INTO fs_entries (path, parent, type, mode, size, version, mtime, target, content, chunk_size)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      entry.path,
      entry.parent,
      entry.type,
      entry.mode,
      entry.size,
      entry.version,
      entry.mtime,
      entry.target,
      entry.content,
      entry.chunk_size,
    );
  }

  // --- contents ----------------------------------------------------------------------------------------------

  /** Stores `bytes` under a new content id, in chunks (inside the caller's transaction). */
  private storeBytes(bytes: Uint8Array): Content {
    const content: Content = { id: this.nextNumber(), size: bytes.byteLength, chunkSize: this.chunkBytes };
    for (let idx = 0; idx * content.chunkSize < bytes.byteLength; idx++) {
      const start = idx * content.chunkSize;
      this.putChunk(content.id, idx, bytes.subarray(start, Math.min(start + content.chunkSize, bytes.byteLength)));
    }
    return content;
  }

  /**
   * Receives a streamed source into new loose content, chunk by chunk as it arrives (the source is never held
   * whole); past `maxBytes` it fails `too-large` (cappedChunks cancels the source). On any failure the chunks
   * written so far are deleted; if the isolate dies meanwhile, the next one deletes them (fs_loose).
   */
  private async spool(source: ReadableStream<Uint8Array>, maxBytes: number, path: string): Promise<Content> {
    const chunkSize = this.chunkBytes;
    const id = this.nextNumber();
    this.run('INSERT INTO fs_loose (content) VALUES (?)', id);
    const buffer = new Uint8Array(chunkSize);
    let filled = 0;
    let idx = 0;
    let size = 0;
    try {
      for await (const piece of cappedChunks(source, maxBytes, path)) {
        for (let at = 0; at < piece.byteLength; ) {
          const n = Math.min(chunkSize - filled, piece.byteLength - at);
          buffer.set(piece.subarray(at, at + n), filled);
          filled += n;
          at += n;
          if (filled === chunkSize) {
            this.putChunk(id, idx++, buffer);
            filled = 0;
          }
        }
        size += piece.byteLength;
      }
      if (filled > 0) this.putChunk(id, idx, buffer.subarray(0, filled));
      return { id, size, chunkSize };
    } catch (error) {
      this.discard(id);
      throw error;
    }
  }

  /** A content's chunks in order, read one row at a time. */
  private *chunksOf(content: Content): Generator<Uint8Array> {
    for (let idx = 0; idx * content.chunkSize < content.size; idx++) {
      const chunk = this.chunkAt(content.id, idx);
      if (!chunk) throw new FsError('io', '', `io: chunk ${idx} of content ${content.id} is missing`);
      yield chunk;
    }
  }

  /**
   * Writes `pieces` into a content at `offset` (≤ its size), rewriting only the chunks they touch, each once;
   * returns where the data ended. Chunks keep their invariant: all full but the last.
   */
  private patch(content: Content, offset: number, pieces: Iterable<Uint8Array>): number {
    const size = content.chunkSize;
    let position = offset;
    let idx = -1;
    let buffer = new Uint8Array(size);
    let used = 0;
    const flush = () => {
      if (idx >= 0) this.putChunk(content.id, idx, buffer.subarray(0, used));
    };
    for (const piece of pieces) {
      for (let at = 0; at < piece.byteLength; ) {
        const chunk = Math.floor(position / size);
        const within = position - chunk * size;
        if (chunk !== idx) {
          flush();
          idx = chunk;
          const existing = this.chunkAt(content.id, chunk) ?? new Uint8Array(0);
          buffer = new Uint8Array(size);
          buffer.set(existing);
          used = existing.byteLength;
        }
        const n = Math.min(size - within, piece.byteLength - at);
        buffer.set(piece.subarray(at, at + n), within);
        used = Math.max(used, within + n);
        at += n;
        position += n;
      }
    }
    flush();
    return position;
  }

  /**
   * The bytes [start, end) of a content (a fresh array), reading only the chunks that overlap them. A stream
   * passes its `cache`: the chunk it is part-way through is not read again, and the last one read is kept.
   */
  private slice(content: Content, start: number, end: number, cache?: ChunkCache): Uint8Array {
    const out = new Uint8Array(Math.max(0, end - start));
    if (out.byteLength === 0) return out;
    const size = content.chunkSize;
    let copied = 0;
    const place = (idx: number, bytes: Uint8Array) => {
      const base = idx * size;
      const from = Math.max(start, base);
      const to = Math.min(end, base + bytes.byteLength);
      if (to <= from) return;
      out.set(bytes.subarray(from - base, to - base), from - start);
      copied += to - from;
    };
    let first = Math.floor(start / size);
    const last = Math.floor((end - 1) / size);
    if (cache?.idx === first) place(first++, cache.bytes);
    if (first <= last) {
      const rows = this.storage.sql.exec(
        'SELECT idx, data FROM fs_chunks WHERE content = ? AND idx BETWEEN ? AND ?',
        content.id,
        first,
        last,
      );
      for (const row of rows) {
        const bytes = new Uint8Array(row.data as ArrayBuffer);
        place(row.idx as number, bytes);
        if (cache) {
          cache.idx = row.idx as number;
          cache.bytes = bytes;
        }
      }
    }
    if (copied !== out.byteLength) throw new FsError('io', '', `io: chunks of content ${content.id} are missing`);
    return out;
  }

  private chunkAt(id: number, idx: number): Uint8Array | undefined {
    const row = this.all<{ data: ArrayBuffer }>('SELECT data FROM fs_chunks WHERE content = ? AND idx = ?', id, idx)[0];
    return row && new Uint8Array(row.data);
  }

  private putChunk(id: number, idx: number, bytes: Uint8Array): void {
    // The binding copies the bytes, so callers may reuse their buffer.
    this.run('INSERT OR REPLACE INTO fs_chunks (content, idx, data) VALUES (?, ?, ?)', id, idx, bytes);
  }

  /** A content no entry points at any more: deleted now, or parked loose while a read stream holds it. */
  private dropContent(id: number): void {
    if (this.state.readers.has(id)) this.run('INSERT OR IGNORE INTO fs_loose (content) VALUES (?)', id);
    else this.deleteContent(id);
  }

  private deleteContent(id: number): void {
    this.run('DELETE FROM fs_chunks WHERE content = ?', id);
    this.run('DELETE FROM fs_loose WHERE content = ?', id);
  }

  /** Deletes loose content outside any change (a failed spool). */
  private discard(id: number): void {
    this.storage.transactionSync(() => this.deleteContent(id));
  }

  /** A read stream's hold on a content; the returned release (idempotent) deletes it if it was dropped meanwhile. */
  private hold(id: number): () => void {
    const readers = this.state.readers;
    readers.set(id, (readers.get(id) ?? 0) + 1);
    let held = true;
    return () => {
      if (!held) return;
      held = false;
      const left = readers.get(id)! - 1;
      if (left > 0) {
        readers.set(id, left);
        return;
      }
      readers.delete(id);
      // fs_loose, not memory, says whether it was dropped: a drop inside a rolled-back change never happened.
      if (this.all('SELECT 1 FROM fs_loose WHERE content = ?', id).length > 0) this.discard(id);
    };
  }

  // --- SQL ---------------------------------------------------------------------------------------------------

  private entryAt(path: string): Entry | undefined {
    return this.all<Entry>('SELECT * FROM fs_entries WHERE path = ?', path)[0];
  }

  private all<T>(query: string, ...bindings: unknown[]): T[] {
    return this.storage.sql.exec(query, ...bindings).toArray() as unknown as T[];
  }

  /** Runs a statement to completion (a cursor left unread might not have run it all). */
  private run(query: string, ...bindings: unknown[]): void {
    this.storage.sql.exec(query, ...bindings).toArray();
  }

  /** The store's counter: content ids and versions, never reused. */
  private nextNumber(): number {
    return this.all<{ value: number }>("UPDATE fs_meta SET value = value + 1 WHERE key = 'counter' RETURNING value")[0]!.value;
  }

  private nextVersion(): string {
    return `${this.state.epoch}-${this.nextNumber()}`;
  }

  /** Runs a change in one transaction; its watch events go out once it has committed. */
  private change<T>(fn: () => T): T {
    this.pending = [];
    const result = this.storage.transactionSync(fn);
    const events = this.pending;
    this.pending = [];
    for (const event of events) {
      for (const watcher of this.watchers) {
        if (!isInside(watcher.path, event.path)) continue;
        try {
          watcher.onEvent(event);
        } catch (error) {
          // The change is made: a failing listener must not make it look failed.
          console.error('DurableObjectFileSystem: a watch listener failed', error);
        }
      }
    }
    return result;
  }
}

/** The entry at ?1 and everything under it ('0' follows '/'; the range is the paths that start with ?1/). */
const SUBTREE = "(path = ?1 OR (path >= ?1 || '/' AND path < ?1 || '0'))";

function childOf(folder: string, name: string): string {
  return folder === '/' ? `/${name}` : `${folder}/${name}`;
}

function pathOf(names: string[]): string {
  return '/' + names.join('/');
}

function contentOf(file: Entry): Content {
  return { id: file.content!, size: file.size, chunkSize: file.chunk_size! };
}

function statOf(entry: Entry): FileStat {
  return { type: entry.type, size: entry.size, mtimeMs: entry.mtime, version: entry.version };
}

function randomEpoch(): string {
  return crypto.randomUUID().slice(0, 8);
}
