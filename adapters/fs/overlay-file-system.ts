/**
 * An overlay FileSystem: an agent's own tree (the upper layer) over the shared tree (the lower layer),
 * presented at the shared tree's paths. Edge-clean: it only speaks the FileSystem interface, so it overlays
 * the memory backend as well as the disk.
 *
 * - Inside `root`, `root/x` is the upper layer's `upperRoot/x` when that exists, else the lower layer's
 *   `root/x`. Paths outside `root` pass through to the lower layer unchanged.
 * - Reads prefer the upper entry and fall back to the lower one; `layerOf` says which one answers.
 * - Every write goes to the upper layer: folders on the way are created there as needed, and a lower file is
 *   copied up (modes kept) before it is overwritten, written in place or renamed.
 * - Listings merge both layers (upper entries win by name). A lower folder shows through an upper folder of
 *   the same name; it does not through anything else.
 * - Removing (or renaming away) an entry the lower layer shows records a whiteout (overlay/whiteouts.ts), so it
 *   stays removed; a whited-out folder hides its whole lower subtree, also once the upper re-creates it.
 * - `hidden` lower paths (the agents folder itself) are never shown, so an agent's view never contains the
 *   copies, its own included.
 *
 * Symlinks are resolved here, component by component through the merged view, never by a layer: the upper
 * layer lives elsewhere, so a link's text (relative, or absolute in the shared tree's namespace) means what it
 * would mean at the overlaid path. When every component of a path exists in the upper layer as itself (no
 * link on the way) that walk is skipped: one `realpath` of the upper path says so.
 *
 * Left open (documented, not hidden): permission bits of lower folders are not carried up when the upper
 * creates their twin (the interface has no way to read a mode), and a conditional write of a lower-only file
 * checks the lower version, then copies up: a shared-tree write that lands in between is overwritten (agent
 * writers among themselves cannot race there: the copy-up is exclusive).
 */
import { checkOffset, checkPath, maxBytesOf, rangeBounds, readdirLimitOf } from './arguments.ts';
import { discardSource } from './capped-chunks.ts';
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
import { copyAcross } from './overlay/copy-across.ts';
import type { Whiteouts } from './overlay/whiteouts.ts';
import { basename, dirname, isInside, join, normalize, relativeTo, segments } from './posix-path.ts';
import { ConfinedFolders } from './confined-folders.ts';

export type OverlayLayer = 'upper' | 'lower';

export interface OverlayOptions {
  /** The shared tree's FileSystem: what reads fall back to, and what paths outside `root` go to. */
  lower: FileSystem;
  /** Where the agent's own tree lives (usually the same FileSystem as `lower`). */
  upper: FileSystem;
  /** The overlaid root: an absolute real path of the lower layer. */
  root: string;
  /** The agent's tree in `upper` (absolute, real): what the overlay shows at `root`. */
  upperRoot: string;
  whiteouts: Whiteouts;
  /** Absolute lower paths inside `root` that the overlay never shows (with everything below them). */
  hidden?: readonly string[];
}

/** Linux's MAXSYMLINKS. */
const MAX_SYMLINK_HOPS = 40;

interface Entry {
  layer: OverlayLayer;
  /** The entry itself, not followed. */
  stat: FileStat;
}

/** A folder on a resolved path, and what each layer has there. */
interface Folder {
  path: string;
  /** The upper layer has this folder (when false, none of its children can be in the upper either). */
  upper: boolean;
  /** The lower layer shows a real folder here, after whiteouts (undefined: not asked yet). */
  lower: boolean | undefined;
}

/** Where a lookup led. */
interface Found {
  /** The resolved overlay path: no symlink on the way (the last entry is one only when not followed). */
  path: string;
  entry: Entry | undefined;
  /** The folder holding `path` (undefined for '/'). */
  parent: Folder | undefined;
}

/** Folders a write created for itself, removed again (deepest first) when it fails. */
type Made = { fs: FileSystem; path: string }[];

type Undo = () => Promise<void>;

export class OverlayFileSystem implements FileSystem {
  readonly capabilities: FileSystemCapabilities;
  private readonly lower: FileSystem;
  private readonly upper: FileSystem;
  /** The overlaid root, and where the agent's tree is in the upper layer. */
  readonly root: string;
  readonly upperRoot: string;
  private readonly whiteouts: Whiteouts;
  private readonly hidden: readonly string[];
  private readonly rootFolder: Folder;
  /** FileSystem.confine: content, listings and changes on a path in a confined folder end inside it. */
  private readonly confined = new ConfinedFolders();

