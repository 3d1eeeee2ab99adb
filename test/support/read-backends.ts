/**
 * The app over each backend for the read tests (seed 003 and Intentic's `file`): a real temp folder with
 * NodeFileSystem, and MemoryFileSystem; both seeded alike, with byte contents, folders and links, and a
 * folder beside the root (`$OUTSIDE`) for links that leave it. `fs` is the FileSystem the app was built on,
 * so a test can read versions as the backend reports them.
 */
import { mkdir, rm } from 'node:fs/promises';
import type { FileSystem } from '../../adapters/fs/file-system.ts';
import { MemoryFileSystem } from '../../adapters/fs/memory-file-system.ts';
import { NodeFileSystem } from '../../adapters/fs/node-file-system.ts';
import { createWorkspaceApp, type WorkspaceApp, type WorkspaceAppOptions } from '../../runtime/app.ts';
import { intenticClient, type IntenticClient } from './intentic-contract.ts';
import { request, tempWorkspace, TEST_TOKEN } from './workspace.ts';

/** Relative path → content; a key ending in "/" is an empty folder; `{ link }` a symlink ($OUTSIDE expands). */
export type Seed = Record<string, string | Uint8Array | { link: string }>;

export interface Fixture {
  readonly backend: 'node' | 'memory';
  readonly root: string;
  /** Beside the root, holding `secret.txt`. */
  readonly outside: string;
  readonly fs: FileSystem;
  readonly app: WorkspaceApp;
  readonly client: IntenticClient;
  /** `GET route?params` with the token; the status, the headers and the parsed JSON body. */
  get(route: string, params?: Record<string, string | number>): Promise<{ status: number; headers: Headers; body: unknown }>;
  cleanup(): Promise<void>;
}

export type FixtureOptions = Partial<WorkspaceAppOptions> & { wrap?: (fs: FileSystem) => FileSystem };

async function seedInto(fs: FileSystem, root: string, outside: string, seed: Seed): Promise<void> {
  await fs.write(`${outside}/secret.txt`, 'secret', { mkdirs: true });
  for (const [rel, value] of Object.entries(seed)) {
    const abs = `${root}/${rel}`.replace(/\/$/, '');
    if (rel.endsWith('/')) await fs.mkdir(abs, { recursive: true });
    else if (typeof value === 'string' || value instanceof Uint8Array) await fs.write(abs, value, { mkdirs: true });
    else {
      await fs.mkdir(abs.slice(0, abs.lastIndexOf('/')) || '/', { recursive: true });
      await fs.symlink(value.link.replace('$OUTSIDE', outside), abs);
    }
  }
}

export async function createFixture(backend: 'node' | 'memory', seed: Seed, options: FixtureOptions = {}): Promise<Fixture> {
  const { wrap = (fs: FileSystem) => fs, ...appOptions } = options;
  let root: string;
  let fs: FileSystem;
  let removeFolders: () => Promise<void>;
  if (backend === 'node') {
    const ws = await tempWorkspace();
    root = ws.root;
    fs = new NodeFileSystem();
    await mkdir(`${root}-outside`);
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
  await seedInto(fs, root, outside, seed);
  const app = createWorkspaceApp({ fs: wrap(fs), root, auth: { token: TEST_TOKEN }, ...appOptions });
  return {
    backend,
    root,
    outside,
    fs,
    app,
    client: intenticClient(app),
    async get(route, params = {}) {
      const query = new URLSearchParams(Object.entries(params).map(([k, v]) => [k, String(v)])).toString();
      const response = await app.fetch(request(`${route}${query ? '?' + query : ''}`));
      return { status: response.status, headers: response.headers, body: await response.json() };
    },
    async cleanup() {
      await app.close();
      await removeFolders();
    },
  };
}

export const BACKENDS = ['node', 'memory'] as const;

/** seed 003's error body. */
export function filesError(code: string, message: string, details: Record<string, unknown> = {}) {
  return { error: { code, message, details } };
}


/**
 * `inner` with some methods replaced: every other call goes to `inner` itself (bound, so a backend's own
 * state is never shadowed on the wrapper), for counting or reshaping what the app asks of its FileSystem.
 */
export function withOverrides<T extends object>(inner: T, overrides: Partial<T>): T {
  return new Proxy(inner, {
    get(target, key) {
      if (Object.hasOwn(overrides, key)) return overrides[key as keyof T];
      const value = Reflect.get(target, key, target) as unknown;
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}
