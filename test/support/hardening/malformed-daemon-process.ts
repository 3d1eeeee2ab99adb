/**
 * Starts ./malformed-daemon.ts as its own process and watches it: whether it is still alive, whether it still
 * answers `/healthz`, every `unexpected error` its stderr logs (runtime/errors/unexpected-error.ts: each is a bug),
 * its RSS from /proc, and its heap after a forced collection (over IPC). Used by the suite and by the soak.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { request } from 'node:http';
import { fileURLToPath } from 'node:url';

const PROJECT = fileURLToPath(new URL('../../../', import.meta.url));
const ENTRY = fileURLToPath(new URL('./malformed-daemon.ts', import.meta.url));

export interface HeapReading {
  heapUsed: number;
  heapTotal: number;
  rss: number;
  external: number;
  arrayBuffers: number;
}

export interface MalformedDaemon {
  port: number;
  pid: number;
  /** Lines of `workspace-api: unexpected error in …` on stderr so far. */
  readonly unexpectedErrors: readonly string[];
  /** How it exited, if it did (a crash: nobody asked it to). */
  readonly exit: string | undefined;
  /** `GET /healthz` answers 200 `{"ok":true}` within `timeoutMs`. */
  healthy(timeoutMs?: number): Promise<boolean>;
  /** Heap after two forced collections, and RSS, read inside the daemon. */
  heap(): Promise<HeapReading>;
  /** VmRSS from /proc/<pid>/status, in bytes. */
  rss(): Promise<number>;
  stop(): Promise<void>;
}

export interface DaemonOptions {
  root: string;
  token: string;
  limits?: Record<string, number>;
}

/** As package.json's `start`: the glibc tunables and V8 flags the daemon runs with (bench/lib/child-server.ts). */
const DAEMON_ENV = { MALLOC_ARENA_MAX: '2', MALLOC_MMAP_THRESHOLD_: '131072' };
const DAEMON_FLAGS = ['--heap-growing-percent=20', '--expose-gc'];

export async function startMalformedDaemon({ root, token, limits = {} }: DaemonOptions): Promise<MalformedDaemon> {
  const child: ChildProcess = spawn(process.execPath, [...DAEMON_FLAGS, '--import', 'tsx', ENTRY], {
    cwd: PROJECT,
    env: { ...process.env, ...DAEMON_ENV, SHELL: '/bin/sh', MALFORMED_ROOT: root, MALFORMED_TOKEN: token, MALFORMED_LIMITS: JSON.stringify(limits) },
    stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
  });
  const unexpectedErrors: string[] = [];
  let exit: string | undefined;
  let stderrTail = '';
  let pending = '';
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
    stderrTail = (stderrTail + chunk).slice(-4000);
    pending += chunk;
    const lines = pending.split('\n');
    pending = lines.pop()!;
    for (const line of lines) if (line.includes('unexpected error')) unexpectedErrors.push(line);
  });
  const exited = new Promise<void>((resolve) =>
    child.once('exit', (code, signal) => {
      exit = `exit ${code ?? signal}`;
      resolve();
    }),
  );
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the daemon did not start within 60 s: ${stderrTail}`)), 60_000);
    void exited.then(() => reject(new Error(`the daemon exited at start-up (${exit}): ${stderrTail}`)));
    child.on('message', (message: { type?: string; port?: number }) => {
      if (message.type !== 'ready') return;
      clearTimeout(timer);
      resolve(message.port!);
    });
  });

  const heapWaiters: ((reading: HeapReading) => void)[] = [];
  child.on('message', (message: { type?: string } & HeapReading) => {
    if (message.type === 'heap') heapWaiters.shift()?.(message);
  });

  return {
    port,
    pid: child.pid!,
    unexpectedErrors,
    get exit() {
      return exit;
    },
    healthy: (timeoutMs = 10_000) => healthz(port, timeoutMs),
    heap() {
      if (exit !== undefined) return Promise.reject(new Error(`the daemon is gone (${exit})`));
      return new Promise((resolve) => {
        heapWaiters.push(resolve);
        child.send({ type: 'heap' });
      });
    },
    async rss() {
      const status = await readFile(`/proc/${child.pid}/status`, 'utf8');
      return Number(/^VmRSS:\s+(\d+) kB/m.exec(status)?.[1]) * 1024;
    },
    async stop() {
      if (exit !== undefined) return;
      child.kill('SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(killer);
    },
  };
}

function healthz(port: number, timeoutMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    const call = request({ host: '127.0.0.1', port, path: '/healthz', agent: false, timeout: timeoutMs }, (response) => {
      let body = '';
      response.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
      response.on('end', () => resolve(response.statusCode === 200 && body === '{"ok":true}'));
    });
    call.on('timeout', () => call.destroy(new Error('timeout')));
    call.on('error', () => resolve(false));
    call.end();
  });
}
