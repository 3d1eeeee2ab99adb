/**
 * handlers/rpc/scheduler.ts: heavy commands are capped per connection, start in arrival order, wait while the
 * socket holds more than the high-water mark and resume on its drain; light ones never wait; the waiting room
 * is bounded with a clear error; a closed socket's waiting work never starts. Precise cases over a fake socket
 * (the test plays the peer and its backlog), then the real thing over a real /ws.
 */
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { WebSocket as WsClient } from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineCommand, light, type RpcCommand } from '../../../handlers/rpc/command.ts';
import { LIGHT_COMMANDS, rpcCommands } from '../../../handlers/rpc/command-table.ts';
import { runRpcConnection } from '../../../handlers/rpc/connection.ts';
import { defaultRpcSchedule, type RpcSchedule } from '../../../handlers/rpc/scheduler.ts';
import type { WorkspaceContext } from '../../../runtime/context.ts';
import type { NodeServer } from '../../../runtime/node/server.ts';
import { isRunning, waitFor } from '../../support/processes.ts';
import { RpcClient, startTestServer, type Reply } from '../../support/rpc-client.ts';
import { FakeSocket, nextTurn } from '../../support/terminals.ts';
import { tempWorkspace, TEST_TOKEN, type TempWorkspace } from '../../support/workspace.ts';

/** A fake connection whose `hold` commands (`n`: the test's name for one) run until the test releases them; `quick` is light. */
function harness(schedule: Partial<RpcSchedule> = {}, countSends = false) {
  const socket = new FakeSocket(countSends);
  const started: number[] = [];
  const releases = new Map<number, (result: unknown) => void>();
  const commands = new Map<string, RpcCommand>([
    [
      'hold',
      defineCommand({
        args: { n: z.number() },
        run: ({ n }) => {
          started.push(n);
          return new Promise((resolve) => releases.set(n, resolve));
        },
      }),
    ],
    ['quick', light(defineCommand({ args: {}, run: () => 'quick' }))],
  ]);
  runRpcConnection(socket, {} as WorkspaceContext, commands, { ...defaultRpcSchedule, ...schedule });
  return {
    socket,
    started,
    request(id: number, command = 'hold', pad = '') {
      socket.receiveText(JSON.stringify({ id, command, args: { n: id, pad } }));
    },
    async release(id: number, result: unknown = `done ${id}`) {
      const resolve = releases.get(id);
      if (!resolve) throw new Error(`#${id} has not started`);
      resolve(result);
      await nextTurn();
    },
    replies: () => socket.texts() as Reply[],
  };
}

