/**
 * The soak's mixed traffic: file reads, writes and deletes, searches, terminals opened, used and closed on each
 * transport, git status, diff and commit through `/ws`, change-feed subscribers and `/ws` sockets that come and go.
 * Each operation checks its answer and throws on anything unexpected; the loop counts it as an error.
 */
import { request } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import WebSocket from 'ws';
import { subscribeChanges } from './change-feed-client.ts';
import type { Gate } from './gate.ts';
import type { PathLocks } from './path-locks.ts';
import type { Tally } from './tally.ts';
import type { Workspace } from './workspace.ts';
import { closeOnPurpose, openWebSocket, WsRpc } from './ws-rpc.ts';

export interface TrafficContext {
  baseUrl: string;
  token: string;
  workspace: Workspace;
  tally: Tally;
  /** This worker's long-lived `/ws` socket. */
  rpc: WsRpc;
  /** Files written by the traffic that exist now (deletes take from here); changed only under the path's lock. */
  written: Set<string>;
  /** Serialises the writes and deletes of one path, so `written` always matches the disk (./path-locks.ts). */
  fileLocks: PathLocks;
  /**
   * Writes and deletes in work/ run through it; `git add -A` holds it. git stats every file it listed, and a file
   * the traffic deletes (or an atomic write's temp file renamed away) between the two fails the command with
   * "unable to stat" — git's own race with a changing tree, not the daemon's, so the harness keeps them apart.
   */
  workFolder: Gate;
  /** git commands that change the index run one at a time, as one user's would (git's index.lock). */
  gitLock: Mutex;
  serial(): number;
}

interface Operation {
  name: string;
  weight: number;
  run(ctx: TrafficContext): Promise<void>;
}

export class Mutex {
  #tail: Promise<void> = Promise.resolve();
  run<T>(work: () => Promise<T>): Promise<T> {
    const result = this.#tail.then(work);
    this.#tail = result.then(
      () => {},
      () => {},
    );
    return result;
  }
}

const pick = <T>(list: readonly T[]): T => list[Math.floor(Math.random() * list.length)]!;
const WORK_FILES = 40;

/**
 * One HTTP request on a connection of its own (`Connection: close`): a keep-alive pool would hold a varying number
 * of idle connections, and the daemon's fd count at rest would measure the pool instead of the daemon.
 */
function http(ctx: TrafficContext, method: string, path: string, body?: unknown): Promise<unknown> {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = request(
      `${ctx.baseUrl}${path}`,
      {
        method,
        agent: false,
        headers: { authorization: `Bearer ${ctx.token}`, ...(payload === undefined ? {} : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) }) },
      },
      (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (text += chunk));
        response.on('error', reject);
        response.on('end', () => {
          const status = response.statusCode ?? 0;
          if (status < 200 || status > 299) return reject(new Error(`${method} ${path}: ${status} ${text.slice(0, 200)}`));
          try {
            resolve(text ? (JSON.parse(text) as unknown) : undefined);
          } catch (error) {
            reject(error);
          }
        });
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

/** Resolves once `pattern` shows in the output `subscribe` feeds it; rejects after `timeoutMs`. */
function waitForText(subscribe: (listener: (text: string) => void) => void, pattern: string, timeoutMs: number): Promise<void> {
  return new Promise((resolve, reject) => {
    let seen = '';
    const timer = setTimeout(() => reject(new Error(`no ${pattern} within ${timeoutMs} ms (saw ${JSON.stringify(seen.slice(-200))})`)), timeoutMs);
    subscribe((text) => {
      seen = (seen + text).slice(-4096);
      if (seen.includes(pattern)) {
        clearTimeout(timer);
        resolve();
      }
    });
  });
}

