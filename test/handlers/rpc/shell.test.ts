import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { MemoryFileSystem } from '../../../adapters/fs/memory-file-system.ts';
import { NodeFileSystem } from '../../../adapters/fs/node-file-system.ts';
import { createWorkspaceApp, type WorkspaceAppOptions } from '../../../runtime/app.ts';
import type { NodeServer } from '../../../runtime/node/server.ts';
import type { ServerSocket } from '../../../runtime/websocket.ts';
import { isRunning, processesInSession, waitFor } from '../../support/processes.ts';
import { RpcClient, startTestServer, type Reply } from '../../support/rpc-client.ts';
import { request, tempWorkspace, TEST_TOKEN, type TempWorkspace } from '../../support/workspace.ts';

const MARK = '\n[output truncated]';

describe('/ws run_command and get_cwd', () => {
  let workspace: TempWorkspace;
  let server: NodeServer;
  let client: RpcClient;

  beforeAll(async () => {
    workspace = await tempWorkspace({ 'hello.txt': 'hello\n' });
    server = await startTestServer(workspace.root);
    client = await RpcClient.connect(server);
  });

  afterAll(async () => {
    await client.close();
    await server.close();
    await workspace.cleanup();
  });

  afterEach(() => {
    vi.unstubAllEnvs();
  });

  /** The pid a command wrote to `name` in the root (commands announce themselves so tests can find them). */
  function pidFile(root: string, name: string): Promise<number> {
    return waitFor(
      async () => {
        const content = await readFile(join(root, name), 'utf8').catch(() => '');
        return content.endsWith('\n') ? Number(content) : undefined;
      },
      { what: `pid in ${name}` },
    );
  }

  it('get_cwd answers the workspace root', async () => {
    expect(await client.call('get_cwd')).toEqual({ id: expect.any(Number), ok: true, result: workspace.root });
    expect(await client.call('get_cwd', { path: '/elsewhere' })).toMatchObject({ ok: true, result: workspace.root });
  });

  it('runs the command in the root and answers the combined output in the order written, whatever the exit code', async () => {
    const reply = await client.call('run_command', { command: 'pwd; cat hello.txt; echo oops >&2; echo after; exit 3' });
    expect(reply).toEqual({ id: reply.id, ok: true, result: `${workspace.root}\nhello\noops\nafter\n` });
    expect(await client.call('run_command', { command: 'true' })).toMatchObject({ ok: true, result: '' });
  });

  it('decodes the output as lossy UTF-8: a bad byte becomes U+FFFD, good characters stay', async () => {
    const reply = await client.call('run_command', { command: "printf 'a\\377b \\342\\202\\254'" });
    expect(reply).toEqual({ id: reply.id, ok: true, result: 'a\uFFFDb €' });
  });

  it('gives the command no input (stdin is /dev/null) and drops the daemon’s terminal variables from its env', async () => {
    vi.stubEnv('TMUX', '/tmp/tmux-0/default');
    vi.stubEnv('COLUMNS', '132');
    vi.stubEnv('WSAPI_INHERITED', 'yes');
    const reply = await client.call('run_command', { command: 'cat; echo "$WSAPI_INHERITED ${TMUX-none} ${COLUMNS-none}"' });
    expect(reply).toEqual({ id: reply.id, ok: true, result: 'yes none none\n' });
  });

  it('answers at the shell’s exit; a background child holding the output open is killed then, not waited for', async () => {
    const reply = await client.call('run_command', { command: 'sleep 100 & echo $!' });
    const pid = Number(reply.result);
    expect(reply).toEqual({ id: reply.id, ok: true, result: `${pid}\n` });
    expect(isRunning(pid)).toBe(false);
  });

  it('a slow command does not hold up other calls on the same socket', async () => {
    const slow = client.call('run_command', { command: 'sleep 1; echo slow' });
    const fast = await client.call('get_cwd');
    expect(fast).toMatchObject({ ok: true, result: workspace.root });
    let slowDone = false;
    void slow.then(() => (slowDone = true));
    expect(slowDone).toBe(false);
    expect(await slow).toMatchObject({ ok: true, result: 'slow\n' });
  });

  it('refuses a missing or mistyped command', async () => {
    expect(await client.call('run_command', {})).toEqual({ id: expect.any(Number), ok: false, error: "invalid arg 'command': missing" });
    expect(await client.call('run_command')).toMatchObject({ ok: false, error: "invalid arg 'command': missing" });
    expect(await client.call('run_command', { command: 42 })).toMatchObject({
      ok: false,
      error: "invalid arg 'command': expected string, got number",
    });
    expect(await client.call('run_command', { command: ['ls'] })).toMatchObject({
      ok: false,
      error: "invalid arg 'command': expected string, got array",
    });
    expect(await client.call('run_command', { command: null })).toMatchObject({
      ok: false,
      error: "invalid arg 'command': expected string, got null",
    });
  });

  it('a client that hangs up mid-command kills it', async () => {
    const leaving = await RpcClient.connect(server);
    void leaving.call('run_command', { command: 'echo $$ > hangup.pid; sleep 100 & sleep 100' }).catch(() => {});
    const sid = await pidFile(workspace.root, 'hangup.pid');
    await waitFor(() => processesInSession(sid, 'sleep').filter(isRunning).length === 2, { what: 'both sleeps to start' });
    await leaving.close();
    await waitFor(() => !isRunning(sid) && processesInSession(sid, 'sleep').filter(isRunning).length === 0, {
      what: 'the command and its children to die',
    });
  });
});