  constructor(options: OverlayOptions) {
    checkPath(options.root);
    checkPath(options.upperRoot);
    this.lower = options.lower;
    this.upper = options.upper;
    this.root = options.root;
    this.upperRoot = options.upperRoot;
    this.whiteouts = options.whiteouts;
    this.hidden = (options.hidden ?? []).filter((path) => isInside(options.root, path) && path !== options.root);
    this.rootFolder = { path: this.root, upper: true, lower: true };
    const [upper, lower] = [options.upper.capabilities, options.lower.capabilities];
    this.capabilities = {
      symlinks: upper.symlinks && lower.symlinks,
      watch: false,
      permissions: upper.permissions && lower.permissions,
    };
  }

  /**
   * The merged view follows links itself (a link's text means what it would at the overlaid path), so it is the
   * one to check where a walk ended: the layers only ever see the path it ended at.
   */
  confine(folder: string): void {
    this.confined.add(folder);
  }

  /** Which layer answers for `path` (links followed): undefined when nothing is there. */
  async layerOf(path: string): Promise<OverlayLayer | undefined> {
    try {
      return (await this.lookup(path, true, false)).entry?.layer;
    } catch (error) {
      if (isFsError(error, 'not-found') || isFsError(error, 'not-directory')) return undefined;
      throw this.fromLayers(error);
    }
  }

  stat(path: string): Promise<FileStat> {
    return this.guard(async () => this.existing(await this.lookup(path, true, false), path).stat);
  }

  lstat(path: string): Promise<FileStat> {
    return this.guard(async () => this.existing(await this.lookup(path, false, false), path).stat);
  }

  readdir(path: string, options?: { limit?: number }): Promise<DirEntry[]> {
    return this.guard(async () => {
      const limit = readdirLimitOf(options, path);
      const found = await this.lookup(path, true);
      const entry = this.existing(found, path);
      if (entry.stat.type !== 'dir') throw new FsError('not-directory', path);
      return this.list(found.path, entry, limit);
    });
  }

  readlink(path: string): Promise<string> {
    return this.guard(async () => {
      const found = await this.lookup(path, false);
      const entry = this.existing(found, path);
      if (entry.stat.type !== 'symlink') throw new FsError('invalid', path, `invalid: not a symbolic link: ${path}`);
      return this.layer(entry).readlink(this.pathIn(entry.layer, found.path));
    });
  }

  realpath(path: string): Promise<string> {
    return this.guard(async () => {
      const found = await this.lookup(path, true, false); // where it leads, even outside: the caller judges that
      this.existing(found, path);
      return found.path;
    });
  }

  read(path: string, range?: ByteRange): Promise<Uint8Array> {
    return this.guard(async () => {
      rangeBounds(range, path);
      const found = await this.lookup(path, true);
      const entry = this.existing(found, path);
      return this.layer(entry).read(this.pathIn(entry.layer, found.path), range);
    });
  }

  readWithStat(path: string, range?: ByteRange): Promise<BytesWithStat> {
    return this.guard(async () => {
      rangeBounds(range, path);
      const found = await this.lookup(path, true);
      const entry = this.existing(found, path);
      return this.layer(entry).readWithStat(this.pathIn(entry.layer, found.path), range);
    });
  }

  readStream(path: string, range?: ByteRange, options?: ReadStreamOptions): Promise<ReadableStream<Uint8Array>> {
    return this.guard(async () => {
      rangeBounds(range, path);
      const found = await this.lookup(path, true);
      const entry = this.existing(found, path);
      return this.layer(entry).readStream(this.pathIn(entry.layer, found.path), range, options);
    });
  }

  write(path: string, data: Uint8Array | string, options: WriteOptions = {}): Promise<FileStat> {
    return this.guard(async () => {
      checkPath(path);
      return this.replaceFile(path, options, true, (fs, target, commit) => fs.write(target, data, commit));
    });
  }

  writeStream(
    path: string,
    data: ReadableStream<Uint8Array>,
    options: WriteOptions & StreamLimit = {},
  ): Promise<FileStat> {
    return this.guard(async () => {
      try {
        checkPath(path);
        maxBytesOf(options.maxBytes, path);
        // No copy-up first: the whole file is replaced, and an upload may be gigabytes.
        return await this.replaceFile(path, options, false, (fs, target, commit) =>
          fs.writeStream(target, data, { ...commit, maxBytes: options.maxBytes }),
        );
      } catch (error) {
        await discardSource(data);
        throw error;
      }
    });
  }

