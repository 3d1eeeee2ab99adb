/**
 * Child process: the ANCHOR for the terminal figures — raw node-pty (`encoding: null`), no server, no socket.
 * Reads one JSON request per line on stdin and answers one JSON line on stdout; prints `{"ready":true}` at
 * start. Each request gets a fresh `/bin/sh` in a pty (same name/size/env recipe as our NodePtyAdapter),
 * waits for its first output (the prompt), does the work, then exits the shell:
 *   {"command": "...", "marker": "..."}   writes the command, counts output bytes until the marker
 *                                         → {"bytes":N,"ms":T,"cpuMs":C} (T = command written → marker
 *                                         seen; C = this process's CPU time, all threads, over the same span)
 *   {"echo": {"samples": N, "gapMs": G}}  keystroke echo latencies (bench/lib/echo-probe.ts) → {"samples":[ms…]}
 * Config through the environment: BENCH_ROOT (the shell's cwd).
 */
import { createInterface } from 'node:readline';
import { spawn, type IPty } from 'node-pty';
import { probeEcho, type EchoOptions } from '../lib/echo-probe.ts';
import { MarkerScanner } from '../lib/marker.ts';

const root = process.env.BENCH_ROOT;
if (!root) throw new Error('BENCH_ROOT is required');

const SHELL = '/bin/sh';
const TIMEOUT_MS = 60_000;
const EXIT_GRACE_MS = 3_000;

function shellEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) if (value !== undefined) env[key] = value;
  for (const key of ['TMUX', 'TMUX_PANE', 'STY', 'WINDOW', 'WINDOWID', 'TERMCAP', 'COLUMNS', 'LINES']) delete env[key];
  env.TERM = 'xterm-256color';
  env.SHELL = SHELL;
  return env;
}

interface Shell {
  pty: IPty;
  /** Resolves with the first output (the prompt): the shell is ready. */
  prompt: Promise<void>;
  /** Types `exit` and waits for the shell to go (SIGKILL after a grace period). */
  close(): Promise<void>;
}

function openShell(): Shell {
  const pty: IPty = spawn(SHELL, [], { name: 'xterm-256color', cwd: root!, cols: 80, rows: 24, env: shellEnv(), encoding: null });
  const exited = new Promise<void>((resolve) => pty.onExit(() => resolve()));
  const prompt = new Promise<void>((resolve) => {
    const first = pty.onData(() => {
      first.dispose();
      resolve();
    });
  });
  return {
    pty,
    prompt,
    async close() {
      pty.write('exit\r');
      const timer = setTimeout(() => pty.kill('SIGKILL'), EXIT_GRACE_MS);
      await exited;
      clearTimeout(timer);
    },
  };
}

async function runOutput(command: string, marker: string): Promise<{ bytes: number; ms: number; cpuMs: number }> {
  const shell = openShell();
  try {
    await shell.prompt;
    return await new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`anchor: no ${marker} within ${TIMEOUT_MS} ms`)), TIMEOUT_MS);
      const scanner = new MarkerScanner(marker);
      let bytes = 0;
      let done = false;
      shell.pty.onData((data) => {
        if (done) return;
        const chunk = data as unknown as Buffer; // encoding: null → Buffer, whatever the typings say
        bytes += chunk.length;
        if (scanner.push(chunk)) {
          done = true;
          clearTimeout(timer);
          const ms = performance.now() - started;
          const cpu = process.cpuUsage(cpuStarted);
          resolve({ bytes, ms, cpuMs: (cpu.user + cpu.system) / 1000 });
        }
      });
      // The clock starts as the command goes in, after the prompt.
      const started = performance.now();
      const cpuStarted = process.cpuUsage();
      shell.pty.write(command + '\r');
    });
  } finally {
    await shell.close();
  }
}

async function runEcho(options: EchoOptions): Promise<{ samples: number[] }> {
  const shell = openShell();
  try {
    await shell.prompt;
    const samples = await probeEcho(
      { write: (data) => shell.pty.write(data), listen: (listener) => shell.pty.onData((data) => listener(data as unknown as Buffer)) },
      options,
    );
    return { samples };
  } finally {
    await shell.close();
  }
}

type Request = { command: string; marker: string } | { echo: EchoOptions };

process.stdout.write(JSON.stringify({ ready: true }) + '\n');
for await (const line of createInterface({ input: process.stdin })) {
  if (!line.trim()) continue;
  const request = JSON.parse(line) as Request;
  try {
    const answer = 'echo' in request ? await runEcho(request.echo) : await runOutput(request.command, request.marker);
    process.stdout.write(JSON.stringify(answer) + '\n');
  } catch (error) {
    process.stdout.write(JSON.stringify({ error: String(error) }) + '\n');
  }
}
