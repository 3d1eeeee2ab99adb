/**
 * `POST /workspace/repos` (Intentic clone) through Intentic's client, with real git: a bare repository served by
 * `git http-backend` on loopback (test/support/git-http-server.ts), one that asks for credentials, one that never
 * answers. Every refusal leaves the workspace as it was.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { MemoryFileSystem } from '../../../adapters/fs/memory-file-system.ts';
import { createGitProcess } from '../../../adapters/git/git-process.ts';
import { createWorkspaceApp } from '../../../runtime/app.ts';
import { startGitHttpServer, type GitHttpServer } from '../../support/git-http-server.ts';
import { waitFor } from '../../support/processes.ts';
import { intenticClient, orpcFailure } from '../../support/intentic-contract.ts';
import { nodeApp, tempWorkspace, TEST_TOKEN, type TempWorkspace } from '../../support/workspace.ts';

const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], { cwd, stdio: 'pipe' }).toString();

let remotes: string;
let server: GitHttpServer;
beforeAll(async () => {
  // One bare repository with main (README.md) and feature (README.md + feature.txt).
  remotes = await mkdtemp(join(tmpdir(), 'wsapi-clone-remotes-'));
  const work = join(remotes, 'work');
  execFileSync('git', ['init', '-q', '-b', 'main', work]);
  await writeFile(join(work, 'README.md'), '# web\n');
  git(work, 'add', '.');
  git(work, 'commit', '-q', '-m', 'first');
  git(work, 'checkout', '-q', '-b', 'feature');
  await writeFile(join(work, 'feature.txt'), 'feature\n');
  git(work, 'add', '.');
  git(work, 'commit', '-q', '-m', 'feature');
  git(work, 'checkout', '-q', 'main');
  execFileSync('git', ['clone', '-q', '--bare', work, join(remotes, 'web.git')]);
  server = await startGitHttpServer({ projectRoot: remotes });
});
afterAll(async () => {
  await server?.close();
  await rm(remotes, { recursive: true, force: true });
});

let ws: TempWorkspace;
beforeEach(async () => {
  ws = await tempWorkspace({ 'notes.txt': 'n\n' });
});
afterEach(() => ws.cleanup());

const appWithGit = () => nodeApp(ws.root, { git: createGitProcess({ root: ws.root }) });
const clone = (input: { name: string; cloneUrl: string; branch?: string }, app = appWithGit()) => intenticClient(app).workspace.clone(input);
const failure = orpcFailure;

describe('POST /workspace/repos', () => {
  it('clones over https into <name>, checked out, and discovery lists it; nothing else is left in the root', async () => {
    const app = appWithGit();
    expect(await clone({ name: 'web', cloneUrl: `${server.url}/web.git` }, app)).toEqual({ name: 'web', path: 'web' });
    expect(await readFile(join(ws.root, 'web/README.md'), 'utf8')).toBe('# web\n');
    expect(existsSync(join(ws.root, 'web/feature.txt'))).toBe(false);
    expect(git(join(ws.root, 'web'), 'rev-parse', '--abbrev-ref', 'HEAD').trim()).toBe('main');
    expect((await readdir(ws.root)).sort()).toEqual(['notes.txt', 'web']);
    expect(await intenticClient(app).workspace.repos({})).toEqual({ repos: ['web'] });
  });

  it('checks out the branch asked for', async () => {
    expect(await clone({ name: 'web-feature', cloneUrl: `${server.url}/web.git`, branch: 'feature' })).toEqual({ name: 'web-feature', path: 'web-feature' });
    expect(await readFile(join(ws.root, 'web-feature/feature.txt'), 'utf8')).toBe('feature\n');
    expect(git(join(ws.root, 'web-feature'), 'rev-parse', '--abbrev-ref', 'HEAD').trim()).toBe('feature');
  });

  it('a name that exists (any entry) is CONFLICT — checked before the URL', async () => {
    const expected = { code: 'CONFLICT', status: 409, message: '"notes.txt" already exists in the workspace' };
    expect(await failure(clone({ name: 'notes.txt', cloneUrl: `${server.url}/web.git` }))).toEqual(expected);
    expect(await failure(clone({ name: 'notes.txt', cloneUrl: 'file:///etc' }))).toEqual(expected);
    expect(await readFile(join(ws.root, 'notes.txt'), 'utf8')).toBe('n\n');
  });

  it('refuses bad or reserved names, local and command transports, and bad branches, before git runs', async () => {
    const requestsBefore = server.requests;
    const name = { code: 'BAD_REQUEST', status: 400, message: 'invalid or reserved repo name' };
    for (const bad of ['', '..', 'a/b', '-x', '.hidden', 'root', 'public', 'refs', 'intent', 'desired-state', 'app']) {
      expect(await failure(clone({ name: bad, cloneUrl: `${server.url}/web.git` })), bad).toEqual(name);
    }
    const marker = join(ws.root, 'pwned');
    const url = {
      code: 'BAD_REQUEST',
      status: 400,
      message: 'unsupported clone URL: use https://, http://, ssh://, git:// or [user@]host:path (local paths, file:// and ext:: are refused)',
    };
    for (const bad of [join(remotes, 'web.git'), `file://${join(remotes, 'web.git')}`, `ext::sh -c touch% ${marker}`, '--upload-pack=touch x']) {
      expect(await failure(clone({ name: 'web', cloneUrl: bad })), bad).toEqual(url);
    }
    for (const branch of ['-b', 'a..b', 'has space', 'x.lock', '']) {
      expect(await failure(clone({ name: 'web', cloneUrl: `${server.url}/web.git`, branch })), branch).toEqual({ code: 'BAD_REQUEST', status: 400, message: 'invalid branch name' });
    }
    expect(server.requests).toBe(requestsBefore); // none of them reached git
    expect(existsSync(marker)).toBe(false);
    expect((await readdir(ws.root)).sort()).toEqual(['notes.txt']);
  });

  it('a remote that asks for credentials fails at once with git’s text, and leaves nothing', async () => {
    const auth = await startGitHttpServer({ projectRoot: remotes, mode: 'auth' });
    try {
      const started = Date.now();
      const error = await failure(clone({ name: 'web', cloneUrl: `${auth.url}/web.git` }));
      expect(Date.now() - started).toBeLessThan(5000);
      expect(error).toEqual({ code: 'BAD_REQUEST', status: 400, message: expect.stringContaining('terminal prompts disabled') });
      expect((await readdir(ws.root)).sort()).toEqual(['notes.txt']);
    } finally {
      await auth.close();
    }
  });

  it('a repository that does not exist fails with git’s text and leaves nothing; a second clone of a name in progress is CONFLICT', async () => {
    const missing = await failure(clone({ name: 'web', cloneUrl: `${server.url}/missing.git` }));
    expect(missing).toEqual({ code: 'BAD_REQUEST', status: 400, message: expect.stringMatching(/not found|repository/i) });
    expect((await readdir(ws.root)).sort()).toEqual(['notes.txt']);

    const hang = await startGitHttpServer({ projectRoot: remotes, mode: 'hang' });
    const app = appWithGit();
    const first = failure(clone({ name: 'slow', cloneUrl: `${hang.url}/web.git` }, app));
    await waitFor(() => hang.requests > 0, { timeoutMs: 15_000, what: 'the git server to be asked' });
    expect(await failure(clone({ name: 'slow', cloneUrl: `${server.url}/web.git` }, app))).toEqual({
      code: 'CONFLICT',
      status: 409,
      message: '"slow" already exists in the workspace',
    });
    await hang.close(); // the first clone's connection drops: it fails, and leaves nothing
    expect((await first).code).toBe('BAD_REQUEST');
    expect((await readdir(ws.root)).sort()).toEqual(['notes.txt']);
  });

  it('is NOT_IMPLEMENTED where git cannot run (the memory backend, Workers)', async () => {
    const app = createWorkspaceApp({ fs: new MemoryFileSystem({ '/ws/a.txt': 'a' }), root: '/ws', auth: { token: TEST_TOKEN } });
    expect(await failure(clone({ name: 'web', cloneUrl: `${server.url}/web.git` }, app))).toEqual({
      code: 'NOT_IMPLEMENTED',
      status: 501,
      message: 'git is not available on this runtime',
    });
  });
});
