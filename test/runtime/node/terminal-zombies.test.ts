/**
 * The daemon as its own process (the CLI from source, through tsx), so that what it leaves behind can be read from
 * /proc: 200 terminals created, used (a command written, its output read) and ended — over `/ws` (`pty_spawn` /
 * `pty_kill`), over `/terminals` (POST / DELETE) and by closing a `/ws/terminal` socket — leave the daemon with no
 * child at all (a zombie is a child it did not reap) and no more file descriptors than before, within seconds.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readlinkSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fetch, WebSocket } from 'undici';
import { processTable, waitFor, type ProcessEntry } from '../../support/processes.ts';
import { ptyExits, waitForPtyText } from '../../support/pty-events.ts';
import { RpcClient } from '../../support/rpc-client.ts';
import { tempWorkspace, type TempWorkspace } from '../../support/workspace.ts';

const PROJECT = fileURLToPath(new URL('../../../', import.meta.url));
const TOKEN = 'zombie-test-token';
const SESSIONS = 200;
const BATCH = 20;

let workspace: TempWorkspace;
let daemon: ChildProcess;
let url: string;

beforeAll(async () => {
  workspace = await tempWorkspace();
  daemon = spawn(
    process.execPath,
    ['--import', 'tsx', 'runtime/node/cli.ts', '--cwd', workspace.root, '--port', '0', '--token', TOKEN, '--no-watch', '--no-index'],
    { cwd: PROJECT, env: { ...process.env, SHELL: '/bin/sh' }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stdout = '';
  daemon.stdout!.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  daemon.stderr!.resume();
  const port = await waitFor(() => stdout.match(/^listening on http:\/\/127\.0\.0\.1:(\d+)$/m)?.[1], {
    timeoutMs: 20_000,
    what: 'the daemon to listen',
  });
  url = `http://127.0.0.1:${port}`;
}, 30_000);

afterAll(async () => {
  if (daemon.exitCode === null) {
    const exited = new Promise((resolve) => daemon.once('exit', resolve));
    daemon.kill('SIGTERM');
    await exited;
  }
  await workspace.cleanup();
});

/**
 * The daemon's children (a zombie is one it has not reaped), and anything still running in a terminal's session
 * (a job its shell left, reparented away from the daemon: a kill must reach it too), by /proc. One child is not a
 * terminal's: the daemon runs from source through tsx, whose compiler service (`esbuild`) is started on a
 * cold transform cache (a fresh clone, as CI's) and lives as long as the daemon. It counts only as a zombie.
 */
const isLoaderService = (entry: ProcessEntry) => entry.comm === 'esbuild' && entry.state !== 'Z' && entry.state !== 'X';
const children = () =>
  processTable().filter(
    (entry) =>
      (entry.ppid === daemon.pid && !isLoaderService(entry)) ||
      (sessions.has(entry.sid) && entry.state !== 'Z' && entry.state !== 'X'),
  );
const descriptors = () => readdirSync(`/proc/${daemon.pid}/fd`);
const describeDescriptor = (fd: string) => {
  try {
    return `${fd} -> ${readlinkSync(`/proc/${daemon.pid}/fd/${fd}`)}`;
  } catch {
    return `${fd} (closed while looking)`;
  }
};

/** The session ids (= the shells' pids, each its session's leader) of the terminals started. */
const sessions = new Set<number>();

/** `/ws`: spawned, an echo written and read, killed, its exit seen. Every tenth leaves a job in its shell. */
async function overRpc(client: RpcClient, n: number): Promise<void> {
  const id = `rpc-${n}`;
  const { pid } = (await client.ok('pty_spawn', { sessionId: id, shell: '/bin/sh' })) as { pid: number };
  sessions.add(pid);
  await client.ok('pty_write', { sessionId: id, data: `${n % 10 === 0 ? 'sleep 1000 & ' : ''}echo "ok-$((${n}*2))"\n` });
  await waitForPtyText(client, id, `ok-${n * 2}\r\n`);
  await client.ok('pty_kill', { sessionId: id });
  await waitFor(() => ptyExits(client, id).length === 1, { what: `${id}'s exit` });
}