  writeAt(
    path: string,
    offset: number,
    data: ReadableStream<Uint8Array> | Uint8Array,
    options: WriteAtOptions = {},
  ): Promise<FileStat> {
    return this.guard(async () => {
      try {
        checkPath(path);
        checkOffset(offset, path);
        const maxBytes = maxBytesOf(options.maxBytes, path);
        const found = await this.lookup(path, true);
        const entry = this.existing(found, path);
        if (!this.covers(found.path)) return await this.lower.writeAt(found.path, offset, data, options);
        if (entry.layer === 'upper') return await this.upper.writeAt(this.upperPathOf(found.path), offset, data, options);
        // A shared file: check what can be checked before copying it up, so a refused part copies nothing.
        if (entry.stat.type === 'dir') throw new FsError('is-directory', path);
        if (entry.stat.type !== 'file') throw new FsError('invalid', path, `invalid: not a regular file: ${path}`);
        if (options.ifVersion !== undefined && options.ifVersion !== entry.stat.version) {
          throw new FsError('version-mismatch', path);
        }
        if (offset > entry.stat.size) throw new FsError('invalid', path, `invalid: offset past the end of ${path}`);
        if (data instanceof Uint8Array && data.byteLength > maxBytes) {
          throw new FsError('too-large', path, `too-large: more than ${maxBytes} bytes for ${path}`);
        }
        const version = await this.copyUpFile(found.path, path, options.ifVersion !== undefined);
        return await this.upper.writeAt(this.upperPathOf(found.path), offset, data, {
          maxBytes: options.maxBytes,
          ifVersion: options.ifVersion === undefined ? undefined : version,
        });
      } catch (error) {
        await discardSource(data);
        throw error;
      }
    });
  }

  mkdir(path: string, options: { recursive?: boolean } = {}): Promise<void> {
    return this.guard(async () => {
      checkPath(path);
      if (options.recursive) {
        await this.makeFolders(path, []);
        return;
      }
      const found = await this.lookup(path, false);
      if (found.entry) throw new FsError('exists', path);
      await this.makeFolder(found.path, []);
    });
  }

  remove(path: string, options: { recursive?: boolean } = {}): Promise<void> {
    return this.guard(async () => {
      checkPath(path);
      if (path === '/') throw new FsError('invalid', path, 'invalid: refusing to remove /');
      const found = await this.lookup(path, false);
      const entry = this.existing(found, path);
      if (found.path === this.root) throw new FsError('invalid', path, `invalid: refusing to remove the overlaid root: ${path}`);
      if (!this.covers(found.path)) return this.lower.remove(found.path, options);
      if (entry.stat.type === 'dir' && !options.recursive && (await this.list(found.path, entry, 1)).length > 0) {
        throw new FsError('not-empty', path);
      }
      await this.removeEntry(found, entry, options.recursive === true);
    });
  }

  rename(from: string, to: string, options: { overwrite?: boolean } = {}): Promise<void> {
    return this.guard(async () => {
      const pair = await this.resolvePair(from, to, options.overwrite === true);
      if (!pair) return;
      const { source, entry, target } = pair;
      const [fromInside, toInside] = [this.covers(source.path), this.covers(target.path)];
      if (!fromInside && !toInside) return this.lower.rename(source.path, target.path, options);
      if (fromInside && toInside) return this.renameInside(source, entry, target, options.overwrite === true);
      // Across the root's edge (through a link): the two sides are different layers, so copy, then remove.
      await this.copyResolved(source, entry, target, options.overwrite === true);
      if (fromInside) await this.removeEntry(source, entry, true);
      else await this.lower.remove(source.path, { recursive: true });
    });
  }

  copy(from: string, to: string, options: { overwrite?: boolean } = {}): Promise<void> {
    return this.guard(async () => {
      const pair = await this.resolvePair(from, to, options.overwrite === true);
      if (!pair) throw new FsError('invalid', to, `invalid: cannot copy onto itself: ${to}`);
      const { source, entry, target } = pair;
      if (!this.covers(source.path) && !this.covers(target.path)) {
        return this.lower.copy(source.path, target.path, options);
      }
      await this.copyResolved(source, entry, target, options.overwrite === true);
    });
  }

  symlink(target: string, path: string): Promise<void> {
    return this.guard(async () => {
      checkPath(path);
      if (target === '' || target.includes('\0')) throw new FsError('invalid', path, 'invalid: bad link text');
      const found = await this.lookup(path, false);
      if (found.entry) throw new FsError('exists', path);
      if (!this.covers(found.path)) return this.lower.symlink(target, found.path);
      await this.ensureUpperFolder(dirname(found.path), []);
      await this.upper.symlink(target, this.upperPathOf(found.path));
    });
  }

