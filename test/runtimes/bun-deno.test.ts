import { spawn, type ChildProcess } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { tempWorkspace, type TempWorkspace } from '../support/workspace.ts';

/**
 * The app on Bun and Deno (docs/runtimes.md#the-tests), with the binaries the devDependencies install: the handler
 * suite (./handler-suite.ts, a plain script) run by each runtime, and each runtime's daemon entry
 * (runtime/bun.ts, runtime/deno.ts) served over real HTTP from a temp folder. Every wait is for a line or an
 * exit, each bounded.
 */

const PROJECT = fileURLToPath(new URL('../../', import.meta.url));
const BUN = `${PROJECT}node_modules/.bin/bun`;
const DENO = `${PROJECT}node_modules/.bin/deno`;
const SUITE = 'test/runtimes/handler-suite.ts';
const LISTENING = /^listening on (http:\/\/127\.0\.0\.1:\d+)$/;

interface Runtime {
  name: 'bun' | 'deno';
  /** As the daemon's messages name it. */
  label: string;
  /** The handler suite's command line, run from the project root. */
  suite: string[];
  /** The daemon entry's command line for a root, before the daemon's own flags. */
  daemon(root: string): string[];
}

const RUNTIMES: Runtime[] = [
  { name: 'bun', label: 'Bun', suite: [BUN, 'run', SUITE], daemon: () => [BUN, 'runtime/bun.ts'] },
  {
    name: 'deno',
    label: 'Deno',
    // Deno finds the project's package.json and node_modules from the main module for the bare npm imports: no
    // flag needed. The daemon gets precise permissions (docs/runtimes.md#bun-and-deno): it may write the workspace only.
    suite: [DENO, 'run', '-A', SUITE],
    daemon: (root) => [
      DENO, 'run', '--no-prompt', '--allow-net=127.0.0.1', '--allow-read', `--allow-write=${root}`,
      '--allow-env', '--allow-sys=uid,homedir', '--allow-run', 'runtime/deno.ts',
    ],
  },
];

/** A spawned process: its output as lines, waits for a line or the exit, each with a deadline. */
class Spawned {
  readonly child: ChildProcess;
  stdout = '';
  stderr = '';
  /** Set on 'close', once the output is read to its end too (not 'exit', which may come before it). */
  #ended: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  #onOutput: Array<() => void> = [];