describe('/ws run_command limits', () => {
  let workspace: TempWorkspace;

  beforeAll(async () => {
    workspace = await tempWorkspace();
  });

  afterAll(async () => {
    await workspace.cleanup();
  });

  function withServer(limits: WorkspaceAppOptions['limits'], body: (client: RpcClient) => Promise<void>) {
    return withServerAt(workspace.root, body, limits);
  }

  async function withServerAt(root: string, body: (client: RpcClient) => Promise<void>, limits: WorkspaceAppOptions['limits'] = {}) {
    const server = await startTestServer(root, { limits });
    const client = await RpcClient.connect(server);
    try {
      await body(client);
    } finally {
      await client.close();
      await server.close();
    }
  }

  it('past the deadline fails with "Command timed out after N s" and leaves no process behind', async () => {
    await withServer({ commandTimeoutMs: 300 }, async (client) => {
      const reply = await client.call('run_command', { command: 'echo $$ > timeout.pid; echo started; sleep 100 & sleep 100' });
      expect(reply).toEqual({ id: reply.id, ok: false, error: 'Command timed out after 0.3 s' });
      const sid = Number(await readFile(join(workspace.root, 'timeout.pid'), 'utf8'));
      expect(isRunning(sid)).toBe(false);
      expect(processesInSession(sid, 'sleep').filter(isRunning)).toEqual([]);
    });
    await withServer({ commandTimeoutMs: 1000 }, async (client) => {
      expect(await client.call('run_command', { command: 'sleep 100' })).toMatchObject({ ok: false, error: 'Command timed out after 1 s' });
    });
  });

  it('output past the cap is cut there and ends with the truncation mark; the command is killed', async () => {
    await withServer({ commandOutputCap: 10 }, async (client) => {
      expect(await client.call('run_command', { command: "printf '0123456789'" })).toMatchObject({ ok: true, result: '0123456789' });
      expect(await client.call('run_command', { command: "printf '0123456789A'" })).toMatchObject({ ok: true, result: `0123456789${MARK}` });

      const reply = await client.call('run_command', { command: 'echo $$ > yes.pid; exec yes' });
      expect(reply).toEqual({ id: reply.id, ok: true, result: `y\ny\ny\ny\ny\n${MARK}` });
      expect(isRunning(Number(await readFile(join(workspace.root, 'yes.pid'), 'utf8')))).toBe(false);
    });
  });

  it('a cut through a multi-byte character drops the character instead of inventing U+FFFD', async () => {
    await withServer({ commandOutputCap: 4 }, async (client) => {
      // "ab€" is five bytes: the cap falls inside the euro sign.
      expect(await client.call('run_command', { command: "printf 'ab\\342\\202\\254'" })).toMatchObject({ ok: true, result: `ab${MARK}` });
    });
  });

  it('a huge burst keeps exactly the default 16 MiB', async () => {
    await withServer({}, async (client) => {
      const reply = await client.call('run_command', { command: "head -c 100000000 /dev/zero | tr '\\0' x" }, { timeoutMs: 20_000 });
      expect(reply.ok).toBe(true);
      expect(reply.result).toBe('x'.repeat(16 * 1024 * 1024) + MARK);
    });
  });

  it('a command that cannot start (the root is gone) fails with a clear error', async () => {
    const doomed = await tempWorkspace();
    await withServerAt(doomed.root, async (client) => {
      expect(await client.call('get_cwd')).toMatchObject({ ok: true, result: doomed.root });
      await doomed.cleanup();
      expect(await client.call('run_command', { command: 'true' })).toMatchObject({
        ok: false,
        error: `Failed to run command: cannot run a command in ${doomed.root}: spawn /bin/sh ENOENT`,
      });
    });
  });

  it('shutting the server down kills running commands', async () => {
    const server = await startTestServer(workspace.root);
    const client = await RpcClient.connect(server);
    void client.call('run_command', { command: "trap '' TERM; echo $$ > shutdown.pid; sleep 100" }).catch(() => {});
    const sid = await waitFor(async () => {
      const content = await readFile(join(workspace.root, 'shutdown.pid'), 'utf8').catch(() => '');
      return content.endsWith('\n') ? Number(content) : undefined;
    });
    await server.close();
    expect(isRunning(sid)).toBe(false);
    expect(processesInSession(sid, 'sleep').filter(isRunning)).toEqual([]);
    await client.closed;
  });
});

