/**
 * A FileSystem decorator that reports every mutation it performs, as the state it left behind: a present
 * entry with its version (from the write's own stat, or a stat right after), or a path now absent. The
 * report is made before the mutation's promise resolves, so a change made through any endpoint is in the
 * change feed before that endpoint's response leaves (core/changes; docs/workspace-files.md#the-change-feed).
 *
 * What is reported, by call (paths are real: links on the way resolved, see ./real-paths.ts):
 * - write, writeStream, writeAt, chmod, mkdir: the path (a write through a link reports the link's target);
 * - symlink: the new link itself (its own version, not its target's);
 * - remove: the removed entry as absent and, when the removal was recursive, up to REPORTED_DESCENDANTS
 *   entries that were below it (listed before removing). If a recursive removal fails part-way, the current
 *   state of those paths is reported instead, since some of them may be gone;
 * - rename: the old path absent and the new one present, and for a folder up to REPORTED_DESCENDANTS of the
 *   entries it carried, absent at their old paths and present at their new ones (a client follows files by
 *   path, so a file whose folder moved must hear that its old path is gone);
 * - copy: the new entry and up to REPORTED_DESCENDANTS entries below it.
 * Nothing is reported inside our own staging folders or for our temp files (./leftover-names.ts
 * `isWriteInFlight`): a copy staged there is reported as it moves into place, at the paths it lands on.
 * A failed call reports nothing (except the partial recursive removal above); the observer's own lookups
 * never turn a mutation that succeeded into a failure. Reads are passed through untouched.
 *
 * runtime/app.ts installs it inside the write serialiser (adapters/fs/serialized-file-system.ts), so the
 * report of a write is made while its path's lock is held and writes to one path are reported in the order
 * they landed. Edge-clean: no `node:*`; it wraps any backend.
 */
