/**
 * Starts a bench server (bench/servers/*.ts) in its own Node process, so the server never shares a JS thread
 * with the client or the load generator, and both servers get the same treatment.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { projectRoot } from './paths.ts';

export interface ChildServer {
  name: string;
  baseUrl: string;
  via: string;
  /** The server process's id (for /proc/PID/status memory figures). */
  pid: number;
  stop(): Promise<void>;
}

/** As package.json's `start` script. */
const DAEMON_MALLOC_ENV = { MALLOC_ARENA_MAX: '2', MALLOC_MMAP_THRESHOLD_: '131072' };
/**
 * As package.json's `start` script (a V8 flag, not allowed in NODE_OPTIONS): a full collection once the old
 * generation grows 20 % past what the last one kept. V8's default lets it grow up to 4× on a machine with much
 * memory, and its memory reducer does not run in an idle daemon after a burst of queries: the kernel tree's `@`
 * rounds left ~250 MiB of dead ranking objects resident (idle 492–568 MiB vs 290 with the flag). `--expose-gc`
 * lets the daemon collect once when it goes quiet (runtime/node/idle-collector.ts).
 */
const DAEMON_NODE_FLAGS = ['--heap-growing-percent=20', '--expose-gc'];

const running = new Set<ChildProcess>();

/** Kills whatever is still running (by our own child handles) when the bench exits or is interrupted. */
function killAll(): void {
  for (const child of running) child.kill('SIGKILL');
}
process.on('exit', killAll);
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    killAll();
    process.exit(130);
  });
}

export async function startChildServer(
  name: string,
  script: 'ours' | 'bare',
  env: Record<string, string>,
  nodeArgs: string[] = [],
): Promise<ChildServer> {
  const entry = join(projectRoot, 'bench', 'servers', `${script}.ts`);
  const child = spawn(process.execPath, [...(script === 'ours' ? DAEMON_NODE_FLAGS : []), ...nodeArgs, '--import', 'tsx', entry], {
    cwd: projectRoot,
    // Our daemon runs with the glibc tunables `npm start` sets (fewer malloc arenas, big buffers mmapped), so its
    // memory figures are the ones a user sees.
    env: { ...process.env, ...(script === 'ours' ? DAEMON_MALLOC_ENV : {}), ...env, NODE_ENV: 'production' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  running.add(child);
  child.on('exit', () => running.delete(child));

  const ready = await new Promise<{ port: number; via: string }>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${name}: server did not start within 30 s`)), 30_000);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`${name}: server exited early (${code ?? signal})`));
    });
    const lines = createInterface({ input: child.stdout! });
    lines.once('line', (line) => {
      clearTimeout(timer);
      try {
        resolve(JSON.parse(line) as { port: number; via: string });
      } catch {
        reject(new Error(`${name}: unexpected first line ${JSON.stringify(line)}`));
      }
    });
  });
  child.removeAllListeners('exit');
  child.on('exit', () => running.delete(child));

  return {
    name,
    baseUrl: `http://127.0.0.1:${ready.port}`,
    via: ready.via,
    pid: child.pid!,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
        setTimeout(() => child.kill('SIGKILL'), 3_000).unref();
      }),
  };
}

/** A child that answers one stdout line per stdin line (bench/servers/pty-anchor.ts). */
export interface ChildWorker {
  name: string;
  /** The worker process's id (for /proc/PID/status memory figures). */
  pid: number;
  /** Sends one line, resolves with the next line the child prints. One request at a time. */
  ask(line: string): Promise<string>;
  stop(): Promise<void>;
}

export async function startChildWorker(name: string, script: 'pty-anchor', env: Record<string, string>): Promise<ChildWorker> {
  const entry = join(projectRoot, 'bench', 'servers', `${script}.ts`);
  const child = spawn(process.execPath, ['--import', 'tsx', entry], {
    cwd: projectRoot,
    env: { ...process.env, ...env, NODE_ENV: 'production' },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  running.add(child);
  const lines = createInterface({ input: child.stdout! });
  const waiting: ((line: string) => void)[] = [];
  lines.on('line', (line) => waiting.shift()?.(line));
  let exited = false;
  const exit = new Promise<string>((resolve) =>
    child.once('exit', (code, signal) => {
      exited = true;
      running.delete(child);
      resolve(`${name}: exited (${code ?? signal})`);
    }),
  );
  const nextLine = (timeoutMs: number) =>
    new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${name}: no answer within ${timeoutMs / 1000} s`)), timeoutMs);
      waiting.push((line) => {
        clearTimeout(timer);
        resolve(line);
      });
      void exit.then((why) => {
        clearTimeout(timer);
        reject(new Error(why));
      });
    });
  await nextLine(30_000);
  return {
    name,
    pid: child.pid!,
    ask(line) {
      const answer = nextLine(120_000);
      child.stdin!.write(line + '\n');
      return answer;
    },
    stop: () =>
      new Promise<void>((resolve) => {
        if (exited) return resolve();
        void exit.then(() => resolve());
        child.stdin!.end();
        child.kill('SIGTERM');
        setTimeout(() => child.kill('SIGKILL'), 3_000).unref();
      }),
  };
}