describe('the /ws scheduler over a fake socket', () => {
  it('runs at most maxHeavyRunning heavy commands at once; the rest start in arrival order as slots free', async () => {
    const h = harness({ maxHeavyRunning: 2 });
    for (const id of [1, 2, 3, 4, 5]) h.request(id);
    await nextTurn();
    expect(h.started).toEqual([1, 2]);
    await h.release(2);
    expect(h.started).toEqual([1, 2, 3]);
    await h.release(1);
    expect(h.started).toEqual([1, 2, 3, 4]);
    await h.release(4);
    expect(h.started).toEqual([1, 2, 3, 4, 5]);
    await h.release(3);
    await h.release(5);
    expect(h.replies()).toEqual([2, 1, 4, 3, 5].map((id) => ({ id, ok: true, result: `done ${id}` })));
  });

  it('a failing heavy command frees its slot too', async () => {
    const socket = new FakeSocket();
    let calls = 0;
    const commands = new Map<string, RpcCommand>([
      ['fail', defineCommand({ args: {}, run: () => Promise.reject(new Error(`boom ${++calls}`)) })],
    ]);
    runRpcConnection(socket, {} as WorkspaceContext, commands, { ...defaultRpcSchedule, maxHeavyRunning: 1 });
    const logged: unknown[] = [];
    const original = console.error;
    console.error = (...args: unknown[]) => void logged.push(args);
    try {
      for (const id of [1, 2, 3]) socket.receiveText(JSON.stringify({ id, command: 'fail' }));
      await waitFor(() => socket.sent.length === 3, { what: 'three replies' });
    } finally {
      console.error = original;
    }
    expect(socket.texts()).toEqual([1, 2, 3].map((id) => ({ id, ok: false, error: 'internal error' })));
    expect(logged).toHaveLength(3);
  });

  it('light commands are never held behind heavy ones, running or waiting', async () => {
    const h = harness({ maxHeavyRunning: 1 });
    h.request(1);
    h.request(2);
    h.request(3, 'quick');
    await nextTurn();
    expect(h.started).toEqual([1]);
    expect(h.replies()).toEqual([{ id: 3, ok: true, result: 'quick' }]);
    // Also behind the high-water mark: the socket is full, the light command still answers.
    h.socket.bufferedAmount = defaultRpcSchedule.highWaterBytes + 1;
    h.request(4, 'quick');
    await nextTurn();
    expect(h.replies().at(-1)).toEqual({ id: 4, ok: true, result: 'quick' });
  });

  it('no heavy command starts while bufferedAmount is above the high-water mark; they start on drain', async () => {
    const h = harness({ maxHeavyRunning: 4, highWaterBytes: 1000 });
    h.socket.bufferedAmount = 1001;
    h.request(1);
    h.request(2);
    await nextTurn();
    expect(h.started).toEqual([]);
    h.socket.drained();
    await nextTurn();
    expect(h.started).toEqual([1, 2]);
    // At the mark exactly is not above it.
    h.socket.bufferedAmount = 1000;
    h.request(3);
    await nextTurn();
    expect(h.started).toEqual([1, 2, 3]);
  });

  it('a reader that stops: replies that fill the socket hold the next heavy start until the socket drains', async () => {
    const h = harness({ maxHeavyRunning: 1, highWaterBytes: 1000 }, true);
    for (const id of [1, 2, 3]) h.request(id);
    await nextTurn();
    expect(h.started).toEqual([1]);
    await h.release(1, 'x'.repeat(2000)); // the reply alone passes the mark; the peer reads nothing
    expect(h.socket.bufferedAmount).toBeGreaterThan(1000);
    expect(h.started).toEqual([1]);
    h.socket.drained();
    await nextTurn();
    expect(h.started).toEqual([1, 2]);
    await h.release(2, 'small'); // under the mark: the next starts on the slot alone
    expect(h.started).toEqual([1, 2, 3]);
  });

  it('a backlog that fell under the mark without a drain event is seen at the next request', async () => {
    const h = harness({ maxHeavyRunning: 4, highWaterBytes: 1000 });
    h.socket.bufferedAmount = 5000;
    h.request(1);
    await nextTurn();
    expect(h.started).toEqual([]);
    h.socket.bufferedAmount = 500; // the runtime's drain fires only near empty
    h.request(2);
    await nextTurn();
    expect(h.started).toEqual([1, 2]);
  });

  it('past maxWaiting waiting requests, a new heavy one is answered at once with the error, and nothing is queued', async () => {
    const h = harness({ maxHeavyRunning: 2, maxWaiting: 3 });
    for (const id of [1, 2, 3, 4, 5, 6, 7]) h.request(id);
    await nextTurn();
    expect(h.replies()).toEqual([
      { id: 6, ok: false, error: 'too many requests in flight (3 waiting behind 2 running); read the replies before sending more' },
      { id: 7, ok: false, error: 'too many requests in flight (3 waiting behind 2 running); read the replies before sending more' },
    ]);
    h.request(8, 'quick'); // light requests are not refused
    await nextTurn();
    expect(h.replies().at(-1)).toEqual({ id: 8, ok: true, result: 'quick' });
    for (const id of [1, 2, 3, 4, 5]) await h.release(id);
    expect(h.started).toEqual([1, 2, 3, 4, 5]); // 6 and 7 were refused, never run
    h.request(9); // room again
    await nextTurn();
    expect(h.started).toEqual([1, 2, 3, 4, 5, 9]);
  });

  it('past maxWaitingBytes of waiting frames, a new heavy one is refused; one request may always wait', async () => {
    const h = harness({ maxHeavyRunning: 1, maxWaitingBytes: 3 * 1024 * 1024 });
    h.request(1);
    h.request(2, 'hold', 'x'.repeat(4 * 1024 * 1024)); // alone in the waiting room: larger than the bound, it waits
    h.request(3, 'hold', 'small');
    await nextTurn();
    expect(h.replies()).toEqual([
      { id: 3, ok: false, error: 'too many requests in flight (more than 3 MiB of requests waiting); read the replies before sending more' },
    ]);
    await h.release(1);
    expect(h.started).toEqual([1, 2]);
    h.request(4, 'hold', 'small'); // #2 no longer waits: its bytes left the room
    await h.release(2);
    expect(h.started).toEqual([1, 2, 4]);
  });

  it('when the socket closes, waiting commands are dropped, never started, and nothing more is sent', async () => {
    const h = harness({ maxHeavyRunning: 1 });
    h.request(1);
    h.request(2);
    h.request(3);
    await nextTurn();
    h.socket.peerClosed();
    await h.release(1);
    h.request(4); // a frame that raced the close
    await nextTurn();
    expect(h.started).toEqual([1]);
    expect(h.socket.sent).toEqual([]);
  });
});

