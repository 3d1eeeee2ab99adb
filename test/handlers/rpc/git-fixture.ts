/**
 * Shared set-up for the `/ws` git command suites: one real server and socket over a temp workspace per suite, a
 * fresh repo folder per test (cheap), and git run directly — with the server's fixed identity and dates and none of
 * the machine's config — to build repos and to check what a command left behind.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, readdirSync, lstatSync, readlinkSync, readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { NodeServer } from '../../../runtime/node/server.ts';
import { GIT_IDENTITY_ENV, startGitTestServer } from '../../support/git-test-server.ts';
import { RpcClient, type Reply } from '../../support/rpc-client.ts';
import { tempWorkspace, type TempWorkspace } from '../../support/workspace.ts';

/** The environment our own git calls use: the server's identity and dates, C messages. */
export const GIT_ENV = { ...process.env, ...GIT_IDENTITY_ENV, LC_ALL: 'C' };

/** git in `cwd`, expected to succeed: its stdout, trimmed. */
export function git(cwd: string, ...args: string[]): string {
  return gitBytes(cwd, ...args).toString().trim();
}

/** git in `cwd`, expected to succeed: its stdout exactly. */
export function gitBytes(cwd: string, ...args: string[]): Buffer {
  return execFileSync('git', args, { cwd, env: GIT_ENV, stdio: ['ignore', 'pipe', 'pipe'] });
}

/** git in `cwd`, whatever its exit: code, stdout and stderr (for a state that may be an error, e.g. no HEAD). */
export function gitTry(cwd: string, ...args: string[]): { code: number; stdout: string; stderr: string } {
  const run = spawnSync('git', args, { cwd, env: GIT_ENV, encoding: 'utf8' });
  return { code: run.status ?? -1, stdout: run.stdout, stderr: run.stderr };
}

/** Writes a file (parents created) under `dir`. */
export async function put(dir: string, path: string, content: string | Uint8Array): Promise<void> {
  await mkdir(dirname(join(dir, path)), { recursive: true });
  await writeFile(join(dir, path), content);
}

export const read = (dir: string, path: string): string => readFileSync(join(dir, path), 'utf8');

/** `git status --porcelain` lines, untracked files listed one by one (the exact state of index and tree). */
export function porcelain(repo: string): string[] {
  const out = gitBytes(repo, 'status', '--porcelain', '-uall').toString();
  return out === '' ? [] : out.replace(/\n$/, '').split('\n');
}

/** Every entry under `dir` but `.git`, with its content (files), target (links) or `/` (folders). */
export function tree(dir: string, prefix = ''): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of readdirSync(join(dir, prefix)).sort()) {
    const rel = prefix === '' ? name : `${prefix}/${name}`;
    if (rel === '.git') continue;
    const stat = lstatSync(join(dir, rel));
    if (stat.isSymbolicLink()) out[rel] = `-> ${readlinkSync(join(dir, rel))}`;
    else if (stat.isDirectory()) Object.assign(out, { [`${rel}/`]: '/' }, tree(dir, rel));
    else out[rel] = readFileSync(join(dir, rel), 'utf8');
  }
  return out;
}

/** What "nothing changed" compares: HEAD, the index (with blob ids), the status and every file. */
export function repoState(repo: string): { head: string; index: string; status: string[]; files: Record<string, string> } {
  const head = gitTry(repo, 'rev-parse', '--verify', '--quiet', 'HEAD').stdout.trim();
  return { head, index: git(repo, 'ls-files', '-s'), status: porcelain(repo), files: tree(repo) };
}

export interface GitSuite {
  /** The workspace root (real path). */
  readonly root: string;
  readonly client: RpcClient;
  /** A fresh repo folder `name` (default r1, r2, …) under the root, `git init -b main`; its absolute path. */
  repo(options?: { name?: string; files?: Record<string, string>; commit?: string }): Promise<string>;
  /**
   * A copy of the repo `template` (made once, e.g. in beforeAll) as a fresh repo folder: a repo that takes many git
   * processes to build costs none per test. Its remotes point where the template's do.
   */
  copy(template: string): string;
  /** A plain folder under the root. */
  folder(name: string): Promise<string>;
  /** `client.call(cmd, args)` with `path` the repo's folder name. */
  call(repo: string, command: string, args?: Record<string, unknown>): Promise<Reply>;
  /** `client.ok(cmd, args)` with `path` the repo's folder name. */
  ok(repo: string, command: string, args?: Record<string, unknown>): Promise<unknown>;
  close(): Promise<void>;
}

/** A real server + socket over a fresh temp workspace (call from beforeAll; close in afterAll). */
export async function openGitSuite(): Promise<GitSuite> {
  const ws: TempWorkspace = await tempWorkspace();
  const server: NodeServer = await startGitTestServer(ws.root);
  const client = await RpcClient.connect(server);
  let counter = 0;
  // A committed repo is built once per content and copied after that (fixed dates: the copy is what a rebuild
  // would be, hashes included), so most tests start a repo without running git at all.
  const built = new Map<string, string>();
  const copy = (template: string, to = join(ws.root, `r${++counter}`)) => {
    cpSync(template, to, { recursive: true, verbatimSymlinks: true });
    return to;
  };
  const rel = (repo: string) => (repo.startsWith(ws.root + '/') ? repo.slice(ws.root.length + 1) : repo);
  return {
    root: ws.root,
    client,
    async repo({ name, files = {}, commit } = {}) {
      const key = JSON.stringify([files, commit]);
      const template = built.get(key);
      if (name === undefined && commit !== undefined && template !== undefined) return copy(template);
      const dir = join(ws.root, name ?? `r${++counter}`);
      await mkdir(dir, { recursive: true });
      git(dir, 'init', '-q', '-b', 'main');
      for (const [path, content] of Object.entries(files)) await put(dir, path, content);
      if (commit !== undefined) {
        git(dir, 'add', '-A');
        git(dir, 'commit', '-q', '-m', commit);
        if (name === undefined && !built.has(key)) built.set(key, copy(dir, join(ws.root, 'templates', `t${built.size + 1}`)));
      }
      return dir;
    },
    copy: (template) => copy(template),
    async folder(name) {
      const dir = join(ws.root, name);
      await mkdir(dir, { recursive: true });
      return dir;
    },
    call: (repo, command, args = {}) => client.call(command, { path: rel(repo), ...args }),
    ok: (repo, command, args = {}) => client.ok(command, { path: rel(repo), ...args }),
    async close() {
      await client.close();
      await server.close();
      await ws.cleanup();
    },
  };
}

/** The reply frame's outcome without its id: `{ok: true, result}` or `{ok: false, error}`. */
export function outcome(reply: Reply): { ok: boolean; result?: unknown; error?: string } {
  const { id: _id, ...rest } = reply;
  return rest;
}
