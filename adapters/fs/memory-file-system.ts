/**
 * A real in-memory file system: a tree of folders, files and symlinks with POSIX path resolution, permission
 * bits and versions. It backs tests and the edge runtime, and passes the same contract suite as the disk.
 *
 * Model notes:
 * - The caller is the owner of every node, so the owner bits (0o400 read, 0o200 write, 0o100 search) decide,
 *   as they would on disk for files the daemon created itself.
 * - Every operation runs synchronously inside its promise, so each one is atomic for other callers.
 * - File bytes are never mutated in place (a write swaps in a new array), so streams and copies may share
 *   them; bytes crossing the API boundary are always copied.
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
  WriteAtOptions,
  WriteOptions,
} from './file-system.ts';
import { FsError, isFsError } from './fs-error.ts';
import { checkOffset, checkPath, chunkBytesOf, maxBytesOf, rangeBounds, readdirLimitOf } from './arguments.ts';
import { collectCapped, discardSource } from './capped-chunks.ts';
import { dirname, segments } from './posix-path.ts';
import { resolvePath, type PathTree } from './resolve-path.ts';
import { ConfinedFolders } from './confined-folders.ts';

const STREAM_CHUNK = 64 * 1024;
const DEFAULT_FILE_MODE = 0o644;
const DEFAULT_DIR_MODE = 0o755;
const OWNER_READ = 0o400;
const OWNER_WRITE = 0o200;
const OWNER_SEARCH = 0o100;

interface NodeBase {
  mode: number;
  mtimeMs: number;
  version: number;
}
interface DirNode extends NodeBase {
  kind: 'dir';
  children: Map<string, MemNode>;
}
interface FileNode extends NodeBase {
  kind: 'file';
  data: Uint8Array;
}
interface LinkNode extends NodeBase {
  kind: 'symlink';
  target: string;
}
type MemNode = DirNode | FileNode | LinkNode;

/** Where a path leads: the real parent folder, the last name, and the node there (if any). */
interface Lookup {
  /** Undefined only for the root itself. */
  parent: DirNode | undefined;
  name: string;
  node: MemNode | undefined;
  /** The folders from the root down to `parent` (real, after following links). */
  ancestors: DirNode[];
  /** The real path of the entry. */
  realPath: string;
}

const encoder = new TextEncoder();

export class MemoryFileSystem implements FileSystem {
  readonly capabilities: FileSystemCapabilities = { symlinks: true, watch: false, permissions: true };

  private versionCounter = 0;
  private readonly root: DirNode = this.newDir(DEFAULT_DIR_MODE);

  /** `seed` maps absolute paths to file contents; parent folders are created as needed. */
  constructor(seed: Record<string, string | Uint8Array> = {}) {
    for (const [path, content] of Object.entries(seed)) {
      checkPath(path);
      this.mkdirSync(dirname(path), true);
      this.writeSync(path, content, {});
    }
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
    const dir = this.existing(path, true);
    if (dir.kind !== 'dir') throw new FsError('not-directory', path);
    if (!(dir.mode & OWNER_READ)) throw new FsError('permission-denied', path);
    // The backend's own order is insertion order; stop at the limit rather than copying every child.
    const entries: DirEntry[] = [];
    for (const [name, node] of dir.children) {
      if (entries.length >= limit) break;
      entries.push({ name, type: node.kind });
    }
    return entries;
  }

  async readlink(path: string): Promise<string> {
    const node = this.existing(path, false);
    if (node.kind !== 'symlink') throw new FsError('invalid', path, `invalid: not a symbolic link: ${path}`);
    return node.target;
  }

  async realpath(path: string): Promise<string> {
    const found = this.lookup(path, true, false); // where it leads, even outside: the caller judges that
    if (!found.node) throw new FsError('not-found', path);
    return found.realPath;
  }

  async read(path: string, range?: ByteRange): Promise<Uint8Array> {
    return (await this.readWithStat(path, range)).bytes;
  }