/** `/terminals`: created, used through `/ws` (attach, write, read the echo), deleted. */
async function overTerminals(client: RpcClient, n: number): Promise<void> {
  const name = `named-${n}`;
  const headers = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' };
  const created = await fetch(`${url}/terminals`, { method: 'POST', headers, body: JSON.stringify({ name, command: 'cat' }) });
  expect(created.status).toBe(201);
  sessions.add(((await created.json()) as { pid: number }).pid);
  await client.ok('pty_attach', { sessionId: name });
  await client.ok('pty_write', { sessionId: name, data: `line-${n}\n` });
  await waitForPtyText(client, name, `line-${n}\r\nline-${n}\r\n`); // the tty's echo, then cat's
  const deleted = await fetch(`${url}/terminals/${name}`, { method: 'DELETE', headers });
  expect(deleted.status).toBe(200);
  await deleted.arrayBuffer();
  await waitFor(() => ptyExits(client, name).length === 1, { what: `${name}'s exit` });
}

/** `/ws/terminal`: a shell that lives as long as its socket; an echo read, then the socket closed. */
async function overTerminalSocket(n: number): Promise<void> {
  const ws = new WebSocket(`${url.replace(/^http/, 'ws')}/ws/terminal?token=${TOKEN}`);
  ws.binaryType = 'arraybuffer';
  const decoder = new TextDecoder();
  let text = '';
  ws.addEventListener('message', (event) => {
    if (typeof event.data !== 'string') text += decoder.decode(new Uint8Array(event.data as ArrayBuffer), { stream: true });
  });
  const closed = new Promise<void>((resolve) => ws.addEventListener('close', () => resolve()));
  await new Promise<void>((resolve, reject) => {
    ws.addEventListener('open', () => resolve(), { once: true });
    ws.addEventListener('error', () => reject(new Error('/ws/terminal did not open')), { once: true });
  });
  ws.send(JSON.stringify({ type: 'input', data: `echo "sock-$((${n}*3))"\n` }));
  await waitFor(() => text.includes(`sock-${n * 3}\r\n`), { what: `socket ${n}'s echo` });
  ws.close();
  await closed;
}

describe('terminals leave no zombies and no descriptors in the daemon', () => {
  it(`${SESSIONS} sessions over /ws, /terminals and /ws/terminal closes`, async () => {
    // Warm-up: the first pty and sockets open what the daemon keeps for its lifetime (node-pty's state, the
    // signal pipe); those are not per session.
    {
      const client = await RpcClient.connect({ url }, TOKEN);
      await overRpc(client, -1);
      await overTerminals(client, -1);
      await overTerminalSocket(-1);
      await client.close();
    }
    // Generous: this is the baseline, not the check (a loaded machine starts the first ptys slowly).
    const warmedUp = await waitFor(() => children().length === 0, { timeoutMs: 20_000, what: 'the warm-up’s processes to be gone' }).catch(() => false);
    expect(warmedUp ? [] : children().map((entry) => entry.label)).toEqual([]); // names what stayed, if anything
    const before = descriptors();

    const clients = await Promise.all(Array.from({ length: 4 }, () => RpcClient.connect({ url }, TOKEN)));
    for (let batch = 0; batch < SESSIONS / BATCH; batch++) {
      await Promise.all(
        Array.from({ length: BATCH }, (_, i) => {
          const n = batch * BATCH + i;
          const client = clients[n % clients.length]!;
          if (n % 5 === 3) return overTerminals(client, n);
          if (n % 5 === 4) return overTerminalSocket(n);
          return overRpc(client, n);
        }),
      );
    }
    await Promise.all(clients.map((client) => client.close()));

    // Within a few seconds of the last kill: every child reaped (no `Z`), the descriptors back where they were.
    expect(sessions.size).toBe(SESSIONS - SESSIONS / 5 + 2); // the /ws and /terminals ones, the warm-up's two included
    const reaped = await waitFor(() => children().length === 0, { timeoutMs: 5000, what: 'no child of the daemon' }).catch(() => false);
    expect(reaped ? [] : children().map((entry) => entry.label)).toEqual([]);
    const settled = await waitFor(() => descriptors().length <= before.length, { timeoutMs: 5000, what: 'the descriptors' }).catch(() => false);
    if (!settled) expect(descriptors().filter((fd) => !before.includes(fd)).map(describeDescriptor)).toEqual([]);
    expect(descriptors().length).toBeLessThanOrEqual(before.length);
  }, 60_000);
});
