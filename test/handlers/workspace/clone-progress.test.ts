/**
 * A clone's progress in the named terminal `clone-<name>` (docs/intentic.md#clone), on an app with
 * real terminals: listed and replayed over the terminals API like any session, git's exit code as its exit, and
 * killing it stops the clone (the process group is gone, nothing is left in the root).
 */
import { execFileSync } from 'node:child_process';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createGitProcess } from '../../../adapters/git/git-process.ts';
import { NodePtyAdapter } from '../../../adapters/pty/node-pty-adapter.ts';
import type { WorkspaceApp } from '../../../runtime/app.ts';
import { startGitHttpServer, type GitHttpServer } from '../../support/git-http-server.ts';
import { waitFor } from '../../support/processes.ts';
import { intenticClient, orpcError } from '../../support/intentic-contract.ts';
import { nodeApp, request, tempWorkspace, type TempWorkspace } from '../../support/workspace.ts';

const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], { cwd, stdio: 'pipe' }).toString();

let remotes: string;
let server: GitHttpServer;
beforeAll(async () => {
  remotes = await mkdtemp(join(tmpdir(), 'wsapi-clone-progress-'));
  const work = join(remotes, 'work');
  execFileSync('git', ['init', '-q', '-b', 'main', work]);
  for (let i = 0; i < 20; i++) await writeFile(join(work, `f${i}.txt`), `file ${i}\n`.repeat(50));
  git(work, 'add', '.');
  git(work, 'commit', '-q', '-m', 'first');
  execFileSync('git', ['clone', '-q', '--bare', work, join(remotes, 'web.git')]);
  server = await startGitHttpServer({ projectRoot: remotes });
});
afterAll(async () => {
  await server?.close();
  await rm(remotes, { recursive: true, force: true });
});

let ws: TempWorkspace;
let app: WorkspaceApp;
beforeEach(async () => {
  ws = await tempWorkspace({ 'notes.txt': 'n\n' });
  app = nodeApp(ws.root, { git: createGitProcess({ root: ws.root }), pty: new NodePtyAdapter() });
});
afterEach(async () => {
  await app.close();
  await ws.cleanup();
});

const terminalList = async () => (await (await app.fetch(request('/terminals'))).json()) as { terminals: Array<Record<string, unknown>> };

describe('clone progress in the terminal clone-<name>', () => {
  it('shows the command and git’s progress, exits with git’s code, and a later clone of the name replaces it', async () => {
    expect(await intenticClient(app).workspace.clone({ name: 'web', cloneUrl: `${server.url}/web.git` })).toEqual({ name: 'web', path: 'web' });
    const { terminals } = await terminalList();
    expect(terminals).toEqual([expect.objectContaining({ name: 'clone-web', command: `git clone -- ${server.url}/web.git web`, running: false, exitCode: 0, cwd: ws.root })]);
    const text = app.terminals!.get('clone-web')!.text();
    expect(text.startsWith(`$ git clone -- ${server.url}/web.git web\r\n`)).toBe(true);
    expect(text).toMatch(/Receiving objects: 100% \(\d+\/\d+\), [^\r\n]*done\.\r\n/);
    expect(text).not.toMatch(/[^\r]\n/); // every line break as a terminal prints it

    await rm(join(ws.root, 'web'), { recursive: true });
    const failed = await orpcError(intenticClient(app).workspace.clone({ name: 'web', cloneUrl: `${server.url}/missing.git` }));
    expect(failed.code).toBe('BAD_REQUEST');
    expect(failed.message).not.toContain('\r'); // the answer has git's lines, not its progress updates
    const replaced = app.terminals!.get('clone-web')!;
    expect(replaced.info()).toMatchObject({ running: false, exitCode: 128, command: `git clone -- ${server.url}/missing.git web` });
    expect(replaced.text()).toContain(failed.message.split('\n').at(-1)!);
  });

  it('hides a password in the URL it shows', async () => {
    const url = server.url.replace('http://', 'http://user:secret@');
    await intenticClient(app).workspace.clone({ name: 'web', cloneUrl: `${url}/web.git` });
    const shown = app.terminals!.get('clone-web')!;
    // Shown as a shell would need it typed: `*` is quoted.
    expect(shown.info().command).toBe(`git clone -- '${server.url.replace('http://', 'http://***@')}/web.git' web`);
    expect(shown.text()).not.toContain('secret');
  });

  it('killing the terminal stops the clone: BAD_REQUEST, nothing left in the root, the name free again', async () => {
    const hang = await startGitHttpServer({ projectRoot: remotes, mode: 'hang' });
    try {
      const cloning = orpcError(intenticClient(app).workspace.clone({ name: 'slow', cloneUrl: `${hang.url}/web.git` }));
      await waitFor(() => hang.requests > 0, { timeoutMs: 15_000, what: 'the git server to be asked' });
      expect((await app.fetch(request('/terminals/clone-slow', { method: 'DELETE' }))).status).toBe(200);
      const error = await cloning;
      expect({ code: error.code, message: error.message }).toEqual({ code: 'BAD_REQUEST', message: 'git clone was aborted' });
      expect((await readdir(ws.root)).sort()).toEqual(['notes.txt']);
      expect(await intenticClient(app).workspace.clone({ name: 'slow', cloneUrl: `${server.url}/web.git` })).toEqual({ name: 'slow', path: 'slow' });
    } finally {
      await hang.close();
    }
  });
});
