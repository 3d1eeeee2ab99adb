/**
 * The typed `/ws` client over a real socket to a real server: replies matched by id in whatever order they come,
 * error replies, events, a call made before the socket opened, and reconnecting after the daemon restarts.
 */
import { WebSocket } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { createRpcClient, RpcCallError, RpcDisconnectedError, type RpcClient, type RpcClientState, type WebSocketConstructor } from '../../client/rpc-client.ts';
import type { NodeServer } from '../../runtime/node/server.ts';
import { waitFor } from '../support/processes.ts';
import { startTestServer } from '../support/rpc-client.ts';
import { tempWorkspace, TEST_TOKEN, type TempWorkspace } from '../support/workspace.ts';

const closers: (() => unknown)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

async function setUp(): Promise<{ workspace: TempWorkspace; server: NodeServer; client: RpcClient }> {
  const workspace = await tempWorkspace({ 'a.txt': 'alpha\n' });
  closers.push(() => workspace.cleanup());
  const server = await startTestServer(workspace.root);
  closers.push(() => server.close());
  const client = createRpcClient({ baseUrl: server.url, token: TEST_TOKEN, WebSocket: WebSocket as unknown as WebSocketConstructor });
  closers.push(() => client.close());
  return { workspace, server, client };
}

describe('createRpcClient', () => {
  it('matches replies to calls by id, whatever order they come in; a call made before the socket opened waits for it', async () => {
    const { client, workspace } = await setUp();
    expect(client.state).toBe('connecting');
    const finished: string[] = [];
    // run_command is heavy and slow; file_exists is light and answers at once: its reply overtakes.
    const slow = client.call('run_command', { command: 'sleep 0.3; echo slow' }).then((output) => (finished.push('slow'), output));
    const quick = client.call('file_exists', { path: 'a.txt' }).then((exists) => (finished.push('quick'), exists));
    expect(await Promise.all([slow, quick])).toEqual(['slow\n', true]);
    expect(finished).toEqual(['quick', 'slow']);
    expect(client.state).toBe('open');
    expect(await client.call('get_cwd', {})).toBe(workspace.root);
  });

  it('rejects an error reply with the protocol text and the command', async () => {
    const { client } = await setUp();
    const error = await client.call('read_file', { path: 'missing.txt' }).catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(RpcCallError);
    expect(error).toMatchObject({ message: 'Path does not exist', command: 'read_file' });
  });

  it('delivers events to their listeners until unsubscribed', async () => {
    const { client } = await setUp();
    let text = '';
    const exits: (number | null)[] = [];
    client.on('pty-output', (payload) => {
      if (payload.session_id === 't1') text += payload.data;
    });
    const stop = client.on('pty-exit', (payload) => exits.push(payload.code));
    await client.call('pty_spawn', { sessionId: 't1', shell: '/bin/sh' });
    await client.call('pty_write', { sessionId: 't1', data: 'echo "ev-$((6*7))"; exit 3\n' });
    await waitFor(() => exits.length === 1, { what: 'the exit event' });
    expect(text).toContain('ev-42');
    expect(exits).toEqual([3]);
    stop();
    await client.call('pty_spawn', { sessionId: 't2', shell: '/bin/sh' });
    await client.call('pty_kill', { sessionId: 't2' });
    expect(exits).toEqual([3]);
  });

  it('after the daemon restarts on its port: pending calls fail as disconnected, then it reconnects and calls work', async () => {
    const workspace = await tempWorkspace({ 'a.txt': 'alpha\n' });
    closers.push(() => workspace.cleanup());
    let server = await startTestServer(workspace.root);
    const port = server.port;
    const client = createRpcClient({
      baseUrl: server.url,
      token: TEST_TOKEN,
      WebSocket: WebSocket as unknown as WebSocketConstructor,
      reconnect: { minDelayMs: 20, maxDelayMs: 200 },
    });
    closers.push(() => client.close());
    const states: RpcClientState[] = [];
    client.onState((state) => states.push(state));
    expect(await client.call('file_exists', { path: 'a.txt' })).toBe(true);
    const pending = client.call('run_command', { command: 'sleep 5' }).catch((thrown: unknown) => thrown);
    await server.close();
    expect(await pending).toBeInstanceOf(RpcDisconnectedError);
    server = await startTestServer(workspace.root, { port });
    closers.push(() => server.close());
    await waitFor(() => client.state === 'open', { timeoutMs: 10_000, what: 'the client to reconnect' });
    expect(await client.call('file_exists', { path: 'a.txt' })).toBe(true);
    expect(states[0]).toBe('open');
    expect(states.at(-1)).toBe('open');
    expect(states).toContain('connecting');
  });

  it('close() fails what is pending, refuses new calls and never reconnects', async () => {
    const { client } = await setUp();
    await client.call('get_cwd', {});
    const pending = client.call('run_command', { command: 'sleep 5' }).catch((thrown: unknown) => thrown);
    client.close();
    expect(await pending).toBeInstanceOf(RpcDisconnectedError);
    expect(client.state).toBe('closed');
    await expect(client.call('get_cwd', {})).rejects.toBeInstanceOf(RpcDisconnectedError);
  });

  it('a wrong token: the upgrade is refused, the call fails as disconnected; without reconnect the client is closed', async () => {
    const { server } = await setUp();
    const client = createRpcClient({ baseUrl: server.url, token: 'wrong', WebSocket: WebSocket as unknown as WebSocketConstructor, reconnect: false });
    closers.push(() => client.close());
    const call = client.call('get_cwd', {}).catch((thrown: unknown) => thrown);
    expect(await call).toBeInstanceOf(RpcDisconnectedError);
    expect(client.state).toBe('closed');
  });
});
