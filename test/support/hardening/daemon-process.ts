/**
 * The real daemon as a child process (`node --import tsx runtime/node/cli.ts`), in a process group of its own, so
 * a kill takes it whole — the process, its worker threads, any child it started — the way a container's OOM
 * killer or a `kill -9` of its group would.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { readProcTable } from '../../../adapters/posix/proc-table.ts';

const REPO = fileURLToPath(new URL('../../..', import.meta.url));

export interface DaemonProcess {
  url: string;
  token: string;
  pid: number;
  /** Spawn to `listening on`, ms. */
  startupMs: number;
  /** The start-up sweep's line (`workspace-api: swept N leftovers …`), once printed. */
  swept: Promise<number>;
  stderr: string[];
  child: ChildProcess;
}

export interface DaemonOptions {
  root: string;
  token: string;
  indexDir: string;
  /** The daemon's TMPDIR (tsx keeps its compile cache there): inside the run's folder, so nothing is left behind. */
  tmpDir: string;
  /**
   * Serve the web panel (default true). Its assets are bundled at every start (esbuild, a child process of the
   * daemon, in its group: a kill must take it too); the suite's small run leaves it out to save that CPU.
   */
  panel?: boolean;
}

export async function startDaemon(options: DaemonOptions): Promise<DaemonProcess> {
  const started = performance.now();
  const args = ['--import', 'tsx', 'runtime/node/cli.ts', '--cwd', options.root, '--port', '0', '--token', options.token, '--index-dir', options.indexDir];
  if (options.panel === false) args.push('--no-panel');
  const child = spawn(process.execPath, args, {
    cwd: REPO,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, TMPDIR: options.tmpDir },
  });
  const stderr: string[] = [];
  let sweptLine: (count: number) => void = () => {};
  const swept = new Promise<number>((resolve) => (sweptLine = resolve));
  let partial = '';
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
    const lines = (partial + chunk).split('\n');
    partial = lines.pop()!;
    for (const line of lines) {
      stderr.push(line);
      const match = /swept (\d+) leftovers/.exec(line);
      if (match) sweptLine(Number(match[1]));
    }
  });
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk;
      const match = /listening on (\S+)/.exec(out);
      if (match) resolve(match[1]!);
    });
    child.once('exit', (code, signal) => reject(new Error(`daemon exited (${code ?? signal}) before listening: ${stderr.join('\n')}`)));
  });
  return { url, token: options.token, pid: child.pid!, startupMs: performance.now() - started, swept, stderr, child };
}

/** SIGKILL to the daemon's whole process group; resolves once nothing of that group or session runs. */
export async function killDaemon(daemon: DaemonProcess): Promise<void> {
  const exited = daemon.child.exitCode !== null || daemon.child.signalCode !== null ? Promise.resolve() : once(daemon.child, 'exit');
  try {
    process.kill(-daemon.pid, 'SIGKILL');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
  }
  await exited;
  await untilGone(daemon.pid);
}

/** SIGTERM (the daemon's own shutdown), then makes sure the group is gone. */
export async function stopDaemon(daemon: DaemonProcess): Promise<void> {
  if (daemon.child.exitCode === null && daemon.child.signalCode === null) {
    const exited = once(daemon.child, 'exit');
    daemon.child.kill('SIGTERM');
    await exited;
  }
  await untilGone(daemon.pid);
}

/** The processes still in the daemon's group or session (it leads both: `detached`). */
export function survivors(pid: number): number[] {
  const table = readProcTable();
  if (table === undefined) return [];
  return [...table.values()].filter((row) => (row.pgrp === pid || row.session === pid) && row.state !== 'Z' && row.state !== 'X').map((row) => row.pid);
}

/**
 * A killed group's members are gone once the kernel has torn them down; children reparented to init may take a
 * moment to be reaped. Fails if any is still running after 5 s.
 */
async function untilGone(pid: number): Promise<void> {
  const deadline = Date.now() + 5000;
  while (survivors(pid).length > 0) {
    if (Date.now() > deadline) throw new Error(`processes of the daemon's group outlived it: ${survivors(pid).join(', ')}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
