/**
 * The same workspace on each backend, for the tests that run over both: a real temp folder through
 * NodeFileSystem, and MemoryFileSystem at /ws. Each has a folder beside the root (`outside`, holding
 * `secret.txt`) for links and escapes that leave it.
 *
 * Two levels: `buildTree` makes and seeds the tree (core tests; several apps over one tree with `appOver`);
 * `createFixture` adds the app, the Intentic client, and read-backs of the tree that do not go through the
 * app (the Node one with node:fs, not our adapter).
 */
import { execFileSync } from 'node:child_process';
import { afterEach } from 'vitest';
import { lstat, readdir, readFile, readlink, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { FileSystem } from '../../adapters/fs/file-system.ts';
import { MemoryFileSystem } from '../../adapters/fs/memory-file-system.ts';
import { NodeFileSystem } from '../../adapters/fs/node-file-system.ts';
import { dirname } from '../../adapters/fs/posix-path.ts';
import { createWorkspaceApp, type WorkspaceApp, type WorkspaceAppOptions } from '../../runtime/app.ts';
import { intenticClient, orpcError, type IntenticClient } from './intentic-contract.ts';
import { request, tempWorkspace, TEST_TOKEN } from './workspace.ts';

export const BACKENDS = ['node', 'memory'] as const;
export type BackendName = (typeof BACKENDS)[number];

/**
 * Relative path → file content (text or bytes); a key ending in "/" is an empty folder; `{ link }` is a
 * symlink with that target text, `$OUTSIDE` in it standing for the outside folder. Parents are made.
 */
export type Seed = Record<string, string | Uint8Array | { link: string }>;

/** What a tree holds: relPath → file content, `<dir>` for a folder, `-> text` for a symlink. */
export type Snapshot = Record<string, string>;

export interface BuiltTree {
  readonly backend: BackendName;
  /** The FileSystem the tree was built on, so a test can read versions as the backend reports them. */
  readonly fs: FileSystem;
  /** The workspace root (absolute, real). */
  readonly root: string;
  /** Beside the root, holding `secret.txt`: escapes must leave it untouched. */
  readonly outside: string;
  cleanup(): Promise<void>;
}

/** Writes `seed` under `root` through `fs`. */
export async function seedTree(fs: FileSystem, root: string, seed: Seed, outside = `${root}-outside`): Promise<void> {
  for (const [rel, value] of Object.entries(seed)) {
    const abs = `${root}/${rel}`.replace(/\/$/, '');
    await fs.mkdir(rel.endsWith('/') ? abs : dirname(abs), { recursive: true });
    if (rel.endsWith('/')) continue;
    if (typeof value === 'string' || value instanceof Uint8Array) await fs.write(abs, value);
    else await fs.symlink(value.link.replace('$OUTSIDE', outside), abs);
  }
}

export async function buildTree(backend: BackendName, seed: Seed = {}): Promise<BuiltTree> {
  let root: string;
  let fs: FileSystem;
  let removeFolders: () => Promise<void>;
  if (backend === 'node') {
    const ws = await tempWorkspace();
    root = ws.root;
    fs = new NodeFileSystem();
    removeFolders = async () => {
      await ws.cleanup();
      await rm(`${root}-outside`, { recursive: true, force: true });
    };
  } else {
    root = '/ws';
    fs = new MemoryFileSystem();
    await fs.mkdir(root);
    removeFolders = async () => {};
  }
  const outside = `${root}-outside`;
  await fs.write(`${outside}/secret.txt`, 'secret', { mkdirs: true });
  await seedTree(fs, root, seed, outside);
  return { backend, fs, root, outside, cleanup: removeFolders };
}

/** The app over a built tree, token auth with TEST_TOKEN. */
export function appOver(built: Pick<BuiltTree, 'fs' | 'root'>, overrides: Partial<WorkspaceAppOptions> = {}): WorkspaceApp {
  return createWorkspaceApp({ fs: built.fs, root: built.root, auth: { token: TEST_TOKEN }, ...overrides });
}

export interface Fixture extends BuiltTree {
  readonly app: WorkspaceApp;
  readonly client: IntenticClient;
  /** `GET route?params` with the token; the status, the headers and the parsed JSON body. */
  get(route: string, params?: Record<string, string | number>): Promise<{ status: number; headers: Headers; body: unknown }>;
  /** Everything under the root (the agents folder included, so a write there would show). */
  tree(): Promise<Snapshot>;
  /** Everything in the outside folder. */
  outsideTree(): Promise<Snapshot>;
  /** Closes the app, then removes the folders. */
  cleanup(): Promise<void>;
}

/** App options; `wrap` puts something between the app and the backend (`fs` stays the backend itself). */
export type FixtureOptions = Partial<WorkspaceAppOptions> & { wrap?: (fs: FileSystem) => FileSystem };

export async function createFixture(backend: BackendName, seed: Seed, options: FixtureOptions = {}): Promise<Fixture> {
  const { wrap = (fs: FileSystem) => fs, ...appOptions } = options;
  const built = await buildTree(backend, seed);
  const app = appOver({ fs: wrap(built.fs), root: built.root }, appOptions);
  const snapshot = (folder: string) => (backend === 'node' ? snapshotDisk(folder) : snapshotFileSystem(built.fs, folder));
  return {
    ...built,
    app,
    client: intenticClient(app),
    async get(route, params = {}) {
      const query = new URLSearchParams(Object.entries(params).map(([k, v]) => [k, String(v)])).toString();
      const response = await app.fetch(request(`${route}${query ? '?' + query : ''}`));
      return { status: response.status, headers: response.headers, body: await response.json() };
    },
    tree: () => snapshot(built.root),
    outsideTree: () => snapshot(built.outside),
    async cleanup() {
      await app.close();
      await built.cleanup();
    },
  };
}

async function snapshotDisk(root: string): Promise<Snapshot> {
  const out: Snapshot = {};
  async function walk(folder: string, prefix: string): Promise<void> {
    for (const name of (await readdir(folder)).sort()) {
      const abs = join(folder, name);
      const rel = prefix + name;
      const stats = await lstat(abs);
      if (stats.isSymbolicLink()) out[rel] = `-> ${await readlink(abs)}`;
      else if (stats.isDirectory()) {
        out[rel] = '<dir>';
        await walk(abs, rel + '/');
      } else if (stats.isFile()) out[rel] = await readFile(abs, 'utf8');
      else out[rel] = '<special>';
    }
  }
  await walk(root, '');
  return out;
}

async function snapshotFileSystem(fs: FileSystem, root: string): Promise<Snapshot> {
  const out: Snapshot = {};
  async function walk(folder: string, prefix: string): Promise<void> {
    const entries = (await fs.readdir(folder)).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const { name, type } of entries) {
      const abs = `${folder}/${name}`;
      const rel = prefix + name;
      if (type === 'symlink') out[rel] = `-> ${await fs.readlink(abs)}`;
      else if (type === 'dir') {
        out[rel] = '<dir>';
        await walk(abs, rel + '/');
      } else out[rel] = new TextDecoder().decode(await fs.read(abs));
    }
  }
  await walk(root, '');
  return out;
}

/** workspace-files' error body. */
export function filesError(code: string, message: string, details: Record<string, unknown> = {}) {
  return { error: { code, message, details } };
}

/** What the Intentic client saw when a call failed: the decoded oRPC error's fields (fails if the call succeeded). */
export async function failure(call: Promise<unknown>): Promise<{ code: string; status: number; message: string; data: unknown }> {
  const error = await orpcError(call);
  return { code: error.code, status: error.status, message: error.message, data: error.data };
}

/** A FIFO on the real disk (Node has no mkfifo API; the coreutils one is on every Debian image). */
export function makeFifo(path: string): void {
  execFileSync('mkfifo', [path]);
}

/** A `build(seed)` for a describe block: each tree it builds is cleaned up after its test. */
export function treesFor(backend: BackendName): (seed: Seed) => Promise<BuiltTree> {
  let trees: BuiltTree[] = [];
  afterEach(async () => {
    await Promise.all(trees.map((tree) => tree.cleanup()));
    trees = [];
  });
  return async (seed) => {
    const tree = await buildTree(backend, seed);
    trees.push(tree);
    return tree;
  };
}