  chmod(path: string, mode: number): Promise<void> {
    return this.guard(async () => {
      checkPath(path);
      if (!Number.isInteger(mode) || mode < 0 || mode > 0o7777) throw new FsError('invalid', path, 'invalid: mode');
      const found = await this.lookup(path, true);
      const entry = this.existing(found, path);
      if (!this.covers(found.path)) return this.lower.chmod(found.path, mode);
      if (entry.layer === 'lower') {
        // The mode is the agent's: its layer gets the entry (a folder alone, its children stay shared).
        if (entry.stat.type === 'dir') await this.ensureUpperFolder(found.path, []);
        else await this.copyUpFile(found.path, path, false);
      }
      await this.upper.chmod(this.upperPathOf(found.path), mode);
    });
  }

  // ---------------------------------------------------------------------------------------------------------
  // Resolution

  /**
   * Resolves `path` through the merged view like the kernel would: every intermediate symlink is followed
   * (its text relative to its own folder, ".." physically), the last one only when `followLast`, at most 40
   * per lookup. Throws not-found / not-directory / loop for the path up to its last name; the last entry may
   * be missing (entry undefined), in which case `path` is where it would be created.
   */
  private async lookup(path: string, followLast: boolean, confine = true): Promise<Found> {
    const found = await this.walk(path, followLast);
    if (confine && !this.confined.empty) this.confined.check(path, found.path, this.confined.folderOf(normalize(path)));
    return found;
  }

  private async walk(path: string, followLast: boolean): Promise<Found> {
    checkPath(path);
    const inside = this.covers(path);
    if (inside && path !== this.root) {
      const direct = await this.lookupInUpper(path);
      if (direct) return direct;
    }
    let stack = inside ? this.rootStack() : [this.outsideFolder('/')];
    const queue = segments(inside ? relativeTo(this.root, path) : path);
    let hops = 0;
    while (queue.length > 0) {
      const name = queue.shift()!;
      if (name === '.') continue;
      if (name === '..') {
        if (stack.length > 1) stack.pop();
        continue;
      }
      const parent = stack[stack.length - 1]!;
      const current = parent.path === '/' ? '/' + name : `${parent.path}/${name}`;
      const last = queue.length === 0;
      const entry = await this.entryIn(parent, current);
      if (entry?.stat.type === 'symlink' && (!last || followLast)) {
        if (++hops > MAX_SYMLINK_HOPS) throw new FsError('loop', path);
        const text = await this.layer(entry).readlink(this.pathIn(entry.layer, current));
        if (text.startsWith('/')) stack = stack.slice(0, 1);
        queue.unshift(...segments(text));
        continue;
      }
      if (last) return { path: current, entry, parent };
      if (!entry) throw new FsError('not-found', path);
      if (entry.stat.type !== 'dir') throw new FsError('not-directory', path);
      stack.push(this.folderOf(current, entry));
    }
    // The path ended on a folder reached through '/', '..' or a link's text.
    const folder = stack[stack.length - 1]!;
    const parent = stack[stack.length - 2];
    const entry: Entry | undefined = parent
      ? await this.entryIn(parent, folder.path)
      : folder.path === this.root
        ? await this.rootEntry()
        : { layer: 'lower', stat: await this.lower.lstat('/') };
    return { path: folder.path, entry, parent };
  }

  /** The common case: the path exists in the upper layer as itself, with no link anywhere on the way. */
  private async lookupInUpper(path: string): Promise<Found | undefined> {
    const upperPath = this.upperPathOf(path);
    try {
      if ((await this.upper.realpath(upperPath)) !== upperPath) return undefined;
      const stat = await this.upper.lstat(upperPath);
      const parent = dirname(path);
      return {
        path,
        entry: { layer: 'upper', stat },
        parent: parent === this.root ? this.rootFolder : { path: parent, upper: true, lower: undefined },
      };
    } catch {
      return undefined; // anything unusual: the full walk decides, and reports it
    }
  }

  /** What the merged view has at `current`, a child of the resolved folder `parent`. */
  private async entryIn(parent: Folder, current: string): Promise<Entry | undefined> {
    if (current === this.root) return this.rootEntry();
    if (!this.covers(current)) {
      const stat = await optional(this.lower.lstat(current));
      return stat && { layer: 'lower', stat };
    }
    if (parent.upper) {
      const stat = await optional(this.upper.lstat(this.upperPathOf(current)));
      if (stat) return { layer: 'upper', stat };
    }
    if (this.shadowed(current) || !(await this.lowerShows(parent))) return undefined;
    const stat = await optional(this.lower.lstat(current));
    return stat && { layer: 'lower', stat };
  }

