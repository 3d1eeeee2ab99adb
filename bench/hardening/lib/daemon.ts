/**
 * ONE real daemon for a hardening run, in its own Node process and process group: bench/servers/ours-with-memory.mjs
 * (startNodeServer from the compiled package, as the CLI serves it) on plain `node` with the flags and glibc tunables
 * of `npm start`, so its memory, fds and children are what a user's daemon shows — no loader helper among them. The
 * package is rebuilt first when a source is newer than the build (runtime/ensure-built.mjs, as `npm start` does).
 * Its V8 heap comes over IPC; everything else is read from /proc by ./sampler.ts.
 */
import { spawn, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { projectRoot } from '../../lib/paths.ts';
import { processIdentities } from './sampler.ts';
import { descendantsOf, guardChild, installProcessGuard, killTree } from './process-guard.ts';

export interface Daemon {
  pid: number;
  baseUrl: string;
  token: string;
  /**
   * `process.memoryUsage()` inside the daemon, after a full collection with `gc` (`'thorough'`: V8's most
   * thorough, several in a row that give back pooled pages — for a daemon at rest); rejects after 5 s without an
   * answer (a blocked event loop).
   */
  memory(options?: { gc?: boolean | 'thorough' }): Promise<NodeJS.MemoryUsage>;
  /** Lines the daemon wrote on stderr (kept for the report: a logged bug is `internal error` plus a stack). */
  stderrLines(): string[];
  /**
   * SIGTERM (the daemon kills its terminals), then SIGKILL to whatever of its tree is left after 5 s. Resolves with
   * how many of the processes it had just before were still alive after it exited (each then killed): 0 expected.
   */
  stop(): Promise<number>;
}

export interface DaemonOptions {
  root: string;
  token: string;
  /** limits of createWorkspaceApp (the CLI's --max-terminals is `maxTerminals`). */
  limits?: Record<string, number>;
  /** Extra environment (SHELL for the terminals, git identity). */
  env?: Record<string, string>;
  /** WebSocket ping period (startNodeServer's `heartbeatMs`); default the daemon's 30 s. */
  heartbeatMs?: number;
}

/** What bench/servers/ours-with-memory.mjs answers to `{ type: 'memory', id, gc }`. */
interface MemoryReply {
  type: 'memory';
  id: number;
  usage: NodeJS.MemoryUsage;
}

/** As package.json's `start` (bench/lib/child-server.ts says why each one is there). */
const NODE_FLAGS = ['--heap-growing-percent=20', '--expose-gc'];
const MALLOC_ENV = { MALLOC_ARENA_MAX: '2', MALLOC_MMAP_THRESHOLD_: '131072' };
const KEPT_STDERR_LINES = 200;

export async function startDaemon(options: DaemonOptions): Promise<Daemon> {
  installProcessGuard();
  const built = spawnSync(process.execPath, [join(projectRoot, 'runtime', 'ensure-built.mjs')], { cwd: projectRoot, stdio: ['ignore', 2, 2] }); // its messages to our stderr: stdout is the report
  if (built.status !== 0) throw new Error(`the package build failed (exit ${built.status ?? built.signal})`);
  const entry = join(projectRoot, 'bench', 'servers', 'ours-with-memory.mjs');
  const child = spawn(process.execPath, [...NODE_FLAGS, entry], {
    cwd: projectRoot,
    env: {
      ...process.env,
      ...MALLOC_ENV,
      ...options.env,
      BENCH_ROOT: options.root,
      BENCH_TOKEN: options.token,
      ...(options.limits ? { BENCH_LIMITS: JSON.stringify(options.limits) } : {}),
      ...(options.heartbeatMs ? { BENCH_HEARTBEAT_MS: String(options.heartbeatMs) } : {}),
      NODE_ENV: 'production',
    },
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    detached: true,
  });
  guardChild(child);
  const stderr: string[] = [];
  createInterface({ input: child.stderr! }).on('line', (line) => {
    stderr.push(line);
    if (stderr.length > KEPT_STDERR_LINES) stderr.shift();
  });

  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('daemon did not start within 60 s')), 60_000);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`daemon exited early (${code ?? signal}):\n${stderr.join('\n')}`));
    });
    createInterface({ input: child.stdout! }).once('line', (line) => {
      clearTimeout(timer);
      resolve((JSON.parse(line) as { port: number }).port);
    });
  });
  child.removeAllListeners('exit');

  let nextId = 1;
  const waiting = new Map<number, (usage: NodeJS.MemoryUsage) => void>();
  child.on('message', (message: MemoryReply) => {
    if (message?.type !== 'memory') return;
    waiting.get(message.id)?.(message.usage);
    waiting.delete(message.id);
  });

  const pid = child.pid!;
  let stopped: Promise<number> | undefined;
  return {
    pid,
    baseUrl: `http://127.0.0.1:${port}`,
    token: options.token,
    stderrLines: () => [...stderr],
    memory: (memoryOptions = {}) =>
      new Promise((resolve, reject) => {
        const id = nextId++;
        const timer = setTimeout(() => {
          waiting.delete(id);
          reject(new Error('the daemon did not report its memory within 5 s'));
        }, 5000);
        waiting.set(id, (usage) => {
          clearTimeout(timer);
          resolve(usage);
        });
        child.send({ type: 'memory', id, gc: memoryOptions.gc ?? false });
      }),
    stop: () => (stopped ??= stopDaemon()),
  };

  async function stopDaemon(): Promise<number> {
    // Read before the exit: an orphan is re-parented away from the daemon and no walk from its pid finds it then.
    const before = processIdentities(descendantsOf(pid));
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.kill('SIGTERM');
      const late = setTimeout(() => killTree(pid), 5000);
      await exited;
      clearTimeout(late);
    }
    killTree(pid);
    // The daemon's shutdown kills every terminal's session (docs/terminals.md#lifetime); give the kernel a moment.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const left = [...before].filter(([orphan, start]) => processIdentities([orphan]).get(orphan) === start);
    for (const [orphan] of left) killTree(orphan);
    return left.length;
  }
}