  async readWithStat(path: string, range?: ByteRange): Promise<BytesWithStat> {
    const [start, end] = rangeBounds(range, path);
    const file = this.readableFile(path);
    const data = file.data;
    return { bytes: data.slice(Math.min(start, data.length), Math.min(end, data.length)), stat: statOf(file) };
  }

  async readStream(path: string, range?: ByteRange, options?: ReadStreamOptions): Promise<ReadableStream<Uint8Array>> {
    const [start, end] = rangeBounds(range, path);
    const chunkBytes = chunkBytesOf(options?.chunkBytes, STREAM_CHUNK, path);
    // Like an open file descriptor: the stream keeps reading the bytes it opened, whatever is written later.
    const data = this.readableFile(path).data;
    const stop = Math.min(end, data.length);
    let position = Math.min(start, stop);
    return new ReadableStream<Uint8Array>({
      pull(controller) {
        if (position >= stop) {
          controller.close();
          return;
        }
        const next = Math.min(position + chunkBytes, stop);
        controller.enqueue(data.slice(position, next));
        position = next;
      },
    });
  }

  async write(path: string, data: Uint8Array | string, options: WriteOptions = {}): Promise<FileStat> {
    return this.writeSync(path, data, options);
  }

  /**
   * The preconditions are checked before the source is read (fail fast) and again, synchronously, at the
   * commit: whatever was written while the data arrived is seen there.
   */
  async writeStream(
    path: string,
    data: ReadableStream<Uint8Array>,
    options: WriteOptions & StreamLimit = {},
  ): Promise<FileStat> {
    try {
      checkPath(path);
      const maxBytes = maxBytesOf(options.maxBytes, path);
      this.precheckWrite(path, options);
      return this.writeSync(path, await collectCapped(data, maxBytes, path), options);
    } catch (error) {
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
    try {
      checkPath(path);
      checkOffset(offset, path);
      const maxBytes = maxBytesOf(options.maxBytes, path);
      this.inPlaceTarget(path, offset, options.ifVersion);
      const bytes = data instanceof ReadableStream ? await collectCapped(data, maxBytes, path) : data;
      if (bytes.byteLength > maxBytes) {
        throw new FsError('too-large', path, `too-large: more than ${maxBytes} bytes for ${path}`);
      }
      const node = this.inPlaceTarget(path, offset, options.ifVersion);
      // A new array rather than a mutation: streams opened earlier keep reading the bytes they opened.
      const next = new Uint8Array(Math.max(node.data.byteLength, offset + bytes.byteLength));
      next.set(node.data);
      next.set(bytes, offset);
      node.data = next;
      node.mtimeMs = Date.now();
      node.version = ++this.versionCounter;
      return statOf(node);
    } catch (error) {
      await discardSource(data);
      throw error;
    }
  }

  async mkdir(path: string, options: { recursive?: boolean } = {}): Promise<void> {
    this.mkdirSync(path, options.recursive === true);
  }

  async remove(path: string, options: { recursive?: boolean } = {}): Promise<void> {
    checkPath(path);
    const found = this.lookup(path, false);
    if (!found.node) throw new FsError('not-found', path);
    if (!found.parent) throw new FsError('invalid', path, 'invalid: refusing to remove /');
    const node = found.node;
    this.requireWritable(found.parent, path);
    if (node.kind === 'dir' && node.children.size > 0) {
      if (!options.recursive) throw new FsError('not-empty', path);
      // Check the whole tree first, so a denied subfolder leaves everything in place.
      this.checkRemovable(node, path);
    }
    found.parent.children.delete(found.name);
    this.touch(found.parent);
  }

  async rename(from: string, to: string, options: { overwrite?: boolean } = {}): Promise<void> {
    const pair = this.resolvePair(from, to, options.overwrite === true);
    if (!pair) return;
    const { source, target } = pair;
    this.requireWritable(source.parent, from);
    this.requireWritable(target.parent, to);
    source.parent.children.delete(source.name);
    target.parent.children.set(target.name, source.node);
    this.touch(source.parent);
    this.touch(target.parent);
  }

  async copy(from: string, to: string, options: { overwrite?: boolean } = {}): Promise<void> {
    const pair = this.resolvePair(from, to, options.overwrite === true);
    if (!pair) throw new FsError('invalid', to, `invalid: cannot copy onto itself: ${to}`);
    const { source, target } = pair;
    this.checkCopyable(source.node, from);
    this.requireWritable(target.parent, to);
    target.parent.children.set(target.name, this.clone(source.node));
    this.touch(target.parent);
  }

  async symlink(target: string, path: string): Promise<void> {
    checkPath(path);
    if (target === '' || target.includes('\0')) throw new FsError('invalid', path, 'invalid: bad link text');
    const found = this.lookup(path, false);
    if (found.node || !found.parent) throw new FsError('exists', path);
    this.requireWritable(found.parent, path);
    found.parent.children.set(found.name, {
      kind: 'symlink',
      target,
      mode: 0o777,
      mtimeMs: Date.now(),
      version: ++this.versionCounter,
    });
    this.touch(found.parent);
  }

  async chmod(path: string, mode: number): Promise<void> {
    if (!Number.isInteger(mode) || mode < 0 || mode > 0o7777) throw new FsError('invalid', path, 'invalid: mode');
    this.existing(path, true).mode = mode;
  }

  // ---------------------------------------------------------------------------------------------------------

  /**
   * Resolves `path` like the kernel does: every intermediate symlink is followed (relative text against the
   * link's folder, ".." physically), the last one only when `followLast`; at most 40 links per lookup.
   * Throws not-found / not-directory / permission-denied / loop for the path up to the last name; the last
   * name itself may be missing (node undefined).
   */
  private lookup(path: string, followLast: boolean, confine = true): Lookup {
    const found = resolvePath(path, followLast, this.tree, confine ? this.confined : undefined);
    if (found.kind === 'entry') {
      const { folders, names, name, entry } = found;
      return { parent: folders[folders.length - 1], name, node: entry, ancestors: folders, realPath: realPathOf([...names, name]) };
    }
    const { folders, names } = found;
    const node = folders.pop()!;
    const name = names.pop() ?? '';
    return { parent: folders[folders.length - 1], name, node, ancestors: folders, realPath: realPathOf([...names, name]) };
  }

  /** This tree as the shared walk sees it (./resolve-path.ts): folders must be searchable to look inside. */
  private readonly tree: PathTree<DirNode, MemNode> = {
    root: this.root,
    child: (dir, name, path) => {
      if (!(dir.mode & OWNER_SEARCH)) throw new FsError('permission-denied', path);
      return dir.children.get(name);
    },
    linkTarget: (node) => (node.kind === 'symlink' ? node.target : undefined),
    asFolder: (node) => (node.kind === 'dir' ? node : undefined),
  };

  private existing(path: string, followLast: boolean, confine = true): MemNode {
    const node = this.lookup(path, followLast, confine).node;
    if (!node) throw new FsError('not-found', path);
    return node;
  }

  private readableFile(path: string): FileNode {
    const node = this.existing(path, true);
    if (node.kind === 'dir') throw new FsError('is-directory', path);
    if (node.kind !== 'file') throw new FsError('invalid', path);
    if (!(node.mode & OWNER_READ)) throw new FsError('permission-denied', path);
    return node;
  }

  private writeSync(path: string, data: Uint8Array | string, options: WriteOptions): FileStat {
    checkPath(path);
    // Copy in: the caller keeps no handle on the stored bytes (new Uint8Array copies, even from a Buffer).
    const bytes = typeof data === 'string' ? encoder.encode(data) : new Uint8Array(data);
    let createdFrom: string | undefined;
    if (options.mkdirs) {
      createdFrom = this.firstMissingAncestor(dirname(path));
      try {
        this.mkdirSync(dirname(path), true);
      } catch (error) {
        if (error instanceof FsError && error.code === 'exists') throw new FsError('not-directory', dirname(path));
        throw error;
      }
    }
    try {
      return this.writeInto(path, bytes, options);
    } catch (error) {
      // A failed write leaves no trace: the folders it created for itself go too.
      // (Synchronous here, so nothing else can have been put inside them meanwhile.)
      if (createdFrom !== undefined) {
        const created = this.lookup(createdFrom, false);
        created.parent?.children.delete(created.name);
      }
      throw error;
    }
  }

  /** The topmost folder of `folder`'s chain that does not exist yet (what mkdir -p would create first). */
  private firstMissingAncestor(folder: string): string | undefined {
    let missing: string | undefined;
    for (let at = folder; at !== '/'; at = dirname(at)) {
      try {
        if (this.lookup(at, true).node) break;
      } catch (error) {
        if (!(error instanceof FsError && error.code === 'not-found')) throw error;
      }
      missing = at;
    }
    return missing;
  }

  /** Where a replacing write lands, after every check it makes before changing anything. */
  private writeTarget(path: string, options: WriteOptions): Lookup & { parent: DirNode } {
    // Exclusive means nothing at all at the path, a dangling link included (O_CREAT|O_EXCL).
    if (options.exclusive && this.lookup(path, false).node) throw new FsError('exists', path);
    // Follows a link at the path to its target, also a missing one (open(O_CREAT) semantics).
    const found = this.lookup(path, true);
    const node = found.node;
    if (!found.parent || node?.kind === 'dir') throw new FsError('is-directory', path);
    if (options.ifVersion !== undefined && (!node || String(node.version) !== options.ifVersion)) {
      throw new FsError('version-mismatch', path);
    }
    // An atomic write creates a temp file in the folder, so the folder must be writable; a read-only file
    // is refused as a plain write would be.
    this.requireWritable(found.parent, path);
    if (node && !(node.mode & OWNER_WRITE)) throw new FsError('permission-denied', path);
    return found as Lookup & { parent: DirNode };
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

  /** writeAt's target, in the Node backend's order: folder, not a file, offset, version, permission. */
  private inPlaceTarget(path: string, offset: number, ifVersion: string | undefined): FileNode {
    const node = this.existing(path, true);
    if (node.kind === 'dir') throw new FsError('is-directory', path);
    if (node.kind !== 'file') throw new FsError('invalid', path, `invalid: not a regular file: ${path}`);
    if (offset > node.data.byteLength) throw new FsError('invalid', path, `invalid: offset past the end of ${path}`);
    if (ifVersion !== undefined && String(node.version) !== ifVersion) throw new FsError('version-mismatch', path);
    if (!(node.mode & OWNER_WRITE)) throw new FsError('permission-denied', path);
    return node;
  }

  private writeInto(path: string, bytes: Uint8Array, options: WriteOptions): FileStat {
    const found = this.writeTarget(path, options);
    const node = found.node;
    const now = Date.now();
    if (node?.kind === 'file') {
      node.data = bytes;
      node.mtimeMs = now;
      node.version = ++this.versionCounter;
      return statOf(node);
    }
    const file: FileNode = {
      kind: 'file',
      data: bytes,
      mode: DEFAULT_FILE_MODE,
      mtimeMs: now,
      version: ++this.versionCounter,
    };
    found.parent.children.set(found.name, file);
    this.touch(found.parent);
    return statOf(file);
  }

  private mkdirSync(path: string, recursive: boolean): void {
    checkPath(path);
    if (!recursive) {
      const found = this.lookup(path, false);
      if (found.node || !found.parent) throw new FsError('exists', path);
      this.requireWritable(found.parent, path);
      found.parent.children.set(found.name, this.newDir(DEFAULT_DIR_MODE));
      this.touch(found.parent);
      return;
    }
    const parts = segments(path);
    for (let i = 1; i <= parts.length; i++) {
      const prefix = '/' + parts.slice(0, i).join('/');
      const found = this.lookup(prefix, true);
      if (found.node?.kind === 'dir') continue;
      if (found.node) throw new FsError(i === parts.length ? 'exists' : 'not-directory', path);
      // A dangling link on the way: mkdir would not create its target (EEXIST on the link, then ENOENT).
      if (this.lookup(prefix, false).node) throw new FsError('not-found', path);
      this.requireWritable(found.parent!, path);
      found.parent!.children.set(found.name, this.newDir(DEFAULT_DIR_MODE));
      this.touch(found.parent!);
    }
  }

  /**
   * The shared preamble of rename and copy, in the same order as the Node backend: source, target's folder,
   * same entry (undefined), exists, folder into itself, target containing the source.
   */
  private resolvePair(
    from: string,
    to: string,
    overwrite: boolean,
  ):
    | {
        source: Lookup & { node: MemNode; parent: DirNode };
        target: Lookup & { parent: DirNode };
      }
    | undefined {
    checkPath(from);
    checkPath(to);
    if (from === '/' || to === '/') throw new FsError('invalid', from, 'invalid: cannot move or copy /');
    const source = this.lookup(from, false);
    if (!source.node) throw new FsError('not-found', from);
    const target = this.lookup(to, false);
    if (!source.parent || !target.parent) throw new FsError('invalid', from);
    if (source.parent === target.parent && source.name === target.name) return undefined;
    if (target.node && !overwrite) throw new FsError('exists', to);
    if (source.node.kind === 'dir' && (target.ancestors as MemNode[]).includes(source.node)) {
      throw new FsError('invalid', to, `invalid: cannot put a folder inside itself: ${to}`);
    }
    if (target.node?.kind === 'dir' && source.ancestors.includes(target.node)) {
      throw new FsError('invalid', to, `invalid: cannot replace a folder that contains the source: ${to}`);
    }
    return {
      source: source as Lookup & { node: MemNode; parent: DirNode },
      target: target as Lookup & { parent: DirNode },
    };
  }

  private requireWritable(dir: DirNode, path: string): void {
    if (!(dir.mode & OWNER_WRITE)) throw new FsError('permission-denied', path);
  }

  /** Removing a tree needs read, write and search on every non-empty folder in it. */
  private checkRemovable(dir: DirNode, path: string): void {
    if (dir.children.size === 0) return;
    if ((dir.mode & (OWNER_READ | OWNER_WRITE | OWNER_SEARCH)) !== (OWNER_READ | OWNER_WRITE | OWNER_SEARCH)) {
      throw new FsError('permission-denied', path);
    }
    for (const [name, child] of dir.children) {
      if (child.kind === 'dir') this.checkRemovable(child, `${path}/${name}`);
    }
  }

  /** Copying needs read on every file and read + search on every folder. */
  private checkCopyable(node: MemNode, path: string): void {
    if (node.kind === 'file' && !(node.mode & OWNER_READ)) throw new FsError('permission-denied', path);
    if (node.kind !== 'dir') return;
    if ((node.mode & (OWNER_READ | OWNER_SEARCH)) !== (OWNER_READ | OWNER_SEARCH)) {
      throw new FsError('permission-denied', path);
    }
    for (const [name, child] of node.children) this.checkCopyable(child, `${path}/${name}`);
  }

  /** A deep copy with fresh versions and mtimes; modes and link texts are kept. */
  private clone(node: MemNode): MemNode {
    const base = { mode: node.mode, mtimeMs: Date.now(), version: ++this.versionCounter };
    switch (node.kind) {
      case 'file':
        return { ...base, kind: 'file', data: node.data };
      case 'symlink':
        return { ...base, kind: 'symlink', target: node.target };
      case 'dir': {
        const children = new Map<string, MemNode>();
        for (const [name, child] of node.children) children.set(name, this.clone(child));
        return { ...base, kind: 'dir', children };
      }
    }
  }

  private newDir(mode: number): DirNode {
    return { kind: 'dir', children: new Map(), mode, mtimeMs: Date.now(), version: ++this.versionCounter };
  }

  /** A folder's entries changed: like a disk folder, its mtime and version move. */
  private touch(dir: DirNode): void {
    dir.mtimeMs = Date.now();
    dir.version = ++this.versionCounter;
  }
}

function realPathOf(names: string[]): string {
  return '/' + names.filter((n) => n !== '').join('/');
}

function statOf(node: MemNode): FileStat {
  const size =
    node.kind === 'file' ? node.data.byteLength : node.kind === 'symlink' ? encoder.encode(node.target).length : 0;
  return { type: node.kind, size, mtimeMs: node.mtimeMs, version: String(node.version) };
}
