/**
 * Child process: the ANCHOR for the terminal figure — raw node-pty (`encoding: null`), no server, no socket.
 * Reads one line per run on stdin: a JSON `{"command": "...", "marker": "..."}`. For each it spawns a fresh
 * `/bin/sh` in a pty (same name/size/env recipe as our NodePtyAdapter), waits for the first output (the
 * prompt), writes the command, counts output bytes until the marker, then exits the shell and prints
 * `{"bytes":N,"ms":T}` on stdout (T = command written → marker seen). Prints `{"ready":true}` at start.
 * Config through the environment: BENCH_ROOT (the shell's cwd).
 */
import { createInterface } from 'node:readline';
import { spawn, type IPty } from 'node-pty';
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

async function run(command: string, marker: string): Promise<{ bytes: number; ms: number }> {
  const pty: IPty = spawn(SHELL, [], { name: 'xterm-256color', cwd: root!, cols: 80, rows: 24, env: shellEnv(), encoding: null });
  const exited = new Promise<void>((resolve) => pty.onExit(() => resolve()));
  try {
    return await new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`anchor: no ${marker} within ${TIMEOUT_MS} ms`)), TIMEOUT_MS);
      const scanner = new MarkerScanner(marker);
      let started = -1;
      let bytes = 0;
      pty.onData((data) => {
        const chunk = data as unknown as Buffer; // encoding: null → Buffer, whatever the typings say
        if (started < 0) {
          // First output is the prompt: the shell is ready. Start the clock as the command goes in.
          started = performance.now();
          pty.write(command + '\r');
          return;
        }
        bytes += chunk.length;
        if (scanner.push(chunk)) {
          clearTimeout(timer);
          resolve({ bytes, ms: performance.now() - started });
        }
      });
    });
  } finally {
    pty.write('exit\r');
    const timer = setTimeout(() => pty.kill('SIGKILL'), EXIT_GRACE_MS);
    await exited;
    clearTimeout(timer);
  }
}

process.stdout.write(JSON.stringify({ ready: true }) + '\n');
for await (const line of createInterface({ input: process.stdin })) {
  if (!line.trim()) continue;
  const { command, marker } = JSON.parse(line) as { command: string; marker: string };
  try {
    process.stdout.write(JSON.stringify(await run(command, marker)) + '\n');
  } catch (error) {
    process.stdout.write(JSON.stringify({ error: String(error) }) + '\n');
  }
}