/**
 * The app mounted by a host that can upgrade but has no process adapter (a third-party fetch server, or a
 * Workers-like runtime): the commands answer over a socket fed in process.
 */
describe('/ws shell commands without a process adapter', () => {
  async function connect(options: Partial<WorkspaceAppOptions> & Pick<WorkspaceAppOptions, 'fs' | 'root'>) {
    const app = createWorkspaceApp({ auth: { token: TEST_TOKEN }, ...options });
    const sent: Reply[] = [];
    let deliver: ((data: string, isBinary: boolean) => void) | undefined;
    const socket: ServerSocket = {
      send: (data) => sent.push(JSON.parse(data as string) as Reply),
      bufferedAmount: 0,
      onDrain() {},
      close() {},
      onMessage: (listener) => (deliver = listener),
      onClose() {},
    };
    const opened = await app.fetch(request('/ws', { headers: { upgrade: 'websocket' } }), {
      upgrade: (onOpen) => {
        onOpen(socket);
        return new Response(null, { status: 200 });
      },
    });
    return {
      app,
      opened,
      async call(id: number, command: string, args?: unknown): Promise<Reply> {
        deliver!(JSON.stringify({ id, command, args }), false);
        return waitFor(() => sent.find((reply) => reply.id === id), { what: `reply ${id}` });
      },
    };
  }

  it('run_command says it is not available on this runtime; get_cwd still answers the root (memory backend)', async () => {
    const rpc = await connect({ fs: new MemoryFileSystem(), root: '/ws' });
    expect(rpc.opened.status).toBe(200);
    expect(await rpc.call(1, 'run_command', { command: 'echo hi' })).toEqual({
      id: 1,
      ok: false,
      error: 'run_command is not available on this runtime',
    });
    expect(await rpc.call(2, 'get_cwd')).toEqual({ id: 2, ok: true, result: '/ws' });
    await rpc.app.close();
  });

  it('the same on the Node disk without a process adapter', async () => {
    const disk = await tempWorkspace();
    try {
      const rpc = await connect({ fs: new NodeFileSystem(), root: disk.root });
      expect(await rpc.call(1, 'run_command', { command: 'touch ran' })).toMatchObject({ ok: false, error: 'run_command is not available on this runtime' });
      await expect(readFile(join(disk.root, 'ran'))).rejects.toMatchObject({ code: 'ENOENT' });
      expect(await rpc.call(2, 'get_cwd')).toEqual({ id: 2, ok: true, result: disk.root });
      await rpc.app.close();
    } finally {
      await disk.cleanup();
    }
  });
});