  private async rootEntry(): Promise<Entry> {
    return { layer: 'upper', stat: await this.upper.lstat(this.upperRoot) };
  }

  /** Whether the lower layer's children of `folder` show through (cached on the folder for this lookup). */
  private async lowerShows(folder: Folder): Promise<boolean> {
    if (folder.lower === undefined) {
      // Reached without a lower link on the way (those would lead somewhere else entirely). Whether it is a
      // folder is left to the child lookups and listings that follow (not-directory reads as "nothing there").
      const path = folder.path;
      folder.lower = !this.shadowed(path) && (await optional(this.lower.realpath(path), ['loop'])) === path;
    }
    return folder.lower;
  }

  /** Whether the lower entry at `found.path` exists and is shown (or would be, but for an upper entry there). */
  private async lowerHas(found: Found): Promise<boolean> {
    if (found.entry?.layer === 'lower') return this.covers(found.path);
    if (!found.parent || !this.covers(found.path) || found.path === this.root) return false;
    if (this.shadowed(found.path) || !(await this.lowerShows(found.parent))) return false;
    return (await optional(this.lower.lstat(found.path))) !== undefined;
  }

  private rootStack(): Folder[] {
    const stack = [this.outsideFolder('/')];
    for (let at = this.root; at !== '/'; at = dirname(at)) stack.splice(1, 0, this.outsideFolder(at));
    stack[stack.length - 1] = this.rootFolder;
    return this.root === '/' ? [this.rootFolder] : stack;
  }

  private outsideFolder(path: string): Folder {
    return path === this.root ? this.rootFolder : { path, upper: false, lower: true };
  }

  private folderOf(path: string, entry: Entry): Folder {
    if (path === this.root) return this.rootFolder;
    if (!this.covers(path)) return this.outsideFolder(path);
    return entry.layer === 'upper' ? { path, upper: true, lower: undefined } : { path, upper: false, lower: true };
  }

  // ---------------------------------------------------------------------------------------------------------
  // Listing

  /** The merged entries of the resolved folder `path`: upper entries, then the lower ones they do not name. */
  private async list(path: string, entry: Entry, limit: number): Promise<DirEntry[]> {
    if (!this.covers(path)) return this.lower.readdir(path, limitOption(limit));
    const skip = this.shadowedNamesIn(path);
    if (entry.layer === 'lower') {
      const entries = await this.lower.readdir(path, limitOption(limit + skip.size));
      return entries.filter((child) => !skip.has(child.name)).slice(0, limit);
    }
    const upper = await this.upper.readdir(this.upperPathOf(path), limitOption(limit));
    // A cut upper listing is enough; an uncut one names everything the lower entries must not repeat.
    if (upper.length >= limit || !(await this.lowerShows(this.folderOf(path, entry)))) return upper;
    const taken = new Set(upper.map((child) => child.name));
    const want = limit - upper.length;
    const lower = (await optional(this.lower.readdir(path, limitOption(want + taken.size + skip.size)))) ?? [];
    const shown = lower.filter((child) => !taken.has(child.name) && !skip.has(child.name));
    return [...upper, ...shown.slice(0, want)];
  }

  // ---------------------------------------------------------------------------------------------------------
  // Writing

  /**
   * The body of `write` and `writeStream`: `commit` writes the content to a path of one layer with the
   * preconditions that layer must check. A lower file's version is checked here; its copy in the upper layer
   * must still be missing at the commit (or, after a copy-up, still be that copy), so two agent writers
   * racing on a shared file cannot both win.
   */
  private async replaceFile(
    path: string,
    options: WriteOptions,
    copyUpFirst: boolean,
    commit: (fs: FileSystem, target: string, options: WriteOptions) => Promise<FileStat>,
  ): Promise<FileStat> {
    const made: Made = [];
    try {
      if (options.mkdirs) {
        await this.makeFolders(dirname(path), made).catch((error: unknown) => {
          throw isFsError(error, 'exists') ? new FsError('not-directory', dirname(path)) : error;
        });
      }
      // Exclusive means nothing at all at the path, a dangling link included (O_CREAT|O_EXCL).
      if (options.exclusive && (await this.lookup(path, false)).entry) throw new FsError('exists', path);
      const found = await this.lookup(path, true); // a dangling link leads to where its target would be
      const entry = found.entry;
      if (entry?.stat.type === 'dir') throw new FsError('is-directory', path);
      if (entry && entry.stat.type !== 'file') throw new FsError('invalid', path, `invalid: not a regular file: ${path}`);
      const { ifVersion, exclusive } = options;
      if (!this.covers(found.path)) return await commit(this.lower, found.path, { ifVersion, exclusive });
      if (entry?.layer !== 'upper' && ifVersion !== undefined && entry?.stat.version !== ifVersion) {
        throw new FsError('version-mismatch', path);
      }
      await this.ensureUpperFolder(dirname(found.path), made);
      const target = this.upperPathOf(found.path);
      if (entry?.layer !== 'lower') return await commit(this.upper, target, { ifVersion, exclusive });
      const conditional = ifVersion !== undefined;
      if (copyUpFirst) {
        // Copied up first so the agent's file keeps the shared file's mode (an edited script stays executable).
        const version = await this.copyUpFile(found.path, path, conditional);
        return await commit(this.upper, target, { ifVersion: conditional ? version : undefined });
      }
      try {
        return await commit(this.upper, target, { exclusive: conditional });
      } catch (error) {
        throw conditional && isFsError(error, 'exists') ? new FsError('version-mismatch', path) : error;
      }
    } catch (error) {
      await removeMade(made);
      throw error;
    }
  }