describe('the command table', () => {
  it('marks exactly the quick, small-reply commands light; everything else is heavy', () => {
    const lightRows = [...rpcCommands].filter(([, command]) => command.weight === 'light').map(([name]) => name);
    const heavyRows = [...rpcCommands].filter(([, command]) => command.weight !== 'light').map(([name]) => name);
    expect(lightRows.sort()).toEqual(
      ['create_directory', 'create_file', 'delete_entry', 'file_exists', 'get_cwd', 'pty_attach', 'pty_detach', 'pty_kill', 'pty_resize', 'pty_spawn', 'pty_write', 'rename_entry',
        // a chat answers at once: its output is events, flow-controlled on their own
        'chat_stream', 'chat_cancel'].sort(),
    );
    expect(heavyRows.sort()).toEqual(
      ['copy_entry', 'download_file', 'extract_zip', 'list_files', 'read_directory', 'read_file', 'read_file_base64', 'run_command', 'search_in_files', 'upload_file', 'write_file',
        // git runs a process, often several: heavy, whatever the answer's size
        'get_git_status', 'get_git_diff', 'get_git_staged_diff', 'get_git_head_file', 'git_show_index', 'git_add',
        'git_stage_all', 'git_unstage', 'git_unstage_all', 'git_discard', 'git_discard_all', 'git_commit',
        'git_undo_commit', 'git_log', 'git_commit_diff', 'git_stash_list', 'git_stash', 'git_stash_pop', 'git_push',
        'git_fetch', 'git_pull', 'git_revert', 'git_init', 'git_branch_list', 'git_checkout_branch', 'git_merge',
        'git_merge_abort', 'git_resolve_conflict',
        // probes run the agent's CLI; the model lists ask a remote service
        'chat_check_install', 'chat_models'].sort(),
    );
    expect([...LIGHT_COMMANDS].filter((name) => !rpcCommands.has(name))).toEqual([]); // no typo in the light list
  });
});

