import { mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { NodeFileSystem } from '../../adapters/fs/node-file-system.ts';
import { createWorkspaceApp, type WorkspaceApp, type WorkspaceAppOptions } from '../../runtime/app.ts';

export const TEST_TOKEN = 'test-token-0123456789';

export interface TempWorkspace {
  /** Real absolute path of a fresh temp folder. */
  root: string;
  cleanup(): Promise<void>;
}

/** A fresh real folder, seeded with files (relative path → content); parents are created. */
export async function tempWorkspace(files: Record<string, string | Uint8Array> = {}): Promise<TempWorkspace> {
  const root = await realpath(await mkdtemp(join(tmpdir(), 'wsapi-')));
  for (const [rel, content] of Object.entries(files)) {
    const abs = join(root, rel);
    await mkdir(dirname(abs), { recursive: true });
    await writeFile(abs, content);
  }
  return { root, cleanup: () => rm(root, { recursive: true, force: true }) };
}

/** The app over the real disk at `root`, token auth on with TEST_TOKEN unless overridden. */
export function nodeApp(root: string, overrides: Partial<WorkspaceAppOptions> = {}): WorkspaceApp {
  return createWorkspaceApp({ fs: new NodeFileSystem(), root, auth: { token: TEST_TOKEN }, ...overrides });
}

/** A request to the in-process app, authenticated with TEST_TOKEN unless `headers.authorization` is given. */
export function request(path: string, init: RequestInit = {}): Request {
  const headers = new Headers(init.headers);
  if (!headers.has('authorization')) headers.set('authorization', `Bearer ${TEST_TOKEN}`);
  return new Request(new URL(path, 'http://localhost'), { ...init, headers });
}

/** `?path=` query value helper: encodes so '#', '&', '%' and spaces survive. */
export function q(params: Record<string, string | number>): string {
  return '?' + new URLSearchParams(Object.entries(params).map(([k, v]) => [k, String(v)])).toString();
}