  /**
   * Copies the lower file at the resolved `path` into the upper layer and returns the copy's version. If the
   * upper layer got a file there meanwhile (another writer), that is a version mismatch for a conditional
   * write (`reported` names the path asked for) and simply the file to write over otherwise.
   */
  private async copyUpFile(path: string, reported: string, conditional: boolean): Promise<string | undefined> {
    await this.ensureUpperFolder(dirname(path), []);
    const upperPath = this.upperPathOf(path);
    try {
      await copyAcross(this.lower, path, this.upper, upperPath);
    } catch (error) {
      if (!isFsError(error, 'exists')) throw error;
      if (conditional) throw new FsError('version-mismatch', reported);
      return undefined;
    }
    return conditional ? (await this.upper.stat(upperPath)).version : undefined;
  }

  /** mkdir -p through the merged view; the folders it creates are recorded in `made`. */
  private async makeFolders(dir: string, made: Made): Promise<void> {
    try {
      if ((await this.lookup(dir, true)).entry?.stat.type === 'dir') return;
    } catch (error) {
      if (!isFsError(error, 'not-found') && !isFsError(error, 'not-directory')) throw error;
    }
    const parts = segments(dir);
    // The root exists: start below it.
    const first = this.covers(dir) ? segments(this.root).length + 1 : 1;
    for (let i = first; i <= parts.length; i++) {
      const prefix = '/' + parts.slice(0, i).join('/');
      const found = await this.lookup(prefix, true);
      if (found.entry?.stat.type === 'dir') continue;
      if (found.entry) throw new FsError(i === parts.length ? 'exists' : 'not-directory', dir);
      // A dangling link on the way: mkdir would not create its target (EEXIST on the link, then ENOENT).
      if ((await this.lookup(prefix, false)).entry) throw new FsError('not-found', dir);
      await this.makeFolder(found.path, made);
    }
  }

  /** Creates the folder at the resolved, missing `path` (in the upper layer when inside the root). */
  private async makeFolder(path: string, made: Made): Promise<void> {
    if (!this.covers(path)) {
      await this.lower.mkdir(path);
      made.push({ fs: this.lower, path });
      return;
    }
    await this.ensureUpperFolder(dirname(path), made);
    await this.upper.mkdir(this.upperPathOf(path));
    made.push({ fs: this.upper, path: this.upperPathOf(path) });
  }

  /** Gives the upper layer the resolved folder `dir` (a folder of the merged view) and its parents. */
  private async ensureUpperFolder(dir: string, made: Made): Promise<void> {
    const missing: string[] = [];
    for (let at = dir; at !== this.root; at = dirname(at)) {
      if (await optional(this.upper.lstat(this.upperPathOf(at)))) break;
      missing.push(at);
    }
    for (const at of missing.reverse()) {
      const upperPath = this.upperPathOf(at);
      try {
        await this.upper.mkdir(upperPath);
        made.push({ fs: this.upper, path: upperPath });
      } catch (error) {
        if (!isFsError(error, 'exists')) throw error;
      }
    }
  }

  /** Removes a resolved entry inside the root: a whiteout for what the lower shows, then the upper entry. */
  private async removeEntry(found: Found, entry: Entry, recursive: boolean): Promise<void> {
    const undo = (await this.lowerHas(found)) ? await this.whiteouts.add(this.relOf(found.path)) : undefined;
    if (entry.layer !== 'upper') return;
    try {
      await this.upper.remove(this.upperPathOf(found.path), { recursive });
    } catch (error) {
      await undo?.().catch(() => {});
      throw error;
    }
  }

