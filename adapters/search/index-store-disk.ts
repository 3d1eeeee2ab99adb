/**
 * The content index on disk: a folder OUTSIDE the workspace — `$XDG_CACHE_HOME/workspace-api/<hash of the root's
 * real path>/`, else `~/.cache/workspace-api/…`, or a folder given by the operator — holding `manifest.json` and
 * `shards/*.shard`. Every file is written to a temp name and renamed, so a crash leaves the old or the new one.
 * Shards are read with pread, a list at a time: only their trigram tables are resident.
 */
import { createHash, randomBytes } from 'node:crypto';
import {
  closeSync,
  constants,
  fstatSync,
  mkdirSync,
  openSync,
  readFileSync,
  readSync,
  realpathSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { chmod, mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { basename, dirname, isAbsolute, join, relative, resolve } from 'node:path';
import type { ByteSource } from '../../core/search/content-index/byte-source.ts';
import type { IndexStore } from '../../core/search/content-index/index-store.ts';

const MANIFEST = 'manifest.json';
const LOCK = 'lock';
const SHARDS = 'shards';
const SHARD_SUFFIX = '.shard';

/** The cache folder for a workspace whose root's real path is `rootRealPath`. */
export function defaultIndexDir(rootRealPath: string, env: NodeJS.ProcessEnv = process.env): string {
  const xdg = env.XDG_CACHE_HOME;
  const cache = xdg !== undefined && xdg !== '' && isAbsolute(xdg) ? xdg : join(homedir(), '.cache');
  const hash = createHash('sha256').update(rootRealPath).digest('hex').slice(0, 16);
  return join(cache, 'workspace-api', hash);
}

function isInside(path: string, folder: string): boolean {
  const rel = relative(folder, path);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}

/** The real path of `path`, resolving its deepest existing ancestor (the rest does not exist yet). */
function realOfDeepestExisting(path: string): string {
  const missing: string[] = [];
  for (let at = path; ; at = dirname(at)) {
    try {
      return join(realpathSync(at), ...missing.reverse());
    } catch {
      if (dirname(at) === at) return path;
      missing.push(basename(at));
    }
  }
}

/** A temp name beside `path`, unique per process and call. */
function tempPath(path: string): string {
  return `${path}.tmp-${process.pid}-${randomBytes(6).toString('hex')}`;
}

/**
 * The cache names every file of the workspace and holds its trigrams: only its owner may read it (the XDG base
 * directory spec asks 0700 of the cache folders too).
 */
const FOLDER_MODE = 0o700;
const FILE_MODE = 0o600;

/** Synchronous atomic write, for the build workers (which write their shards themselves). */
export function writeFileAtomicSync(path: string, bytes: Uint8Array): void {
  const temp = tempPath(path);
  try {
    writeFileSync(temp, bytes, { mode: FILE_MODE });
    renameSync(temp, path);
  } catch (error) {
    rmSync(temp, { force: true });
    throw error;
  }
}

export async function writeFileAtomic(path: string, bytes: Uint8Array): Promise<void> {
  const temp = tempPath(path);
  try {
    await writeFile(temp, bytes, { mode: FILE_MODE });
    await rename(temp, path);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
}

/**
 * A shard file read with synchronous pread: a posting list is a few KiB from the page cache, and a blocking read
 * of that size costs microseconds where a threadpool round trip costs tens of them per list.
 */
function shardFileSource(path: string): ByteSource {
  const fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW);
  const size = fstatSync(fd).size;
  let open = true;
  return {
    size,
    async read(offset, length) {
      if (!open) throw new Error('shard closed');
      const out = new Uint8Array(Math.max(0, Math.min(length, size - offset)));
      let done = 0;
      while (done < out.length) {
        const n = readSync(fd, out, done, out.length - done, offset + done);
        if (n === 0) break;
        done += n;
      }
      return done === out.length ? out : out.subarray(0, done);
    },
    async close() {
      if (!open) return;
      open = false;
      closeSync(fd);
    },
  };
}

function lockHolder(path: string): number | undefined {
  try {
    const pid = Number.parseInt(readFileSync(path, 'utf8'), 10);
    return Number.isSafeInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'; // alive, someone else's
  }
}

export class DiskIndexStore implements IndexStore {
  readonly dir: string;

  /** `root`: the workspace's real path; the folder must not be inside it (the engine's state never shows). */
  constructor(options: { root: string; dir?: string; env?: NodeJS.ProcessEnv }) {
    this.dir = resolve(options.dir ?? defaultIndexDir(options.root, options.env));
    // Decided on real paths: a folder reaching the root through a link is inside it too.
    if (isInside(realOfDeepestExisting(this.dir), options.root)) {
      throw new Error(`the index folder ${this.dir} is inside the workspace ${options.root}; choose one outside it`);
    }
  }

  /**
   * Takes the folder for this process: a `lock` file holding its pid, created exclusively. Two daemons on one
   * workspace would otherwise rewrite each other's manifest and remove each other's shards. A lock whose process
   * is gone (a crash) is taken over. Returns the pid of the live holder when the folder is taken.
   */
  lock(): { ok: true } | { ok: false; holder: number } {
    mkdirSync(this.dir, { recursive: true, mode: FOLDER_MODE });
    const path = join(this.dir, LOCK);
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        writeFileSync(path, `${process.pid}\n`, { flag: 'wx', mode: FILE_MODE });
        return { ok: true };
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
      const holder = lockHolder(path);
      if (holder !== undefined && holder !== process.pid && isAlive(holder)) return { ok: false, holder };
      rmSync(path, { force: true }); // stale (or unreadable): taken over on the next attempt
    }
    return { ok: false, holder: lockHolder(path) ?? 0 };
  }

  /** Gives the folder back (only a lock this process holds). */
  unlock(): void {
    const path = join(this.dir, LOCK);
    if (lockHolder(path) === process.pid) rmSync(path, { force: true });
  }

  /** Where the shard `name` lives (the build workers write there directly). */
  shardPath(name: string): string {
    if (!/^[\w.-]+$/.test(name)) throw new Error(`bad shard name ${JSON.stringify(name)}`);
    return join(this.dir, SHARDS, name + SHARD_SUFFIX);
  }

  /** Makes the folders; the build pool calls it before its workers write. */
  async prepare(): Promise<void> {
    await mkdir(join(this.dir, SHARDS), { recursive: true, mode: FOLDER_MODE });
    await chmod(this.dir, FOLDER_MODE);
  }

  async readManifest(): Promise<Uint8Array | undefined> {
    try {
      return await readFile(join(this.dir, MANIFEST));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
  }

  async writeManifest(bytes: Uint8Array): Promise<void> {
    await this.prepare();
    await writeFileAtomic(join(this.dir, MANIFEST), bytes);
  }

  async writeShard(name: string, bytes: Uint8Array): Promise<void> {
    await this.prepare();
    await writeFileAtomic(this.shardPath(name), bytes);
  }

  async openShard(name: string): Promise<ByteSource> {
    return shardFileSource(this.shardPath(name));
  }

  async removeShard(name: string): Promise<void> {
    await rm(this.shardPath(name), { force: true });
  }

  async shardNames(): Promise<string[]> {
    try {
      const names = await readdir(join(this.dir, SHARDS));
      return names.filter((name) => name.endsWith(SHARD_SUFFIX)).map((name) => name.slice(0, -SHARD_SUFFIX.length));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw error;
    }
  }

  async clear(): Promise<void> {
    await rm(join(this.dir, MANIFEST), { force: true });
    await rm(join(this.dir, SHARDS), { recursive: true, force: true });
    await this.prepare();
  }
}