describe('the /ws scheduler over a real socket', () => {
  let workspace: TempWorkspace;
  let server: NodeServer;

  beforeAll(async () => {
    workspace = await tempWorkspace({ 'a.txt': 'a\n' });
    server = await startTestServer(workspace.root);
  });

  afterAll(async () => {
    await server.close();
    await workspace.cleanup();
  });

  /** A run_command that announces its start (`started-TAG` holds its pid), then waits for `go-TAG`. */
  function blocker(tag: string): string {
    return `echo $$ > started-${tag}; while [ ! -f go-${tag} ]; do sleep 0.02; done; echo ${tag}`;
  }
  const startedPid = (tag: string) => readFile(join(workspace.root, `started-${tag}`), 'utf8').then(Number, () => undefined);
  const hasStarted = (tag: string) => existsSync(join(workspace.root, `started-${tag}`));
  const go = (tag: string) => writeFile(join(workspace.root, `go-${tag}`), '');

  it('four run_commands at once; the fifth starts when one ends; get_cwd and file_exists answer meanwhile', async () => {
    const client = await RpcClient.connect(server);
    try {
      const tags = ['c1', 'c2', 'c3', 'c4', 'c5', 'c6'];
      const replies = tags.map((tag) => client.call('run_command', { command: blocker(tag) }));
      await waitFor(() => tags.slice(0, 4).every(hasStarted), { what: 'four commands started' });
      expect(await client.call('get_cwd')).toMatchObject({ ok: true, result: workspace.root });
      expect(await client.call('file_exists', { path: join(workspace.root, 'started-c5') })).toMatchObject({ ok: true, result: false });
      await go('c2');
      expect(await replies[1]).toEqual({ id: expect.any(Number), ok: true, result: 'c2\n' });
      await waitFor(() => hasStarted('c5'), { what: 'c5 started in the freed slot' });
      expect(hasStarted('c6')).toBe(false); // four run again (c1, c3, c4, c5): c6 still waits
      await Promise.all(tags.map(go));
      expect(await Promise.all(replies)).toEqual(tags.map((tag) => ({ id: expect.any(Number), ok: true, result: `${tag}\n` })));
    } finally {
      await client.close();
    }
  });

  it('the 257th waiting request is refused with the exact error; the 256 that wait all run later', async () => {
    const client = await RpcClient.connect(server);
    try {
      const tags = ['q1', 'q2', 'q3', 'q4'];
      const blockers = tags.map((tag) => client.call('run_command', { command: blocker(tag) }));
      await waitFor(() => tags.every(hasStarted), { what: 'four commands started' });
      const waiting = Array.from({ length: defaultRpcSchedule.maxWaiting }, () => client.call('read_directory', { path: workspace.root }));
      const refused = await client.call('read_directory', { path: workspace.root });
      expect(refused).toEqual({
        id: expect.any(Number),
        ok: false,
        error: 'too many requests in flight (256 waiting behind 4 running); read the replies before sending more',
      });
      await Promise.all(tags.map(go));
      expect(await Promise.all(blockers)).toEqual(tags.map((tag) => ({ id: expect.any(Number), ok: true, result: `${tag}\n` })));
      const listed = await Promise.all(waiting);
      expect(listed.every((reply) => reply.ok)).toBe(true);
      expect(listed).toHaveLength(256);
    } finally {
      await client.close();
    }
  });

  it('closing the socket kills the running commands and never starts the waiting ones', async () => {
    const client = await RpcClient.connect(server);
    const tags = ['x1', 'x2', 'x3', 'x4', 'x5', 'x6'];
    for (const tag of tags) void client.call('run_command', { command: blocker(tag) }).catch(() => {});
    const pids = await waitFor(async () => {
      const found = await Promise.all(tags.slice(0, 4).map(startedPid));
      return found.every((pid) => pid !== undefined && pid > 0) && (found as number[]);
    });
    await client.close();
    await waitFor(() => pids.every((pid) => !isRunning(pid)), { what: 'the running commands killed' });
    // Their slots are free now: a waiting command that had not been dropped would start at once.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect([hasStarted('x5'), hasStarted('x6')]).toEqual([false, false]);
  });

  it('a reader that stalls and reads again gets every reply: held heavy commands resume on the drain', async () => {
    const size = 5 * 1024 * 1024;
    await writeFile(join(workspace.root, 'big.bin'), Buffer.alloc(size, 7));
    const ws = new WsClient(`${server.url.replace(/^http/, 'ws')}/ws?token=${TEST_TOKEN}`);
    await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
    try {
      const raw = (ws as unknown as { _socket: { pause(): void; resume(): void } })._socket;
      raw.pause();
      const replies = new Map<number, { ok: boolean; result: string }>();
      ws.on('message', (data) => {
        const frame = JSON.parse(String(data)) as { id: number; ok: boolean; result: string };
        replies.set(frame.id, frame);
      });
      const count = 8; // 8 × 6.7 MiB of base64: far past the 16 MiB mark once four replies are queued
      for (let id = 1; id <= count; id++) ws.send(JSON.stringify({ id, command: 'read_file_base64', args: { path: join(workspace.root, 'big.bin') } }));
      await new Promise((resolve) => setTimeout(resolve, 300));
      raw.resume();
      await waitFor(() => replies.size === count, { timeoutMs: 15_000, what: `${count} replies` });
      const expected = Buffer.alloc(size, 7).toString('base64');
      for (let id = 1; id <= count; id++) expect(replies.get(id)).toEqual({ id, ok: true, result: expected });
    } finally {
      ws.terminate();
    }
  });
});

describe('/ws replies a client never reads', () => {
  it('echo at most 128 characters of client text in an error', () => {
    const socket = new FakeSocket();
    runRpcConnection(socket, {} as WorkspaceContext, new Map());
    const name = 'x'.repeat(10_000);
    socket.receiveText(JSON.stringify({ id: 1, command: name }));
    expect(socket.sent).toEqual([JSON.stringify({ id: 1, ok: false, error: `unknown command: ${'x'.repeat(128)}…` })]);
  });

  it('close the socket with 1008 once 512 MiB of them wait unread, whatever each costs', () => {
    const socket = new FakeSocket();
    runRpcConnection(socket, {} as WorkspaceContext, new Map());
    socket.bufferedAmount = 512 * 1024 * 1024; // at the mark: still open
    socket.receiveText(JSON.stringify({ id: 1, command: 'nope' }));
    expect(socket.closes).toEqual([]);
    socket.bufferedAmount += 1;
    socket.receiveText(JSON.stringify({ id: 2, command: 'nope' }));
    expect(socket.closes).toEqual([{ code: 1008, reason: 'the client does not read its replies' }]);
  });
});