import type {
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
import { isFsError } from './fs-error.ts';
import { isWriteInFlight } from './leftover-names.ts';
import { join } from './posix-path.ts';
import { realContentPath, realEntryPath } from './real-paths.ts';

/** A present entry and its version, or a path observed gone. Structurally core/changes' `Change`. */
export type Observation = { absolutePath: string; version: string } | { absolutePath: string; absent: true };

export type ObservationListener = (observation: Observation) => void;

/** How many entries below a removed, moved or copied folder are reported one by one (the folder always is). */
export const REPORTED_DESCENDANTS = 256;

export class ObservedFileSystem implements FileSystem {
  readonly capabilities: FileSystemCapabilities;
  readonly watch?: (path: string, onEvent: (event: WatchEvent) => void) => () => void;

  constructor(
    private readonly inner: FileSystem,
    private readonly listener: ObservationListener,
  ) {
    this.capabilities = inner.capabilities;
    if (inner.watch) this.watch = (path, onEvent) => inner.watch!(path, onEvent);
  }

  confine(folder: string): void {
    this.inner.confine?.(folder);
  }

  // ---- reads: passed through, whatever arguments the interface gives them ----------------------------------

  stat(...args: Parameters<FileSystem['stat']>): Promise<FileStat> {
    return this.inner.stat(...args);
  }

  lstat(...args: Parameters<FileSystem['lstat']>): Promise<FileStat> {
    return this.inner.lstat(...args);
  }

  readdir(...args: Parameters<FileSystem['readdir']>): Promise<DirEntry[]> {
    return this.inner.readdir(...args);
  }

  readlink(...args: Parameters<FileSystem['readlink']>): Promise<string> {
    return this.inner.readlink(...args);
  }

  realpath(...args: Parameters<FileSystem['realpath']>): Promise<string> {
    return this.inner.realpath(...args);
  }

  read(...args: Parameters<FileSystem['read']>): Promise<Uint8Array> {
    return this.inner.read(...args);
  }

  readWithStat(...args: Parameters<FileSystem['readWithStat']>): Promise<BytesWithStat> {
    return this.inner.readWithStat(...args);
  }

  readStream(...args: Parameters<FileSystem['readStream']>): Promise<ReadableStream<Uint8Array>> {
    return this.inner.readStream(...args);
  }

  // ---- mutations: performed, then reported -----------------------------------------------------------------

  async write(path: string, data: Uint8Array | string, options?: WriteOptions): Promise<FileStat> {
    const stat = await this.inner.write(path, data, options);
    await this.reportWritten(path, stat);
    return stat;
  }

  async writeStream(path: string, data: ReadableStream<Uint8Array>, options?: WriteOptions & StreamLimit): Promise<FileStat> {
    const stat = await this.inner.writeStream(path, data, options);
    await this.reportWritten(path, stat);
    return stat;
  }

  async writeAt(
    path: string,
    offset: number,
    data: ReadableStream<Uint8Array> | Uint8Array,
    options?: WriteAtOptions,
  ): Promise<FileStat> {
    const stat = await this.inner.writeAt(path, offset, data, options);
    await this.reportWritten(path, stat);
    return stat;
  }

  async chmod(path: string, mode: number): Promise<void> {
    await this.inner.chmod(path, mode);
    await this.safely(async () => this.emit(await this.stateOf(await realContentPath(this.inner, path), true)));
  }

  async mkdir(path: string, options?: { recursive?: boolean }): Promise<void> {
    await this.inner.mkdir(path, options);
    await this.safely(async () => this.emit(await this.stateOf(await realContentPath(this.inner, path), true)));
  }

  async symlink(target: string, path: string): Promise<void> {
    await this.inner.symlink(target, path);
    await this.safely(async () => this.emit(await this.stateOf(await realEntryPath(this.inner, path), false)));
  }

  async remove(path: string, options?: { recursive?: boolean }): Promise<void> {
    let where = path;
    let below: string[] = [];
    await this.safely(async () => {
      where = await realEntryPath(this.inner, path);
      if (options?.recursive) below = await this.descendants(where);
    });
    try {
      await this.inner.remove(path, options);
    } catch (error) {
      // A recursive removal can fail part-way (an unreadable folder deep down): say what is left.
      if (options?.recursive) {
        await this.safely(() => this.emitStates([...below.map((rel) => join(where, rel)), where]));
      }
      throw error;
    }
    for (const rel of below) this.emit({ absolutePath: join(where, rel), absent: true });
    this.emit({ absolutePath: where, absent: true });
  }

  async rename(from: string, to: string, options?: { overwrite?: boolean }): Promise<void> {
    let source = from;
    await this.safely(async () => {
      source = await realEntryPath(this.inner, from);
    });
    await this.inner.rename(from, to, options);
    await this.safely(async () => {
      const target = await realEntryPath(this.inner, to);
      if (target === source) return; // renaming onto itself changes nothing
      const below = await this.descendants(target);
      this.emit({ absolutePath: source, absent: true });
      for (const rel of below) this.emit({ absolutePath: join(source, rel), absent: true });
      await this.emitStates([target, ...below.map((rel) => join(target, rel))]);
    });
  }

  async copy(from: string, to: string, options?: { overwrite?: boolean }): Promise<void> {
    await this.inner.copy(from, to, options);
    await this.safely(async () => {
      const target = await realEntryPath(this.inner, to);
      const below = await this.descendants(target);
      await this.emitStates([target, ...below.map((rel) => join(target, rel))]);
    });
  }

  // ---------------------------------------------------------------------------------------------------------

  private async reportWritten(path: string, stat: FileStat): Promise<void> {
    await this.safely(async () => this.emit({ absolutePath: await realContentPath(this.inner, path), version: stat.version }));
  }

  /** The state at `path` now: its version (following a final link or not), or absent. */
  private async stateOf(path: string, follow: boolean): Promise<Observation> {
    try {
      const stat = follow ? await this.inner.stat(path) : await this.inner.lstat(path);
      return { absolutePath: path, version: stat.version };
    } catch (error) {
      if (isFsError(error, 'not-found') || isFsError(error, 'not-directory')) return { absolutePath: path, absent: true };
      throw error;
    }
  }

  /** Reports the current state of each path (entries themselves: links are not followed), in order. */
  private async emitStates(paths: string[]): Promise<void> {
    const states = await Promise.all(paths.map((path) => this.stateOf(path, false).catch(() => undefined)));
    for (const state of states) if (state) this.emit(state);
  }

  /**
   * Up to REPORTED_DESCENDANTS entries below `dir`, relative to it, breadth first (links are entries, never
   * followed). Empty when `dir` is not a folder. Bounded work: it stops listing once it has enough.
   */
  private async descendants(dir: string): Promise<string[]> {
    if ((await this.stateType(dir)) !== 'dir') return [];
    const found: string[] = [];
    const folders = [''];
    while (folders.length > 0 && found.length < REPORTED_DESCENDANTS) {
      const rel = folders.shift()!;
      let entries: DirEntry[];
      try {
        entries = await this.inner.readdir(join(dir, rel), { limit: REPORTED_DESCENDANTS - found.length });
      } catch {
        continue; // unreadable or gone meanwhile: what it held is not reported one by one
      }
      for (const entry of entries) {
        const child = rel === '' ? entry.name : `${rel}/${entry.name}`;
        found.push(child);
        if (entry.type === 'dir') folders.push(child);
      }
    }
    return found;
  }

  private async stateType(path: string): Promise<string | undefined> {
    try {
      return (await this.inner.lstat(path)).type;
    } catch {
      return undefined;
    }
  }

  private emit(observation: Observation): void {
    // A copy or clone built in a staging folder is reported when it moves into place, not while it is built.
    if (isWriteInFlight(observation.absolutePath)) return;
    try {
      this.listener(observation);
    } catch (error) {
      console.error('observed file system: the listener failed:', error);
    }
  }

  /** The observer's own lookups never fail a mutation that succeeded. */
  private async safely(observe: () => Promise<void>): Promise<void> {
    try {
      await observe();
    } catch (error) {
      console.error('observed file system: could not report a change:', error);
    }
  }
}
