import { readdirSync, readlinkSync } from 'node:fs';
import { Agent, fetch } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultLimits } from '../../../runtime/context.ts';
import type { NodeServer } from '../../../runtime/node/server.ts';
import { processTable, waitFor } from '../../support/processes.ts';
import { ptyExits, waitForPtyText } from '../../support/pty-events.ts';
import { RpcClient, startTestServer } from '../../support/rpc-client.ts';
import { TEST_TOKEN, tempWorkspace, type TempWorkspace } from '../../support/workspace.ts';

const SESSIONS = 200;
const BATCH = 20;
/** One in this many is created with POST /terminals and removed with DELETE; the rest live on /ws. */
const HTTP_EVERY = 5;
/** One in this many leaves a background job behind in its shell, for the kill to find. */
const JOB_EVERY = 10;
const SOCKETS = 4;

function openDescriptors(): string[] {
  return readdirSync('/proc/self/fd');
}

/**
 * Processes still around that are our children (zombies included: a child we did not reap is a leak too) or
 * that still run in one of `sessions`. A dead job orphaned to PID 1 is that reaper's zombie, not ours.
 */
function leftovers(sessions: ReadonlySet<number>): string[] {
  return processTable()
    .filter((entry) => entry.ppid === process.pid || (sessions.has(entry.sid) && entry.state !== 'Z' && entry.state !== 'X'))
    .map((entry) => entry.label);
}

describe('leaks: 200 terminals created, used and killed over /ws and /terminals', () => {
  let workspace: TempWorkspace;
  let server: NodeServer;
  let http: Agent;

  beforeAll(async () => {
    workspace = await tempWorkspace();
    server = await startTestServer(workspace.root);
    http = new Agent();
  });

  afterAll(async () => {
    await server.close();
    await workspace.cleanup();
  });

  function api(path: string, init: { method: string; body?: unknown }): Promise<{ status: number; body: unknown }> {
    return fetch(new URL(path, server.url), {
      method: init.method,
      dispatcher: http,
      headers: { authorization: `Bearer ${TEST_TOKEN}`, 'content-type': 'application/json' },
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
    }).then(async (response) => ({ status: response.status, body: await response.json() }));
  }

  /** A shell on /ws: spawned, an echo written and read, killed, its one exit seen. */
  async function overWebSocket(client: RpcClient, n: number): Promise<number> {
    const id = `ws-${n}`;
    const { pid } = (await client.ok('pty_spawn', { sessionId: id, shell: '/bin/sh' })) as { pid: number };
    const job = n % JOB_EVERY === 0 ? 'sleep 1000 & ' : '';
    await client.ok('pty_write', { sessionId: id, data: `${job}echo "ok-$((${n}*2))"\n` });
    await waitForPtyText(client, id, `ok-${n * 2}\r\n`);
    await client.ok('pty_kill', { sessionId: id });
    await waitFor(() => ptyExits(client, id).length === 1, { what: `${id}'s exit` });
    return pid;
  }

  /** A named terminal over HTTP: created, used through /ws (attach, write, read the echo), deleted. */
  async function overHttp(client: RpcClient, n: number): Promise<number> {
    const name = `http-${n}`;
    const created = await api('/terminals', { method: 'POST', body: { name, command: 'cat' } });
    expect(created).toMatchObject({ status: 201, body: { name, running: true, command: 'cat' } });
    const { pid } = created.body as { pid: number };
    await client.ok('pty_attach', { sessionId: name });
    await client.ok('pty_write', { sessionId: name, data: `line-${n}\n` });
    await waitForPtyText(client, name, `line-${n}\r\nline-${n}\r\n`); // the tty's echo, then cat's
    expect(await api(`/terminals/${name}`, { method: 'DELETE' })).toEqual({ status: 200, body: { ok: true } });
    await waitFor(() => ptyExits(client, name).length === 1, { what: `${name}'s exit` });
    return pid;
  }

  it('leave no child process and no open file descriptor behind', async () => {
    // Warm-up: the first pty and the first sockets open descriptors Node keeps for its lifetime (the signal
    // pipe, the pty's helper state); they are not per-session.
    {
      const client = await RpcClient.connect(server);
      await overWebSocket(client, -1);
      await overHttp(client, -1);
      await client.close();
      await http.close();
      http = new Agent();
    }
    await waitFor(() => leftovers(new Set()).length === 0, { what: 'the warm-up to be gone' });
    const before = openDescriptors();

    const clients = await Promise.all(Array.from({ length: SOCKETS }, () => RpcClient.connect(server)));
    const pids = new Set<number>();
    const started = Date.now();
    for (let batch = 0; batch < SESSIONS / BATCH; batch++) {
      const done = await Promise.all(
        Array.from({ length: BATCH }, (_, i) => {
          const n = batch * BATCH + i;
          const client = clients[n % SOCKETS]!;
          return n % HTTP_EVERY === HTTP_EVERY - 1 ? overHttp(client, n) : overWebSocket(client, n);
        }),
      );
      for (const pid of done) pids.add(pid);
    }
    const elapsedMs = Date.now() - started;
    expect(pids.size).toBe(SESSIONS);
    expect(server.terminals!.list().filter((terminal) => terminal.running)).toEqual([]);
    // Exited sessions keep their rings until reaped, but no more of them than the live-session cap.
    expect(server.terminals!.list().length).toBeLessThanOrEqual(defaultLimits.maxTerminals);
    expect(leftovers(pids)).toEqual([]);

    await Promise.all(clients.map((client) => client.close()));
    await http.close();
    // The server's ends of the closed connections close a moment after the clients' ends.
    await waitFor(() => openDescriptors().length <= before.length, { timeoutMs: 5000, what: 'descriptors back to the count before' }).catch(
      () => undefined,
    );
    const after = openDescriptors();
    const opened = after.filter((fd) => !before.includes(fd)).map((fd) => describeDescriptor(fd));
    expect(opened).toEqual([]);
    expect(after.length).toBe(before.length);
    console.log(`leak test: ${SESSIONS} sessions in ${elapsedMs} ms, ${before.length} descriptors before and after`);
    // 10 s here on a lightly shared 2-core machine, 23-49 s on a heavily shared one: most of it is node-pty's
    // synchronous fork (~20 ms a session with the event loop blocked). The bound is generous so load cannot fail it.
  }, 120_000);
});

function describeDescriptor(fd: string): string {
  try {
    return `${fd} -> ${readlinkSync(`/proc/self/fd/${fd}`)}`;
  } catch {
    return `${fd} (closed while looking)`;
  }
}