  /**
   * The shared preamble of rename and copy, in the backends' order: source, target's folder, same entry
   * (undefined), exists, folder into itself, target containing the source.
   */
  private async resolvePair(
    from: string,
    to: string,
    overwrite: boolean,
  ): Promise<{ source: Found; entry: Entry; target: Found } | undefined> {
    checkPath(from);
    checkPath(to);
    if (from === '/' || to === '/') throw new FsError('invalid', from, 'invalid: cannot move or copy /');
    const source = await this.lookup(from, false);
    const entry = this.existing(source, from);
    const target = await this.lookup(to, false);
    if (source.path === target.path) return undefined;
    if (target.entry && !overwrite) throw new FsError('exists', to);
    if (entry.stat.type === 'dir' && isInside(source.path, target.path)) {
      throw new FsError('invalid', to, `invalid: cannot put a folder inside itself: ${to}`);
    }
    if (target.entry?.stat.type === 'dir' && isInside(target.path, source.path)) {
      throw new FsError('invalid', to, `invalid: cannot replace a folder that contains the source: ${to}`);
    }
    if (source.path === this.root) throw new FsError('invalid', from, `invalid: cannot move or copy the overlaid root: ${from}`);
    return { source, entry, target };
  }

  /**
   * A rename inside the root is an upper-layer rename: a source the lower layer shows (wholly or in part) is
   * first copied up whole, then whited out; a lower target is whited out so nothing of it shows through.
   */
  private async renameInside(source: Found, entry: Entry, target: Found, overwrite: boolean): Promise<void> {
    const undos: Undo[] = [];
    try {
      if (await this.lowerHas(source)) {
        await this.copyUp(source, entry);
        undos.push(await this.whiteouts.add(this.relOf(source.path)));
      }
      if (await this.lowerHas(target)) undos.push(await this.whiteouts.add(this.relOf(target.path)));
      await this.ensureUpperFolder(dirname(target.path), []);
      await this.upper.rename(this.upperPathOf(source.path), this.upperPathOf(target.path), { overwrite });
    } catch (error) {
      for (const undo of undos.reverse()) await undo().catch(() => {});
      throw error;
    }
  }

  /** Copies what the merged view shows at `source` to `target` (whose existing entry, if any, is replaced). */
  private async copyResolved(source: Found, entry: Entry, target: Found, overwrite: boolean): Promise<void> {
    if (!this.covers(target.path)) {
      if (target.entry) await this.lower.remove(target.path, { recursive: true });
      await this.materialise(source.path, entry.layer, entry.stat.type, this.lower, target.path);
      return;
    }
    const upperTarget = this.upperPathOf(target.path);
    const undo = (await this.lowerHas(target)) ? await this.whiteouts.add(this.relOf(target.path)) : undefined;
    try {
      await this.ensureUpperFolder(dirname(target.path), []);
      const whollyUpper =
        this.covers(source.path) &&
        entry.layer === 'upper' &&
        !(entry.stat.type === 'dir' && (await this.lowerShows(this.folderOf(source.path, entry))));
      if (whollyUpper) {
        await this.upper.copy(this.upperPathOf(source.path), upperTarget, { overwrite });
        return;
      }
      if (target.entry?.layer === 'upper') await this.upper.remove(upperTarget, { recursive: true });
      await this.materialise(source.path, entry.layer, entry.stat.type, this.upper, upperTarget);
    } catch (error) {
      await undo?.().catch(() => {});
      throw error;
    }
  }

  /** Makes the upper layer hold everything the merged view shows at the resolved `found.path`. */
  private async copyUp(found: Found, entry: Entry): Promise<void> {
    await this.ensureUpperFolder(dirname(found.path), []);
    const upperPath = this.upperPathOf(found.path);
    if (entry.layer === 'lower') await this.materialise(found.path, 'lower', entry.stat.type, this.upper, upperPath);
    else if (entry.stat.type === 'dir') await this.addShownThrough(this.folderOf(found.path, entry), this.upper, upperPath);
  }

