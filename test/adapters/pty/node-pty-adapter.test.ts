import { mkdtemp, realpath, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { defaultShell, NodePtyAdapter } from '../../../adapters/pty/node-pty-adapter.ts';
import type { PtyProcess } from '../../../adapters/pty/pty-adapter.ts';
import { isRunning, waitFor } from '../../support/processes.ts';

/** Collects a pty's output: raw chunks and the text they decode to. */
function record(pty: PtyProcess) {
  const chunks: Uint8Array[] = [];
  const decoder = new TextDecoder();
  let text = '';
  pty.onData((data) => {
    chunks.push(data);
    text += decoder.decode(data, { stream: true });
  });
  const exit = new Promise<{ code: number | null; signal: number | null }>((resolve) => pty.onExit(resolve));
  return {
    chunks,
    exit,
    text: () => text,
    waitForText: (pattern: RegExp, timeoutMs = 5000) =>
      waitFor(() => text.match(pattern) ?? undefined, { timeoutMs, what: `output matching ${pattern}` }),
  };
}

describe('NodePtyAdapter', () => {
  let workspace: { root: string };
  let adapter: NodePtyAdapter;

  beforeEach(async () => {
    workspace = { root: await realpath(await mkdtemp(join(tmpdir(), 'wsapi-pty-'))) };
    adapter = new NodePtyAdapter();
  });

  afterEach(async () => {
    await adapter.killAll();
    await rm(workspace.root, { recursive: true, force: true });
  });

  it('runs a shell in the given folder and round-trips input and output as raw bytes', async () => {
    const pty = adapter.spawn({ shell: 'sh', cwd: workspace.root, cols: 80, rows: 24 });
    const out = record(pty);
    pty.write('echo "round-$((20+3)):$(pwd)"\n');
    const match = await out.waitForText(/round-23:(\S+)/);
    expect(match[1]).toBe(workspace.root);
    expect(out.chunks.every((chunk) => chunk instanceof Uint8Array)).toBe(true);
  });

  it('delivers multi-byte output as the exact bytes the program wrote', async () => {
    const pty = adapter.spawn({ shell: 'sh', cwd: workspace.root, cols: 80, rows: 24 });
    const out = record(pty);
    // printf with octal escapes: the typed command holds no euro sign, only the output does.
    pty.write("printf 'A\\342\\202\\254B\\n'\n");
    await out.waitForText(/A€B/);
    const all = Buffer.concat(out.chunks);
    expect(all.includes(Buffer.from([0x41, 0xe2, 0x82, 0xac, 0x42]))).toBe(true);
  });

  it('hands over at most maxChunkBytes at once, however fast the program writes', async () => {
    const pty = adapter.spawn({ shell: 'sh', args: ['-c', 'seq 1 200000; echo flood-end'], cwd: workspace.root, cols: 80, rows: 24, maxChunkBytes: 6000 });
    const out = record(pty);
    await out.exit;
    await out.waitForText(/flood-end/);
    expect(Math.max(...out.chunks.map((chunk) => chunk.length))).toBeLessThanOrEqual(6000);
    expect(out.chunks.reduce((sum, chunk) => sum + chunk.length, 0)).toBeGreaterThan(1_000_000);
  });

  it('accepts input given as bytes', async () => {
    const pty = adapter.spawn({ shell: 'sh', cwd: workspace.root, cols: 80, rows: 24 });
    const out = record(pty);
    pty.write(new TextEncoder().encode('echo bytes-$((6*7))\n'));
    await out.waitForText(/bytes-42/);
  });

  it('sets TERM=xterm-256color and passes extra env', async () => {
    const pty = adapter.spawn({ shell: 'sh', cwd: workspace.root, cols: 80, rows: 24, env: { WSAPI_EXTRA: 'extra-value' } });
    const out = record(pty);
    pty.write('echo "env=$TERM/$WSAPI_EXTRA"\n');
    await out.waitForText(/env=xterm-256color\/extra-value/);
  });

  it('resizes the terminal: stty size agrees', async () => {
    const pty = adapter.spawn({ shell: 'sh', cwd: workspace.root, cols: 80, rows: 24 });
    const out = record(pty);
    pty.write('echo "size=$(stty size)"\n');
    await out.waitForText(/size=24 80/);
    pty.resize(100, 30);
    pty.write('echo "size=$(stty size)"\n');
    await out.waitForText(/size=30 100/);
  });

  it('reports the exit code when the shell exits', async () => {
    const pty = adapter.spawn({ shell: 'sh', cwd: workspace.root, cols: 80, rows: 24 });
    const out = record(pty);
    pty.write('exit 3\n');
    await expect(out.exit).resolves.toEqual({ code: 3, signal: null });
    expect(adapter.liveCount).toBe(0);
  });

  it('kill() takes down the shell and its background jobs (their own process groups included)', async () => {
    const pty = adapter.spawn({ shell: 'sh', cwd: workspace.root, cols: 80, rows: 24 });
    const out = record(pty);
    pty.write('sleep 1000 & echo "bg=$!"\n');
    const sleepPid = Number((await out.waitForText(/bg=(\d+)/))[1]);
    expect(isRunning(sleepPid)).toBe(true);
    expect(isRunning(pty.pid)).toBe(true);

    pty.kill();
    const exit = await out.exit;
    expect(exit.code).toBeNull();
    await waitFor(() => !isRunning(sleepPid) && !isRunning(pty.pid), { timeoutMs: 5000, what: 'the session to die' });
  });

  it('kill() also reaches a job that ignores SIGHUP (SIGKILL after the grace period)', async () => {
    const pty = adapter.spawn({ shell: 'bash', args: ['--norc', '--noprofile'], cwd: workspace.root, cols: 80, rows: 24 });
    const out = record(pty);
    pty.write(`sh -c 'trap "" HUP; sleep 1000' & echo "bg=$!"\n`);
    const jobPid = Number((await out.waitForText(/bg=(\d+)/))[1]);
    await waitFor(() => isRunning(jobPid), { what: 'the job to start' });
    pty.kill();
    await waitFor(() => !isRunning(jobPid), { timeoutMs: 5000, what: 'the HUP-proof job to die' });
  });

  it('killAll() ends every live terminal and resolves once they are gone', async () => {
    const first = adapter.spawn({ shell: 'sh', cwd: workspace.root, cols: 80, rows: 24 });
    const second = adapter.spawn({ shell: 'bash', args: ['--norc', '--noprofile'], cwd: workspace.root, cols: 80, rows: 24 });
    expect(adapter.liveCount).toBe(2);
    await adapter.killAll();
    expect(adapter.liveCount).toBe(0);
    expect(isRunning(first.pid)).toBe(false);
    expect(isRunning(second.pid)).toBe(false);
  });

  it('tolerates kill() after the shell already exited, and write/resize on a dead pty', async () => {
    const pty = adapter.spawn({ shell: 'sh', cwd: workspace.root, cols: 80, rows: 24 });
    const out = record(pty);
    pty.write('exit 0\n');
    await out.exit;
    expect(() => {
      pty.write('echo late\n');
      pty.resize(10, 10);
      pty.kill();
      pty.kill();
    }).not.toThrow();
  });
});

describe('defaultShell', () => {
  it('prefers an executable $SHELL', () => {
    expect(defaultShell({ SHELL: '/bin/sh', PATH: '/usr/bin:/bin' })).toBe('/bin/sh');
  });

  it('falls back to bash on PATH when $SHELL is missing or not executable', () => {
    expect(defaultShell({ SHELL: '/nonexistent/zsh', PATH: '/usr/bin:/bin' })).toMatch(/\/bash$/);
    expect(defaultShell({ PATH: '/usr/bin:/bin' })).toMatch(/\/bash$/);
    expect(defaultShell({ SHELL: '/etc', PATH: '/usr/bin:/bin' })).toMatch(/\/bash$/);
  });

  it('falls back to sh when there is no bash on PATH', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'wsapi-path-'));
    try {
      await symlink('/bin/sh', join(dir, 'sh'));
      expect(defaultShell({ PATH: dir })).toBe(join(dir, 'sh'));
      expect(defaultShell({ PATH: '' })).toBe('/bin/sh');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
