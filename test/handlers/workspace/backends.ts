/**
 * The two backends the mutation tests run over, behind one small surface: the app over a real temp folder
 * (NodeFileSystem) and over MemoryFileSystem. Each seeds the same tree, and reads the tree back
 * independently of the app: the Node one with node:fs (not through our adapter), the memory one through the
 * FileSystem it was given.
 */
import { lstat, mkdir, readdir, readFile, readlink, rm, symlink, writeFile } from 'node:fs/promises';
import { execFileSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import type { FileSystem } from '../../../adapters/fs/file-system.ts';
import { MemoryFileSystem } from '../../../adapters/fs/memory-file-system.ts';
import { createWorkspaceApp, type WorkspaceApp, type WorkspaceAppOptions } from '../../../runtime/app.ts';
import { intenticClient, orpcError, type IntenticClient } from '../../support/intentic-contract.ts';
import { nodeApp, tempWorkspace, TEST_TOKEN } from '../../support/workspace.ts';

/** Relative path → file content; a key ending in "/" is an (empty) folder; `{ link }` is a symlink. */
export type Seed = Record<string, string | { link: string }>;

/** What a tree holds: relPath → file content, `<dir>` for a folder, `-> text` for a symlink. */
export type Snapshot = Record<string, string>;

export interface Backend {
  readonly name: string;
  /** The workspace root (absolute, real). */
  readonly root: string;
  /** A folder beside the workspace, seeded with `secret.txt`: escapes must leave it untouched. */
  readonly outside: string;
  readonly app: WorkspaceApp;
  readonly client: IntenticClient;
  /** Everything under the root (the agents folder included, so a write there would show). */
  tree(): Promise<Snapshot>;
  /** Everything in the outside folder. */
  outsideTree(): Promise<Snapshot>;
  cleanup(): Promise<void>;
}

export interface BackendFactory {
  readonly name: string;
  create(seed: Seed, options?: Partial<WorkspaceAppOptions>): Promise<Backend>;
}

export const nodeBackend: BackendFactory = {
  name: 'node',
  async create(seed, options = {}) {
    const ws = await tempWorkspace();
    const outside = `${ws.root}-outside`;
    await mkdir(outside);
    await writeFile(join(outside, 'secret.txt'), 'secret');
    for (const [rel, value] of Object.entries(seed)) {
      const abs = join(ws.root, rel);
      await mkdir(rel.endsWith('/') ? abs : dirname(abs), { recursive: true });
      if (typeof value === 'object') await symlink(value.link.replace('$OUTSIDE', outside), abs);
      else if (!rel.endsWith('/')) await writeFile(abs, value);
    }
    const app = nodeApp(ws.root, options);
    return {
      name: 'node',
      root: ws.root,
      outside,
      app,
      client: intenticClient(app),
      tree: () => snapshotDisk(ws.root),
      outsideTree: () => snapshotDisk(outside),
      async cleanup() {
        await app.close();
        await ws.cleanup();
        await rm(outside, { recursive: true, force: true });
      },
    };
  },
};

export const memoryBackend: BackendFactory = {
  name: 'memory',
  async create(seed, options = {}) {
    const root = '/ws';
    const outside = '/ws-outside';
    const fs = new MemoryFileSystem({ [`${outside}/secret.txt`]: 'secret' });
    await fs.mkdir(root);
    for (const [rel, value] of Object.entries(seed)) {
      const abs = `${root}/${rel}`.replace(/\/$/, '');
      await fs.mkdir(rel.endsWith('/') ? abs : dirname(abs), { recursive: true });
      if (typeof value === 'object') await fs.symlink(value.link.replace('$OUTSIDE', outside), abs);
      else if (!rel.endsWith('/')) await fs.write(abs, value);
    }
    const app = createWorkspaceApp({ fs, root, auth: { token: TEST_TOKEN }, ...options });
    return {
      name: 'memory',
      root,
      outside,
      app,
      client: intenticClient(app),
      tree: () => snapshotFileSystem(fs, root),
      outsideTree: () => snapshotFileSystem(fs, outside),
      cleanup: () => app.close(),
    };
  },
};

export const backends: BackendFactory[] = [nodeBackend, memoryBackend];

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

/** A FIFO on the real disk (Node has no mkfifo API; the coreutils one is on every Debian image). */
export function makeFifo(path: string): void {
  execFileSync('mkfifo', [path]);
}

/** What the Intentic client saw when a call failed: the decoded oRPC error's fields (fails if the call succeeded). */
export async function failure(call: Promise<unknown>): Promise<{ code: string; status: number; message: string; data: unknown }> {
  const error = await orpcError(call);
  return { code: error.code, status: error.status, message: error.message, data: error.data };
}