  /** Writes what the merged view shows at the resolved `path` to `to` in `fs`, where nothing exists yet. */
  private async materialise(path: string, layer: OverlayLayer, type: FileType, fs: FileSystem, to: string): Promise<void> {
    if (!this.covers(path) || type !== 'dir') {
      await copyAcross(this.layer({ layer }), this.pathIn(layer, path), fs, to);
      return;
    }
    if (layer === 'upper') {
      await copyAcross(this.upper, this.upperPathOf(path), fs, to);
      await this.addShownThrough({ path, upper: true, lower: undefined }, fs, to);
      return;
    }
    if (!this.shadowedBelow(path)) {
      await copyAcross(this.lower, path, fs, to);
      return;
    }
    await fs.mkdir(to);
    const skip = this.shadowedNamesIn(path);
    for (const child of await this.lower.readdir(path)) {
      if (skip.has(child.name)) continue;
      await this.materialise(join(path, child.name), 'lower', child.type, fs, join(to, child.name));
    }
  }

  /** Adds to `to` (a copy of the upper folder `folder`) what the lower layer shows through it, recursively. */
  private async addShownThrough(folder: Folder, fs: FileSystem, to: string): Promise<void> {
    if (!(await this.lowerShows(folder))) return;
    const upperTypes = new Map((await this.upper.readdir(this.upperPathOf(folder.path))).map((e) => [e.name, e.type]));
    const skip = this.shadowedNamesIn(folder.path);
    for (const child of (await optional(this.lower.readdir(folder.path))) ?? []) {
      if (skip.has(child.name)) continue;
      const path = join(folder.path, child.name);
      const upperType = upperTypes.get(child.name);
      if (upperType === undefined) await this.materialise(path, 'lower', child.type, fs, join(to, child.name));
      else if (upperType === 'dir') await this.addShownThrough({ path, upper: true, lower: undefined }, fs, join(to, child.name));
    }
  }

  // ---------------------------------------------------------------------------------------------------------
  // Paths, layers, errors

  /** Whether the overlay (not the lower layer alone) decides for `path`. */
  private covers(path: string): boolean {
    return isInside(this.root, path);
  }

  private relOf(path: string): string {
    return relativeTo(this.root, path);
  }

  private upperPathOf(path: string): string {
    return path === this.root ? this.upperRoot : join(this.upperRoot, this.relOf(path));
  }

  private pathIn(layer: OverlayLayer, path: string): string {
    return layer === 'upper' ? this.upperPathOf(path) : path;
  }

  private layer(entry: { layer: OverlayLayer }): FileSystem {
    return entry.layer === 'upper' ? this.upper : this.lower;
  }

  /** Whether the lower entry at `path` is whited out or hidden (itself or through a folder above it). */
  private shadowed(path: string): boolean {
    return this.whiteouts.hides(this.relOf(path)) || this.hidden.some((hidden) => isInside(hidden, path));
  }

  /** Whether anything strictly below `path` is whited out or hidden. */
  private shadowedBelow(path: string): boolean {
    return (
      this.whiteouts.anyBelow(this.relOf(path)) || this.hidden.some((hidden) => hidden !== path && isInside(path, hidden))
    );
  }

  /** The lower children of the folder `path` that are not shown. */
  private shadowedNamesIn(path: string): Set<string> {
    const names = new Set(this.whiteouts.namesIn(this.relOf(path)));
    for (const hidden of this.hidden) if (dirname(hidden) === path) names.add(basename(hidden));
    return names;
  }

  private existing(found: Found, path: string): Entry {
    if (!found.entry) throw new FsError('not-found', path);
    return found.entry;
  }

  private async guard<T>(operation: () => Promise<T>): Promise<T> {
    try {
      return await operation();
    } catch (error) {
      throw this.fromLayers(error);
    }
  }

  /** An error a layer raised, speaking of the overlay's paths rather than the upper layer's. */
  private fromLayers(error: unknown): unknown {
    if (!(error instanceof FsError) || !isInside(this.upperRoot, error.path)) return error;
    const path = error.path === this.upperRoot ? this.root : join(this.root, relativeTo(this.upperRoot, error.path));
    return new FsError(error.code, path, error.message.split(this.upperRoot).join(this.root === '/' ? '' : this.root));
  }
}

/** The value, or undefined when the path (or a parent) does not exist; other errors pass. */
async function optional<T>(promise: Promise<T>, alsoAbsent: string[] = []): Promise<T | undefined> {
  try {
    return await promise;
  } catch (error) {
    if (isFsError(error, 'not-found') || isFsError(error, 'not-directory')) return undefined;
    if (error instanceof FsError && alsoAbsent.includes(error.code)) return undefined;
    throw error;
  }
}

function limitOption(limit: number): { limit: number } | undefined {
  return limit === Infinity ? undefined : { limit };
}

async function removeMade(made: Made): Promise<void> {
  for (const { fs, path } of [...made].reverse()) await fs.remove(path).catch(() => {});
}