  constructor(argv: string[], env: Record<string, string | undefined> = {}) {
    this.child = spawn(argv[0]!, argv.slice(1), {
      cwd: PROJECT,
      // No colour codes in messages; no update check from Deno (no network in a test).
      env: { ...process.env, WORKSPACE_TOKEN: undefined, NO_COLOR: '1', DENO_NO_UPDATE_CHECK: '1', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    spawned.push(this.child);
    const notify = () => this.#onOutput.forEach((listener) => listener());
    this.child.stdout!.setEncoding('utf8').on('data', (chunk: string) => ((this.stdout += chunk), notify()));
    this.child.stderr!.setEncoding('utf8').on('data', (chunk: string) => ((this.stderr += chunk), notify()));
    this.child.once('close', (code, signal) => ((this.#ended = { code, signal }), notify()));
  }

  lines(): string[] {
    return this.stdout.split('\n').filter((line) => line !== '');
  }

  /** The first whole stdout line matching `pattern`; fails at the deadline or if the process exits first. */
  waitForLine(pattern: RegExp, timeoutMs = 8_000): Promise<RegExpMatchArray> {
    return this.#until(timeoutMs, `a line matching ${pattern}`, () => {
      const whole = this.stdout.slice(0, this.stdout.lastIndexOf('\n') + 1);
      for (const line of whole.split('\n')) {
        const match = line.match(pattern);
        if (match) return match;
      }
      if (this.#ended) throw new Error(`exited first: ${this.stdout}${this.stderr}`);
      return undefined;
    });
  }

  exit(timeoutMs = 8_000): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
    return this.#until(timeoutMs, 'the exit', () => this.#ended);
  }

  #until<T>(timeoutMs: number, what: string, check: () => T | undefined): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const listener = () => {
        try {
          const value = check();
          if (value === undefined) return;
          done();
          resolve(value);
        } catch (error) {
          done();
          reject(error);
        }
      };
      const timer = setTimeout(() => {
        done();
        reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}\nstdout: ${this.stdout}\nstderr: ${this.stderr}`));
      }, timeoutMs);
      const done = () => {
        clearTimeout(timer);
        this.#onOutput = this.#onOutput.filter((other) => other !== listener);
      };
      this.#onOutput.push(listener);
      listener();
    });
  }
}

let spawned: ChildProcess[] = [];
let workspaces: TempWorkspace[] = [];
afterEach(async () => {
  for (const child of spawned) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await Promise.all(workspaces.map((ws) => ws.cleanup()));
  spawned = [];
  workspaces = [];
});

async function workspace(files: Record<string, string>): Promise<TempWorkspace> {
  const ws = await tempWorkspace(files);
  workspaces.push(ws);
  return ws;
}

/** A GET with a Host header of our choosing (fetch sets its own). */
function getWithHost(url: string, host: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { headers: { host } }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode!, body }));
    });
    req.on('error', reject).end();
  });
}

describe.each(RUNTIMES)('on $name', (runtime) => {
  it('the handler suite passes', async () => {
    const suite = new Spawned(runtime.suite);
    const { code } = await suite.exit(12_000);
    expect(suite.stdout + suite.stderr).toMatch(/^\d+ passed, 0 failed$/m);
    expect(code).toBe(0);
    const passed = Number(/^(\d+) passed, 0 failed$/m.exec(suite.stdout)![1]);
    expect(passed).toBeGreaterThanOrEqual(25);
  });

  it(`runtime/${runtime.name}.ts serves a folder over HTTP with a token, and exits 0 on SIGTERM`, async () => {
    const ws = await workspace({ 'a.txt': 'alpha' });
    // Bun takes the token from the environment; Deno generates one and prints it.
    const env = runtime.name === 'bun' ? { WORKSPACE_TOKEN: 'env-token-0123' } : {};
    const daemon = new Spawned([...runtime.daemon(ws.root), '--cwd', ws.root, '--port', '0'], env);
    const base = (await daemon.waitForLine(LISTENING))[1]!;
    const token = decodeURIComponent((await daemon.waitForLine(/\?token=(\S+)$/))[1]!);
    if (runtime.name === 'bun') expect(token).toBe('env-token-0123');
    expect(daemon.lines()).toEqual([`listening on ${base}`, `${base}/?token=${encodeURIComponent(token)}`]);
    const auth = { authorization: `Bearer ${token}` };

    expect((await fetch(`${base}/api/files`)).status).toBe(401);
    const listing = await fetch(`${base}/api/files`, { headers: auth });
    expect(await listing.json()).toEqual({ path: ws.root, entries: [{ name: 'a.txt', path: `${ws.root}/a.txt`, isDir: false, size: 5 }] });

    const content = 'héllo ✓\nsecond line\n';
    const put = await fetch(`${base}/api/file?path=notes/hello.md`, { method: 'PUT', headers: auth, body: JSON.stringify({ content }) });
    expect(await put.json()).toEqual({ path: `${ws.root}/notes/hello.md`, status: 'saved' });
    expect(await readFile(`${ws.root}/notes/hello.md`)).toEqual(Buffer.from(content, 'utf8'));
    const read = await fetch(`${base}/api/file?path=notes/hello.md`, { headers: auth });
    expect(await read.json()).toEqual({ path: `${ws.root}/notes/hello.md`, content });
    // A file body streamed by the runtime's server from NodeFileSystem's range stream.
    const range = await fetch(`${base}/api/raw?path=notes/hello.md`, { headers: { ...auth, range: 'bytes=1-6' } });
    expect(range.status).toBe(206);
    expect(Buffer.from(await range.arrayBuffer())).toEqual(Buffer.from(content, 'utf8').subarray(1, 7));

    expect(await (await fetch(`${base}/capabilities`, { headers: auth })).json()).toMatchObject({ webSockets: false, terminals: false, watching: false });
    const { templates } = (await (await fetch(`${base}/workspace/templates`, { headers: auth })).json()) as { templates: Array<{ key: string }> };
    expect(templates.map((template) => template.key)).toContain('node-service');
    const panel = await fetch(`${base}/`);
    expect(panel.status).toBe(200);
    expect(panel.headers.get('content-type')).toBe('text/html; charset=utf-8');
    await panel.body?.cancel();

    daemon.child.kill('SIGTERM');
    expect(await daemon.exit()).toEqual({ code: 0, signal: null });
    expect(daemon.stderr).toBe('');
  });

  it('--no-auth answers only requests addressed to a loopback name (DNS rebinding)', async () => {
    const ws = await workspace({ 'a.txt': 'alpha' });
    const daemon = new Spawned([...runtime.daemon(ws.root), '--cwd', ws.root, '--port', '0', '--no-auth', '--no-panel']);
    const base = (await daemon.waitForLine(LISTENING))[1]!;
    expect((await getWithHost(`${base}/api/files`, 'evil.example'))).toEqual({ status: 403, body: '{"error":"host not allowed"}' });
    expect((await getWithHost(`${base}/healthz`, `localhost:${new URL(base).port}`)).status).toBe(200);
    expect((await fetch(`${base}/api/files`)).status).toBe(200);
    daemon.child.kill('SIGINT');
    expect(await daemon.exit()).toEqual({ code: 0, signal: null });
    expect(daemon.lines()).toEqual([`listening on ${base}`]);
  });

  it('refuses a Node-only flag by name, exit 2', async () => {
    const ws = await workspace({});
    const daemon = new Spawned([...runtime.daemon(ws.root), '--cwd', ws.root, '--no-watch']);
    expect(await daemon.exit()).toEqual({ code: 2, signal: null });
    expect(daemon.stderr).toContain(`workspace-api: --no-watch: not available on ${runtime.label}`);
    expect(daemon.stdout).toBe('');
  });
});
