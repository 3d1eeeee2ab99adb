import { spawnSync } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGitProcess, type GitProcessOptions } from '../../../adapters/git/git-process.ts';
import { GitRunError, type GitOutput, type GitRunner } from '../../../core/git/git-runner.ts';
import { startGitHttpServer, type GitHttpMode, type GitHttpServer } from '../../support/git-http-server.ts';
import { isRunning, processTable, waitFor } from '../../support/processes.ts';
import { tempWorkspace, type TempWorkspace } from '../../support/workspace.ts';

const NOT_A_REPO = 'fatal: not a git repository (or any of the parent directories): .git\n';
const EMPTY_BLOB = 'e69de29bb2d1d6434b8b29ae775ad8c2e48c5391\n';

describe('createGitProcess', () => {
  let temp: TempWorkspace;
  /** The workspace root: a repo with one commit on main. */
  let root: string;
  /** An environment that keeps this machine's git config out: no system or global config, no credential helpers. */
  let baseEnv: Record<string, string>;
  let head: string;
  const servers: GitHttpServer[] = [];

  const runner = (options: Partial<GitProcessOptions> = {}): GitRunner => createGitProcess({ root, baseEnv, ...options });
  const text = (output: GitOutput) => ({ ...output, stdout: new TextDecoder().decode(output.stdout) });
  /** Runs git for a test's set-up and insists that it worked. */
  async function git(args: string[], cwd = root): Promise<string> {
    const output = text(await runner().run(args, { cwd }));
    expect(output.code, `git ${args.join(' ')}: ${output.stderr}`).toBe(0);
    return output.stdout;
  }
  async function serve(mode: GitHttpMode): Promise<GitHttpServer> {
    const server = await startGitHttpServer({ projectRoot: join(temp.root, 'served'), mode });
    servers.push(server);
    return server;
  }
  /** The process group of the git this test process started (its pid), once it runs; and its remote helper. */
  function gitGroup(): { pgid: number; helper: number } | undefined {
    const table = processTable();
    const git = table.find((entry) => entry.comm === 'git' && entry.ppid === process.pid);
    const helper = table.find((entry) => entry.comm === 'git-remote-http' && entry.pgrp === git?.pid);
    return git && helper ? { pgid: git.pid, helper: helper.pid } : undefined;
  }
  /**
   * Every process of the group is dead (a zombie at most) within moments of the rejection, and the group is gone
   * once the zombies are reaped: killed git processes are re-parented to PID 1, which on this machine reaps them
   * only every second or so, and a zombie still counts for `kill(-pgid, 0)`.
   */
  async function expectGroupKilled(group: { pgid: number; helper: number }): Promise<void> {
    const alive = () => processTable().filter((entry) => entry.pgrp === group.pgid && entry.state !== 'Z');
    await waitFor(() => alive().length === 0, { timeoutMs: 500, what: `the group to die: ${JSON.stringify(alive())}` });
    expect(isRunning(group.helper)).toBe(false);
    await waitFor(() => groupIsGone(group.pgid), { timeoutMs: 5000, what: 'the group to be reaped' });
  }
  function groupIsGone(pgid: number): boolean {
    try {
      process.kill(-pgid, 0);
      return false;
    } catch (error) {
      return (error as NodeJS.ErrnoException).code === 'ESRCH';
    }
  }

  beforeAll(async () => {
    temp = await tempWorkspace({ 'ws/f': new Uint8Array([0x66, 0xff, 0xfe, 0x0a, 0x00, 0x80, 0x0a]), 'home/.keep': '' });
    root = join(temp.root, 'ws');
    baseEnv = {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: join(temp.root, 'home'),
      GIT_CONFIG_NOSYSTEM: '1',
      GIT_AUTHOR_NAME: 'A U Thor',
      GIT_AUTHOR_EMAIL: 'author@example.com',
      GIT_COMMITTER_NAME: 'A U Thor',
      GIT_COMMITTER_EMAIL: 'author@example.com',
    };
    await git(['init', '-q', '-b', 'main']);
    await git(['add', 'f']);
    await git(['commit', '-q', '-m', 'first']);
    head = (await git(['rev-parse', 'HEAD'])).trim();
    await mkdir(join(temp.root, 'served'));
    await git(['clone', '-q', '--bare', root, join(temp.root, 'served', 'repo.git')]);
  });

  afterAll(async () => {
    for (const server of servers) await server.close();
    await temp?.cleanup();
  });

  it('gives git LC_ALL=C, no prompts, batch-mode ssh, the ceiling and the call’s env, and drops GIT_DIR', async () => {
    const env = { ...baseEnv, LC_ALL: 'de_DE.UTF-8', GIT_DIR: '/nonexistent', GIT_INDEX_FILE: '/nonexistent/index' };
    const dumped = text(await runner({ baseEnv: env }).run(['-c', 'alias.envdump=!env', 'envdump'], { cwd: root, env: { EXTRA: 'x y' } }));
    const seen = Object.fromEntries(dumped.stdout.split('\n').map((line) => line.split(/=(.*)/s, 2)));
    const keys = ['LC_ALL', 'GIT_TERMINAL_PROMPT', 'GIT_SSH_COMMAND', 'GIT_CEILING_DIRECTORIES', 'EXTRA', 'GIT_DIR', 'GIT_INDEX_FILE'];
    expect(Object.fromEntries(keys.map((key) => [key, seen[key]]))).toEqual({
      LC_ALL: 'C',
      GIT_TERMINAL_PROMPT: '0',
      GIT_SSH_COMMAND: 'ssh -o BatchMode=yes',
      GIT_CEILING_DIRECTORIES: temp.root,
      EXTRA: 'x y',
      GIT_DIR: undefined,
      GIT_INDEX_FILE: undefined,
    });
    expect(dumped.code).toBe(0);

    // A user's own ssh command is theirs: neither replaced nor joined by ours.
    for (const own of [{ GIT_SSH_COMMAND: 'ssh -i key' }, { GIT_SSH: '/usr/bin/my-ssh' }]) {
      const out = text(await runner({ baseEnv: { ...baseEnv, ...own } }).run(['-c', 'alias.envdump=!env', 'envdump'], { cwd: root }));
      const lines = out.stdout.split('\n').filter((line) => /^GIT_SSH(_COMMAND)?=/.test(line));
      expect(lines).toEqual(Object.entries(own).map(([key, value]) => `${key}=${value}`));
    }
  });

  it('speaks English whatever the locale (a German one is installed for git here)', async () => {
    const german = { ...baseEnv, LANG: 'C.UTF-8', LANGUAGE: 'de' };
    const outside = join(temp.root, 'home');
    // The check can fail: the same git with the same environment, but without ours, answers in German.
    expect(spawnSync('git', ['rev-parse'], { cwd: outside, env: german, encoding: 'utf8' }).stderr).toBe(
      'Schwerwiegend: Kein Git-Repository (oder irgendeines der Elternverzeichnisse): .git\n',
    );
    expect(text(await runner({ baseEnv: german }).run(['rev-parse'], { cwd: outside }))).toEqual({ code: 128, stdout: '', stderr: NOT_A_REPO });
  });

  it('never finds a repository above the workspace', async () => {
    const outer = join(temp.root, 'outer');
    const inner = join(outer, 'workspace', 'sub');
    await mkdir(inner, { recursive: true });
    await git(['init', '-q', outer], temp.root);
    const plain = spawnSync('git', ['rev-parse', '--show-toplevel'], { cwd: inner, env: baseEnv, encoding: 'utf8' });
    expect(plain.stdout).toBe(`${outer}\n`); // what git would do without the ceiling
    const confined = createGitProcess({ root: join(outer, 'workspace'), baseEnv });
    for (const cwd of [join(outer, 'workspace'), inner]) {
      expect(text(await confined.run(['rev-parse', '--show-toplevel'], { cwd }))).toEqual({ code: 128, stdout: '', stderr: NOT_A_REPO });
    }
  });

  it('answers stdout as the exact bytes, invalid UTF-8 and NUL included', async () => {
    expect(await runner().run(['show', 'HEAD:f'], { cwd: root })).toEqual({
      code: 0,
      stdout: new Uint8Array([0x66, 0xff, 0xfe, 0x0a, 0x00, 0x80, 0x0a]),
      stderr: '',
    });
  });

  it('closes stdin: a git that reads it sees end-of-file at once', async () => {
    expect(text(await runner().run(['hash-object', '--stdin'], { cwd: root }))).toEqual({ code: 0, stdout: EMPTY_BLOB, stderr: '' });
  });

  it('resolves any exit code; a death by a signal it did not get from us is 128 + the signal', async () => {
    expect(text(await runner().run(['rev-parse', '--verify', '--quiet', 'nope'], { cwd: root }))).toEqual({ code: 1, stdout: '', stderr: '' });
    const killedSelf = createGitProcess({ root, baseEnv, gitPath: '/bin/sh' });
    expect(text(await killedSelf.run(['-c', 'echo out; echo err >&2; kill -9 $$'], { cwd: root }))).toEqual({
      code: 137,
      stdout: 'out\n',
      stderr: 'err\n',
    });
  });

  it('clones and fetches over smart HTTP', async () => {
    const server = await serve('normal');
    expect(text(await runner().run(['clone', '-q', '--', `${server.url}/repo.git`, 'cloned'], { cwd: temp.root }))).toEqual({
      code: 0,
      stdout: '',
      stderr: '',
    });
    const clone = join(temp.root, 'cloned');
    expect(await git(['log', '--format=%H %s'], clone)).toBe(`${head} first\n`);

    await writeFile(join(root, 'g'), 'second\n');
    await git(['add', 'g']);
    await git(['commit', '-q', '-m', 'second']);
    await git(['push', '-q', join(temp.root, 'served', 'repo.git'), 'main']);
    const second = (await git(['rev-parse', 'HEAD'])).trim();
    expect(text(await runner().run(['fetch', '--all', '--prune'], { cwd: clone }))).toEqual({
      code: 0,
      stdout: '',
      stderr: `From ${server.url}/repo\n   ${head.slice(0, 7)}..${second.slice(0, 7)}  main       -> origin/main\n`,
    });
    expect(await git(['rev-parse', 'origin/main'], clone)).toBe(`${second}\n`);
  });

  it('fails at once, without a prompt, against a remote that wants credentials', async () => {
    const server = await serve('auth');
    const started = Date.now();
    const output = text(await runner().run(['clone', '--', `${server.url}/repo.git`, 'private'], { cwd: temp.root }));
    expect(Date.now() - started).toBeLessThan(5000);
    expect(output).toEqual({
      code: 128,
      stdout: '',
      stderr: `Cloning into 'private'...\nfatal: could not read Username for '${server.url}': terminal prompts disabled\n`,
    });
    expect(server.requests).toBe(1);
  });

  it('kills the whole process group past the deadline: git and its remote helper', async () => {
    const server = await serve('hang');
    let group: { pgid: number; helper: number } | undefined;
    const watch = setInterval(() => (group ??= gitGroup()), 20);
    const started = Date.now();
    const run = runner({ timeoutSeconds: (sub) => (sub === 'clone' ? 1 : 120) }).run(
      ['-c', 'protocol.version=2', 'clone', '--', `${server.url}/repo.git`, 'hung'],
      { cwd: temp.root },
    );
    await expect(run).rejects.toEqual(new GitRunError('git clone timed out after 1 s'));
    clearInterval(watch);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
    expect(group).toBeDefined();
    expect(server.requests).toBe(1);
    await expectGroupKilled(group!);
  });

  it('takes the deadline from WORKSPACE_GIT_TIMEOUT when no function is given', async () => {
    const server = await serve('hang');
    const run = runner({ baseEnv: { ...baseEnv, WORKSPACE_GIT_TIMEOUT: ' 0.5 ' } }).run(['fetch', `${server.url}/repo.git`], { cwd: root });
    await expect(run).rejects.toEqual(new GitRunError('git fetch timed out after 0.5 s'));
  });

  it('stops on the signal: the group is killed and the call rejects; an aborted signal starts nothing', async () => {
    const server = await serve('hang');
    const controller = new AbortController();
    const run = runner().run(['clone', '--', `${server.url}/repo.git`, 'aborted'], { cwd: temp.root, signal: controller.signal });
    const group = await waitFor(() => gitGroup(), { what: 'git and its helper' });
    controller.abort();
    await expect(run).rejects.toEqual(new GitRunError('git clone was aborted'));
    await expectGroupKilled(group);

    const before = server.requests;
    await expect(runner().run(['clone', '--', `${server.url}/repo.git`, 'never'], { cwd: temp.root, signal: controller.signal })).rejects.toEqual(
      new GitRunError('git clone was aborted'),
    );
    expect(server.requests).toBe(before);
  });

  it('rejects when git cannot be started', async () => {
    await expect(createGitProcess({ root, baseEnv, gitPath: '/nonexistent/git' }).run(['status'], { cwd: root })).rejects.toEqual(
      new GitRunError('Failed to run git: spawn /nonexistent/git ENOENT'),
    );
  });

  it('stops a git whose stdout passes the cap', async () => {
    await expect(runner({ maxStdoutBytes: 4 }).run(['show', 'HEAD:f'], { cwd: root })).rejects.toEqual(
      new GitRunError('git show printed more than 4 bytes; stopped'),
    );
    expect((await runner({ maxStdoutBytes: 7 }).run(['show', 'HEAD:f'], { cwd: root })).stdout.length).toBe(7);
  });
});

