/**
 * `/terminals/{name}?from=N` over a real server and real ptys (docs/terminals.md#the-terminal-socket): the `attached` frame,
 * replay from any offset, exactly-once delivery across a reconnect, input and resize, the `exit` frame and
 * close 1000, refusals before the upgrade, and the 1 MiB message cap (1009) shared with ori's /ws/terminal.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { fetch } from 'undici';
import type { Session } from '../../../core/terminals/terminal-session.ts';
import type { NodeServer } from '../../../runtime/node/server.ts';
import type { Limits } from '../../../runtime/context.ts';
import { isRunning, waitFor, usePlainShell } from '../../support/processes.ts';
import { startTestServer } from '../../support/rpc-client.ts';
import { TerminalSocketClient, rawUpgrade } from '../../support/terminals.ts';
import { TEST_TOKEN, tempWorkspace, type TempWorkspace } from '../../support/workspace.ts';

/** `seq a b` as a pty shows it (onlcr: CR LF). */
const seqOutput = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => `${from + i}\r\n`).join('');
/**
 * Node-pty on Linux can lose the last KiB a program writes when it exits before they are read
 * (microsoft/node-pty#726); programs here wait on `read` and are told to finish once their output is in.
 */
const HOLD_OPEN = 'read _hold';

describe('WebSocket /terminals/{name} (real server)', () => {
  let workspace: TempWorkspace;
  let servers: NodeServer[];
  let clients: TerminalSocketClient[];

  usePlainShell();

  beforeEach(async () => {
    workspace = await tempWorkspace({ 'hello.txt': 'hi\n' });
    servers = [];
    clients = [];
  });

  afterEach(async () => {
    await Promise.all(clients.map((client) => client.close()));
    await Promise.all(servers.map((server) => server.close()));
    await workspace.cleanup();
  });

  async function serve(limits: Partial<Limits> = {}): Promise<NodeServer> {
    const server = await startTestServer(workspace.root, { limits });
    servers.push(server);
    return server;
  }

  async function create(server: NodeServer, body: Record<string, unknown>): Promise<Session> {
    const response = await fetch(`${server.url}/terminals`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TEST_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    expect(response.status).toBe(201);
    return server.terminals!.get(body.name as string) as Session;
  }

  async function attach(server: NodeServer, path: string): Promise<TerminalSocketClient> {
    const client = await TerminalSocketClient.open(server.url, path);
    clients.push(client);
    return client;
  }

  /**
   * A session that ran `command` and exited 0, held open until its output ended with `last`; the newline that
   * lets it finish is echoed, so its output ends with one more CR LF.
   */
  async function finished(server: NodeServer, name: string, command: string, last: string): Promise<Session> {
    const session = await create(server, { name, command: `${command}; ${HOLD_OPEN}` });
    await waitFor(() => session.text().endsWith(last), { timeoutMs: 10_000, what: `${name}'s output` });
    session.write('\n');
    await session.exited;
    return session;
  }

  it('attached first, then binary output; input and resize frames reach the pty; exit frame, then close 1000', async () => {
    const server = await serve();
    const session = await create(server, { name: 'sh', cols: 100, rows: 30 });
    const client = await attach(server, '/terminals/sh');
    client.input('stty size\n');
    await client.waitForText(/30 100\r\n/);
    client.resize(120, 40);
    client.input('stty size\n');
    await client.waitForText(/40 120\r\n/);
    client.input('exit 7\n');
    expect(await client.closed).toEqual({ code: 1000, reason: '' });

    const [first, ...rest] = client.frames;
    expect(first).toEqual({ type: 'text', json: { type: 'attached', from: 0, end: (first as { json: { end: number } }).json.end, truncated: false } });
    expect(rest.at(-1)).toEqual({ type: 'text', json: { type: 'exit', code: 7 } });
    expect(rest.slice(0, -1).every((frame) => frame.type === 'binary')).toBe(true);
    expect(Buffer.compare(client.output(), session.ring.read())).toBe(0); // every byte of the ring, once
    expect(session.info()).toMatchObject({ running: false, exitCode: 7 });
  });

  it('ignores malformed text frames and binary frames', async () => {
    const server = await serve();
    await create(server, { name: 'sh' });
    const client = await attach(server, '/terminals/sh');
    for (const frame of ['nope', '{"type":"input"}', '{"type":"resize","cols":0,"rows":1}', '[]']) client.ws.send(frame);
    client.ws.send(new TextEncoder().encode('{"type":"input","data":"echo binary-$((1+1))\\n"}'));
    client.input('echo still-$((2+2))\n');
    await client.waitForText(/still-4\r\n/);
    expect(client.text()).not.toContain('binary-2');
  });

  describe('replay', () => {
    it('from=0, from=N in the middle, from=end of an exited session: exactly the bytes after `from`, then exit', async () => {
      const server = await serve();
      const expected = seqOutput(1, 20000) + '\r\n'; // the `read` gets a newline, echoed as CR LF
      const session = await finished(server, 'seq', 'seq 1 20000', '\n20000\r\n');
      const end = Buffer.byteLength(expected);
      expect(session.info()).toMatchObject({ start: 0, end, running: false, exitCode: 0 });
      for (const from of [0, 12_345, end]) {
        const client = await attach(server, `/terminals/seq?from=${from}`);
        expect(await client.closed).toEqual({ code: 1000, reason: '' });
        expect(client.texts()).toEqual([
          { type: 'attached', from, end, truncated: false },
          { type: 'exit', code: 0 },
        ]);
        expect(Buffer.from(client.output()).toString()).toBe(Buffer.from(expected).subarray(from).toString());
      }
    });

    it('without `from`: the ring start', async () => {
      const server = await serve();
      await finished(server, 'x', 'echo hello', 'hello\r\n');
      const client = await attach(server, '/terminals/x');
      await client.closed;
      expect(client.texts()[0]).toEqual({ type: 'attached', from: 0, end: 9, truncated: false });
      expect(client.text()).toBe('hello\r\n\r\n');
    });

    it('a `from` that fell out of the ring starts at the ring start and says truncated', async () => {
      const server = await serve({ terminalRingBytes: 4096 });
      const session = await finished(server, 'seq', 'seq 1 3000', '\n3000\r\n');
      // The ring keeps the last 4096 bytes of the output.
      const expected = Buffer.from(seqOutput(1, 3000) + '\r\n');
      expect(session.info()).toMatchObject({ start: expected.length - 4096, end: expected.length });
      const client = await attach(server, '/terminals/seq?from=10');
      await client.closed;
      expect(client.texts()).toEqual([
        { type: 'attached', from: expected.length - 4096, end: expected.length, truncated: true },
        { type: 'exit', code: 0 },
      ]);
      expect(Buffer.compare(client.output(), expected.subarray(-4096))).toBe(0);
    }, 20_000);

    it('a reconnecting client gets every byte exactly once: what it had, then from=N the rest, live until the exit', async () => {
      const server = await serve();
      const session = await create(server, { name: 'phases', command: `seq 1 10000; ${HOLD_OPEN}; seq 10001 20000; ${HOLD_OPEN}` });
      const first = await attach(server, '/terminals/phases');
      await first.waitForText(/\n10000\r\n/);
      const had = first.output(); // N = what it had when it decided to leave
      await first.close();
      session.write('\n'); // phase two runs with nobody attached
      await waitFor(() => session.text().endsWith('\n20000\r\n'), { timeoutMs: 10_000, what: 'phase two' });
      const second = await attach(server, `/terminals/phases?from=${had.length}`);
      await waitFor(() => second.text().endsWith('\n20000\r\n'), { timeoutMs: 10_000, what: 'the replay' });
      session.write('\n'); // live from here: the echo, then the exit
      expect(await second.closed).toEqual({ code: 1000, reason: '' });
      // It attached once phase two was complete and nothing else had been printed.
      const phaseTwoEnd = Buffer.byteLength(seqOutput(1, 10000) + '\r\n' + seqOutput(10001, 20000));
      expect(second.texts()).toEqual([
        { type: 'attached', from: had.length, end: phaseTwoEnd, truncated: false },
        { type: 'exit', code: 0 },
      ]);
      const all = Buffer.concat([had, second.output()]);
      expect(all.toString()).toBe(seqOutput(1, 10000) + '\r\n' + seqOutput(10001, 20000) + '\r\n');
      expect(Buffer.compare(all, session.ring.read())).toBe(0);
    }, 20_000);
  });

  it('two clients at once each get the whole output', async () => {
    const server = await serve();
    const session = await create(server, { name: 'two', command: `${HOLD_OPEN}; seq 1 5000; ${HOLD_OPEN}` });
    const a = await attach(server, '/terminals/two');
    const b = await attach(server, '/terminals/two');
    session.write('\n');
    await waitFor(() => a.text().endsWith('\n5000\r\n') && b.text().endsWith('\n5000\r\n'), { timeoutMs: 10_000, what: 'both clients' });
    session.write('\n');
    await Promise.all([a.closed, b.closed]);
    expect(Buffer.compare(a.output(), b.output())).toBe(0);
    expect(Buffer.compare(a.output(), session.ring.read())).toBe(0);
  });

  it('DELETE while a client is attached: it gets the exit (code null: killed) and close 1000', async () => {
    const server = await serve();
    await create(server, { name: 'doomed', command: 'sleep 1000' });
    const client = await attach(server, '/terminals/doomed');
    await waitFor(() => client.frames.length >= 1, { what: 'the attached frame' });
    const response = await fetch(`${server.url}/terminals/doomed`, { method: 'DELETE', headers: { authorization: `Bearer ${TEST_TOKEN}` } });
    expect(await response.json()).toEqual({ ok: true });
    expect(await client.closed).toEqual({ code: 1000, reason: '' });
    expect(client.texts()).toEqual([
      { type: 'attached', from: 0, end: 0, truncated: false },
      { type: 'exit', code: null },
    ]);
  });

  it('a client that leaves does not end a named terminal', async () => {
    const server = await serve();
    const session = await create(server, { name: 'stays', command: 'sleep 1000' });
    const client = await attach(server, '/terminals/stays');
    await client.close();
    await waitFor(() => session.clientCount === 0, { what: 'the detach' });
    expect(session.running).toBe(true);
    expect(isRunning(session.pid)).toBe(true);
  });

  describe('refused before the upgrade', () => {
    it('unknown name: 404 {error}', async () => {
      const server = await serve();
      const url = `${server.url.replace(/^http/, 'ws')}/terminals/nope?token=${TEST_TOKEN}`;
      expect(await rawUpgrade(url)).toEqual({ status: 404, body: JSON.stringify({ error: 'no terminal named nope' }) });
      await expect(TerminalSocketClient.open(server.url, '/terminals/nope')).rejects.toThrow(/failed to open/);
    });

    it('a bad or too large `from`: 400 {error}', async () => {
      const server = await serve();
      await create(server, { name: 'x', command: 'sleep 1000' });
      const url = (from: string) => `${server.url.replace(/^http/, 'ws')}/terminals/x?token=${TEST_TOKEN}&from=${from}`;
      expect(await rawUpgrade(url('abc'))).toEqual({ status: 400, body: JSON.stringify({ error: 'invalid query: from: from must be a byte offset (digits)' }) });
      expect(await rawUpgrade(url('1'))).toEqual({ status: 400, body: JSON.stringify({ error: 'from 1 is past the end of the output (0)' }) });
      expect(await rawUpgrade(url('0'))).toEqual({ status: 101, body: '' });
    });

    it('no token: 401', async () => {
      const server = await serve();
      await create(server, { name: 'x', command: 'sleep 1000' });
      const url = `${server.url.replace(/^http/, 'ws')}/terminals/x`;
      expect(await rawUpgrade(url)).toEqual({ status: 401, body: JSON.stringify({ error: 'missing or invalid token' }) });
    });
  });

  describe('the 1 MiB message cap (close 1009)', () => {
    const oversized = JSON.stringify({ type: 'input', data: 'x'.repeat(1024 * 1024) });

    it('on /terminals/{name}: the socket closes with 1009, the terminal runs on', async () => {
      const server = await serve();
      const session = await create(server, { name: 'capped', command: 'sleep 1000' });
      const client = await attach(server, '/terminals/capped');
      client.ws.send(oversized);
      expect((await client.closed).code).toBe(1009);
      expect(session.running).toBe(true);
      expect(session.info().end).toBe(0); // nothing of it reached the pty
    });

    it('on /ws/terminal: the socket closes with 1009 and its shell dies with it', async () => {
      const server = await serve();
      const client = await attach(server, '/ws/terminal');
      client.input('echo "pid=$$"\n');
      const [, pid] = await client.waitForText(/pid=(\d+)/);
      client.ws.send(oversized);
      expect((await client.closed).code).toBe(1009);
      await waitFor(() => !isRunning(Number(pid)), { what: 'the shell to die with its socket' });
    });

    it('a message of exactly 1 MiB is accepted', async () => {
      const server = await serve();
      await create(server, { name: 'big' });
      const client = await attach(server, '/terminals/big');
      // A resize frame padded with JSON whitespace to exactly 1 MiB.
      const head = '{"type":"resize","cols":90,"rows":20';
      client.ws.send(head + ' '.repeat(1024 * 1024 - head.length - 1) + '}');
      client.input('stty size\n');
      await client.waitForText(/20 90\r\n/);
      expect(client.ws.readyState).toBe(client.ws.OPEN);
    });
  });
});
