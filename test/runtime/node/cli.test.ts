import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fetch, WebSocket } from 'undici';
import { isRunning, waitFor } from '../../support/processes.ts';
import { RpcClient } from '../../support/rpc-client.ts';

const PROJECT = fileURLToPath(new URL('../../../', import.meta.url));
const LISTENING = /^listening on http:\/\/127\.0\.0\.1:(\d+)$/;

interface Cli {
  child: ChildProcess;
  stdoutLines(): string[];
  stderr(): string;
  waitForLine(pattern: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

describe('workspace-api CLI', () => {
  let dir: string;
  let children: ChildProcess[];

  /** Runs the CLI from source: one node process with tsx's loader (`npm start` runs the same CLI compiled). Shells are plain sh (see server tests). */
  function runCli(args: string[], env: Record<string, string | undefined> = {}): Cli {
    const child = spawn(process.execPath, ['--import', 'tsx', 'runtime/node/cli.ts', ...args], {
      cwd: PROJECT,
      env: { ...process.env, SHELL: '/bin/sh', WORKSPACE_TOKEN: undefined, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(child);
    let stdout = '';
    let stderr = '';
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      child.once('exit', (code, signal) => resolve({ code, signal })),
    );
    const lines = () => stdout.split('\n').filter((line) => line !== '');
    return {
      child,
      stdoutLines: lines,
      stderr: () => stderr,
      waitForLine: (pattern, timeoutMs = 20_000) =>
        waitFor(
          () => {
            if (child.exitCode !== null) throw new Error(`CLI exited with ${child.exitCode}: ${stderr}`);
            for (const line of lines()) {
              const match = line.match(pattern);
              if (match) return match;
            }
            return undefined;
          },
          { timeoutMs, what: `a stdout line matching ${pattern}` },
        ),
      exited,
    };
  }

  async function exitOf(cli: Cli, timeoutMs = 15_000) {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`CLI did not exit within ${timeoutMs} ms`)), timeoutMs);
    });
    try {
      return await Promise.race([cli.exited, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  beforeEach(async () => {
    dir = await realpath(await mkdtemp(join(tmpdir(), 'wsapi-cli-')));
    children = [];
  });

  afterEach(async () => {
    for (const child of children) {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
    await rm(dir, { recursive: true, force: true });
  });

  it('--no-auth: prints one listening line, serves, and exits 0 on SIGTERM leaving no shell behind', async () => {
    await writeFile(join(dir, 'a.txt'), 'a');
    const cli = runCli(['--cwd', dir, '--port', '0', '--no-auth']);
    const port = Number((await cli.waitForLine(LISTENING))[1]);
    const base = `http://127.0.0.1:${port}`;

    const health = await fetch(`${base}/healthz`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ ok: true });
    const files = await fetch(`${base}/api/files`);
    expect(files.status).toBe(200);
    expect(((await files.json()) as { path: string }).path).toBe(dir);

    // Open a terminal with a background job, so shutdown has something to clean up.
    const ws = new WebSocket(`ws://127.0.0.1:${port}/ws/terminal`);
    ws.binaryType = 'arraybuffer';
    let output = '';
    ws.addEventListener('message', (event) => (output += Buffer.from(event.data as ArrayBuffer).toString('utf8')));
    const closed = new Promise<number>((resolve) => ws.addEventListener('close', (event) => resolve(event.code)));
    await waitFor(() => ws.readyState === WebSocket.OPEN, { what: 'the terminal to open' });
    ws.send(JSON.stringify({ type: 'input', data: 'echo "shell=$$"; sleep 1000 & echo "job=$!"\n' }));
    const shellPid = Number((await waitFor(() => output.match(/shell=(\d+)/) ?? undefined, { what: 'the shell pid' }))[1]);
    const jobPid = Number((await waitFor(() => output.match(/job=(\d+)/) ?? undefined, { what: 'the job pid' }))[1]);
    expect(isRunning(shellPid)).toBe(true);

    cli.child.kill('SIGTERM');
    expect(await exitOf(cli)).toEqual({ code: 0, signal: null });
    expect(await closed).toBe(1001);
    expect(isRunning(shellPid)).toBe(false);
    expect(isRunning(jobPid)).toBe(false);
    expect(cli.stdoutLines()).toEqual([`listening on ${base}`]);
  });

  it('with a token: prints the URL with ?token= and requires it; SIGINT exits 0', async () => {
    const cli = runCli(['--cwd', dir, '--port', '0', '--token', 'cli-secret']);
    const port = Number((await cli.waitForLine(LISTENING))[1]);
    await cli.waitForLine(/\?token=/);
    expect(cli.stdoutLines()).toEqual([`listening on http://127.0.0.1:${port}`, `http://127.0.0.1:${port}/?token=cli-secret`]);
    // The URL printed is the panel's page (built in the process once it listens).
    const page = await fetch(`http://127.0.0.1:${port}/?token=cli-secret`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(await page.text()).toMatch(/<script type="module" src="panel\/app-[A-Za-z0-9]+\.js"><\/script>/);

    expect((await fetch(`http://127.0.0.1:${port}/api/files`)).status).toBe(401);
    const authorized = await fetch(`http://127.0.0.1:${port}/api/files`, { headers: { authorization: 'Bearer cli-secret' } });
    expect(authorized.status).toBe(200);

    cli.child.kill('SIGINT');
    expect(await exitOf(cli)).toEqual({ code: 0, signal: null });
  });

  it('--media-ticket-ttl sets how long the media tickets it mints live; --no-panel serves no panel and prints the API URL', async () => {
    await writeFile(join(dir, 'clip.mp4'), 'video');
    const cli = runCli(['--cwd', dir, '--port', '0', '--token', 'cli-secret', '--media-ticket-ttl', '90', '--no-panel']);
    const port = Number((await cli.waitForLine(LISTENING))[1]);
    await cli.waitForLine(/\?token=/);
    expect(cli.stdoutLines()).toEqual([`listening on http://127.0.0.1:${port}`, `http://127.0.0.1:${port}/api/files?token=cli-secret`]);
    const page = await fetch(`http://127.0.0.1:${port}/`);
    expect(page.status).toBe(404);
    expect(await page.json()).toEqual({ error: 'this server has no web panel (started with --no-panel, or mounted without one)' });
    const before = Date.now();
    const minted = await fetch(`http://127.0.0.1:${port}/workspace/media-ticket`, {
      method: 'POST',
      headers: { 'x-intentic-control': 'cli-secret', 'content-type': 'application/json' },
      body: JSON.stringify({ path: 'clip.mp4' }),
    });
    const { expiresAt } = (await minted.json()) as { expiresAt: number };
    expect(expiresAt - before).toBeGreaterThanOrEqual(90_000);
    expect(expiresAt - Date.now()).toBeLessThanOrEqual(90_000);
    cli.child.kill('SIGTERM');
    expect(await exitOf(cli)).toEqual({ code: 0, signal: null });
  });

  it('--command-timeout and --command-output-cap reach run_command; SIGTERM kills a command still running', async () => {
    const cli = runCli(['--cwd', dir, '--port', '0', '--token', 'cli-secret', '--command-timeout', '1', '--command-output-cap', '5', '--no-panel']);
    const port = Number((await cli.waitForLine(LISTENING))[1]);
    const client = await RpcClient.connect({ url: `http://127.0.0.1:${port}` }, 'cli-secret');
    expect(await client.call('run_command', { command: 'sleep 30' })).toEqual({ id: 1, ok: false, error: 'Command timed out after 1 s' });
    expect(await client.call('run_command', { command: 'echo 123456' })).toEqual({ id: 2, ok: true, result: '12345\n[output truncated]' });

    void client.call('run_command', { command: 'echo $$ > cmd.pid; exec sleep 1000' }).catch(() => {});
    const pid = await waitFor(async () => {
      const content = await readFile(join(dir, 'cmd.pid'), 'utf8').catch(() => '');
      return content.endsWith('\n') ? Number(content) : undefined;
    });
    expect(isRunning(pid)).toBe(true);
    cli.child.kill('SIGTERM');
    expect(await exitOf(cli)).toEqual({ code: 0, signal: null });
    expect(isRunning(pid)).toBe(false);
  });

  it('generates a token when none is given and prints it', async () => {
    const cli = runCli(['--cwd', dir, '--port', '0']);
    const port = Number((await cli.waitForLine(LISTENING))[1]);
    const token = (await cli.waitForLine(/\?token=([A-Za-z0-9_-]+)$/))[1]!;
    expect(token).toHaveLength(43);
    const authorized = await fetch(`http://127.0.0.1:${port}/api/files?token=${token}`);
    expect(authorized.status).toBe(200);
    cli.child.kill('SIGTERM');
    expect((await exitOf(cli)).code).toBe(0);
  });

  it('refuses --no-auth on a non-loopback host with exit 2', async () => {
    const cli = runCli(['--cwd', dir, '--port', '0', '--host', '0.0.0.0', '--no-auth']);
    expect(await exitOf(cli)).toEqual({ code: 2, signal: null });
    expect(cli.stderr()).toMatch(/refusing to serve 0\.0\.0\.0 without a token/);
    expect(cli.stdoutLines()).toEqual([]);
  });

  it('refuses a missing --cwd with exit 2', async () => {
    const missing = join(dir, 'missing');
    const cli = runCli(['--cwd', missing, '--port', '0', '--no-auth']);
    expect(await exitOf(cli)).toEqual({ code: 2, signal: null });
    expect(cli.stderr()).toContain(`--cwd ${missing}: no such folder`);
    expect(cli.stdoutLines()).toEqual([]);
  });

  it('refuses unknown flags with exit 2 and prints usage on --help', async () => {
    // Two independent runs: started together, so their start-ups overlap.
    const bad = runCli(['--frobnicate']);
    const help = runCli(['--help']);
    const [badExit, helpExit] = await Promise.all([exitOf(bad), exitOf(help)]);
    expect(badExit.code).toBe(2);
    expect(bad.stderr()).toMatch(/frobnicate/);

    expect(helpExit.code).toBe(0);
    expect(help.stdoutLines()[0]).toBe('Usage: workspace-api [options]');
  });

  it('exits 1 with a message when the port is taken', async () => {
    const first = runCli(['--cwd', dir, '--port', '0', '--no-auth', '--no-panel']);
    const port = (await first.waitForLine(LISTENING))[1]!;
    const second = runCli(['--cwd', dir, '--port', port, '--no-auth', '--no-panel']);
    expect((await exitOf(second)).code).toBe(1);
    expect(second.stderr()).toMatch(/cannot listen on 127\.0\.0\.1:\d+: .*EADDRINUSE/);
    first.child.kill('SIGTERM');
    expect((await exitOf(first)).code).toBe(0);
  });
});