const OPERATIONS: Operation[] = [
  { name: 'http read', weight: 12, run: async (ctx) => void (await http(ctx, 'GET', `/api/file?path=${pick(ctx.workspace.files)}`)) },
  {
    name: 'http write',
    weight: 10,
    run: async (ctx) => {
      const path = `work/h${ctx.serial() % WORK_FILES}.txt`;
      await ctx.workFolder.run(() => ctx.fileLocks.run(path, async () => {
        await http(ctx, 'PUT', `/api/file?path=${path}`, { content: `soak ${Date.now()}\n`.repeat(20) });
        ctx.written.add(path);
      }));
    },
  },
  { name: 'http list', weight: 6, run: async (ctx) => void (await http(ctx, 'GET', `/api/files?path=${pick(ctx.workspace.dirs)}`)) },
  {
    name: '/ws delete',
    weight: 6,
    run: async (ctx) => {
      const path = pick([...ctx.written]);
      if (path === undefined) return;
      await ctx.workFolder.run(() => ctx.fileLocks.run(path, async () => {
        // Another worker's delete may have taken it while this one waited for the lock: nothing to delete then.
        if (!ctx.written.delete(path)) return;
        await ctx.rpc.ok('delete_entry', { path });
      }));
    },
  },
  { name: '/ws read', weight: 6, run: async (ctx) => void (await ctx.rpc.ok('read_file', { path: pick(ctx.workspace.files) })) },
  {
    name: '/ws write',
    weight: 6,
    run: async (ctx) => {
      const path = `work/w${ctx.serial() % WORK_FILES}.txt`;
      await ctx.workFolder.run(() => ctx.fileLocks.run(path, async () => {
        await ctx.rpc.ok('write_file', { path, content: `ws ${Date.now()}\n` });
        ctx.written.add(path);
      }));
    },
  },
  {
    name: 'search /workspace/search',
    weight: 5,
    run: async (ctx) => void (await http(ctx, 'GET', `/workspace/search?query=charlie_${ctx.serial() % 64}&mode=find&literal=true&limit=20`)),
  },
  { name: 'search /api/files/search', weight: 4, run: async (ctx) => void (await http(ctx, 'GET', `/api/files/search?q=file${ctx.serial() % 20}`)) },
  { name: 'search /ws search_in_files', weight: 4, run: async (ctx) => void (await ctx.rpc.ok('search_in_files', { path: 'src', query: `delta_${ctx.serial() % 64}` })) },
  {
    name: 'terminal /ws pty',
    weight: 4,
    run: async (ctx) => {
      const name = `soak-pty-${ctx.serial()}`;
      const rpc = await WsRpc.connect(ctx.baseUrl, ctx.token);
      try {
        const listeners: ((text: string) => void)[] = [];
        let exited!: () => void;
        const exit = new Promise<void>((resolve) => (exited = resolve));
        rpc.onEvent = (event) => {
          if (event.payload.session_id !== name) return;
          if (event.event === 'pty-output') for (const listener of listeners) listener(String(event.payload.data));
          if (event.event === 'pty-exit') exited();
        };
        await rpc.ok('pty_spawn', { sessionId: name, shell: '/bin/bash' });
        const echoed = waitForText((listener) => listeners.push(listener), 'PTY-OK-42', 15_000);
        await rpc.ok('pty_write', { sessionId: name, data: 'echo PTY-OK-$((40+2))\r' });
        await echoed;
        await rpc.ok('pty_kill', { sessionId: name });
        await exit;
      } finally {
        await rpc.close();
      }
      await http(ctx, 'DELETE', `/terminals/${name}`);
    },
  },
  {
    name: 'terminal /terminals',
    weight: 4,
    run: async (ctx) => {
      const name = `soak-named-${ctx.serial()}`;
      await http(ctx, 'POST', '/terminals', { name, command: 'echo NAMED-OK; sleep 0.2' });
      const deadline = performance.now() + 15_000;
      while (((await http(ctx, 'GET', `/terminals/${name}`)) as { running: boolean }).running) {
        if (performance.now() > deadline) throw new Error(`${name} still running after 15 s`);
        await sleep(100);
      }
      await http(ctx, 'DELETE', `/terminals/${name}`);
    },
  },
  {
    name: 'terminal /ws/terminal',
    weight: 4,
    run: async (ctx) => {
      const ws = await openWebSocket(`${ctx.baseUrl.replace(/^http/, 'ws')}/ws/terminal?token=${encodeURIComponent(ctx.token)}`);
      try {
        const echoed = waitForText((listener) => ws.on('message', (data: WebSocket.RawData) => listener(data.toString())), 'ORI-OK-5', 15_000);
        ws.send(JSON.stringify({ type: 'input', data: 'echo ORI-OK-$((2+3))\r' }));
        await echoed;
      } finally {
        await closeOnPurpose(ws);
      }
    },
  },
  { name: 'git status', weight: 5, run: (ctx) => ctx.gitLock.run(async () => void (await ctx.rpc.ok('get_git_status', { path: '.' }))) },
  {
    name: 'git diff',
    weight: 4,
    run: (ctx) =>
      ctx.gitLock.run(async () => {
        const file = pick(ctx.workspace.files);
        const text = String(await ctx.rpc.ok('read_file', { path: file })).replace(/\/\/ soak edit .*\n$/, '');
        await ctx.rpc.ok('write_file', { path: file, content: `${text}// soak edit ${Date.now()}\n` });
        const diff = String(await ctx.rpc.ok('get_git_diff', { path: '.', file }));
        if (!diff.includes('soak edit')) throw new Error(`get_git_diff ${file}: no edit in ${JSON.stringify(diff.slice(0, 200))}`);
      }),
  },
  {
    name: 'git commit',
    weight: 2,
    run: (ctx) =>
      ctx.gitLock.run(async () => {
        await ctx.workFolder.hold();
        try {
          await ctx.rpc.ok('write_file', { path: 'work/commit-marker.txt', content: `commit ${ctx.serial()}\n` });
          await ctx.rpc.ok('git_stage_all', { path: '.' });
          await ctx.rpc.ok('git_commit', { path: '.', message: `soak commit ${ctx.serial()}` });
        } finally {
          ctx.workFolder.release();
        }
      }),
  },
  {
    name: 'change feed come and go',
    weight: 3,
    run: async (ctx) => {
      const feed = subscribeChanges(ctx.baseUrl, ctx.token, ctx.tally);
      try {
        await Promise.race([feed.ready, sleep(15_000).then(() => Promise.reject(new Error('no ready frame within 15 s')))]);
        await sleep(500 + Math.random() * 2000);
      } finally {
        feed.stop();
      }
    },
  },
  {
    name: '/ws socket come and go',
    weight: 3,
    run: async (ctx) => {
      const rpc = await WsRpc.connect(ctx.baseUrl, ctx.token);
      try {
        await rpc.ok('get_cwd');
      } finally {
        await rpc.close();
      }
    },
  },
];

const TOTAL_WEIGHT = OPERATIONS.reduce((total, op) => total + op.weight, 0);

export function pickOperation(): Operation {
  let r = Math.random() * TOTAL_WEIGHT;
  for (const op of OPERATIONS) {
    r -= op.weight;
    if (r < 0) return op;
  }
  return OPERATIONS[0]!;
}

export const OPERATION_NAMES = OPERATIONS.map((op) => op.name);
/** Past this, an operation counts as hung (an error), whatever it was waiting for. */
export const OPERATION_TIMEOUT_MS = 60_000;

export async function runOperation(op: Operation, ctx: TrafficContext): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    await Promise.race([
      op.run(ctx),
      new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${op.name}: no end within ${OPERATION_TIMEOUT_MS / 1000} s`)), OPERATION_TIMEOUT_MS))),
    ]);
    ctx.tally.count(`op ${op.name}`);
  } catch (error) {
    ctx.tally.error(op.name, error);
  } finally {
    clearTimeout(timer);
  }
}
