/**
 * `/terminals/{name}` in-process with a fake pty and a fake socket: the frames exactly, and the flow-control
 * outcomes a socket sees (a stalled client of a named terminal is closed with 1013 while the program runs
 * on). The real-socket tests are in socket.test.ts.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { WorkspaceApp } from '../../../runtime/app.ts';
import type { Limits } from '../../../runtime/context.ts';
import type { SocketOpenHandler } from '../../../runtime/websocket.ts';
import { waitFor } from '../../support/processes.ts';
import { FakePtyAdapter, FakeSocket, bytesOf, nextTurn } from '../../support/terminals.ts';
import { nodeApp, request, tempWorkspace, type TempWorkspace } from '../../support/workspace.ts';

const UPGRADE_HEADERS = { upgrade: 'websocket', connection: 'Upgrade', 'sec-websocket-version': '13', 'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==' };

describe('the /terminals/{name} socket (fake pty, fake socket)', () => {
  let workspace: TempWorkspace;
  let ptys: FakePtyAdapter;
  let app: WorkspaceApp;

  beforeEach(async () => {
    workspace = await tempWorkspace();
  });

  afterEach(async () => {
    await app.close();
    await workspace.cleanup();
  });

  async function setup(limits: Partial<Limits> = {}) {
    ptys = new FakePtyAdapter(true);
    app = nodeApp(workspace.root, { pty: ptys, limits });
    const response = await app.fetch(request('/terminals', { method: 'POST', body: JSON.stringify({ name: 'x' }) }));
    expect(response.status).toBe(201);
    return ptys.last;
  }

  /** Upgrades `/terminals/x?…` and returns the open handler, not yet called (the handshake is pending). */
  async function upgrade(query = '') {
    let onOpen: SocketOpenHandler | undefined;
    let maxMessageBytes: number | undefined;
    const response = await app.fetch(request(`/terminals/x${query}`, { headers: UPGRADE_HEADERS }), {
      upgrade: (handler, options) => {
        onOpen = handler;
        maxMessageBytes = options?.maxMessageBytes;
        return new Response(null, { status: 200 });
      },
    });
    expect(response.status).toBe(200);
    return { open: onOpen!, maxMessageBytes };
  }

  async function connect(query = '', socket = new FakeSocket()) {
    const { open } = await upgrade(query);
    open(socket);
    await nextTurn();
    return socket;
  }

  it('asks the runtime for the 1 MiB terminal message cap', async () => {
    await setup();
    expect((await upgrade()).maxMessageBytes).toBe(1024 * 1024);
  });

  it('sends `attached` first, then the replay and live output as binary frames, then `exit` and close 1000', async () => {
    const pty = await setup({ terminalRingBytes: 8 });
    pty.emitData('0123456789'); // the ring keeps 23456789 (2..10)
    const socket = await connect('?from=1');
    pty.emitData('ab');
    pty.emitExit(4);
    expect(socket.sent).toEqual([
      JSON.stringify({ type: 'attached', from: 2, end: 10, truncated: true }),
      bytesOf('23456789'),
      bytesOf('ab'),
      JSON.stringify({ type: 'exit', code: 4 }),
    ]);
    expect(socket.closes).toEqual([{ code: 1000, reason: undefined }]);
  });

  it('writes input frames and applies resize frames; an exited terminal ignores them', async () => {
    const pty = await setup();
    const socket = await connect();
    socket.receiveText('{"type":"input","data":"ls\\r"}');
    socket.receiveText('{"type":"resize","cols":100,"rows":30}');
    socket.receiveText('{"type":"resize","cols":0,"rows":30}');
    pty.emitExit(0);
    socket.receiveText('{"type":"input","data":"late"}');
    expect(pty.writes).toEqual(['ls\r']);
    expect(pty.resizes).toEqual([[100, 30]]);
  });

  it('closing the socket detaches: the named terminal runs on and can be attached again from where it left', async () => {
    const pty = await setup();
    const socket = await connect();
    pty.emitData('one');
    socket.peerClosed(1001);
    pty.emitData('two');
    expect(pty.kills).toBe(0);
    const again = await connect('?from=3');
    expect(again.sent).toEqual([JSON.stringify({ type: 'attached', from: 3, end: 6, truncated: false }), bytesOf('two')]);
  });

  it('DELETE while attached: the client gets the exit (null: killed) and close 1000', async () => {
    await setup();
    const socket = await connect();
    const response = await app.fetch(request('/terminals/x', { method: 'DELETE' }));
    expect(await response.json()).toEqual({ ok: true });
    expect(socket.texts()).toEqual([
      { type: 'attached', from: 0, end: 0, truncated: false },
      { type: 'exit', code: null },
    ]);
    expect(socket.closes).toEqual([{ code: 1000, reason: undefined }]);
  });

  it('a terminal removed (or replaced) between the answer and the handshake: close 1011', async () => {
    await setup();
    const pending = await upgrade();
    await app.fetch(request('/terminals/x', { method: 'DELETE' }));
    const socket = new FakeSocket();
    pending.open(socket);
    expect(socket.closes).toEqual([{ code: 1011, reason: 'terminal x is gone' }]);

    await app.fetch(request('/terminals', { method: 'POST', body: JSON.stringify({ name: 'x' }) }));
    const replacedPending = await upgrade();
    await app.fetch(request('/terminals/x', { method: 'DELETE' }));
    await app.fetch(request('/terminals', { method: 'POST', body: JSON.stringify({ name: 'x' }) })); // same name, new session
    const late = new FakeSocket();
    replacedPending.open(late);
    expect(late.closes).toEqual([{ code: 1011, reason: 'terminal x is gone' }]);
    expect(late.sent).toEqual([]);
  });

  describe('flow control as the socket sees it', () => {
    const RING = 1024;
    const STALL_MS = 30;

    it('a socket that stops reading is closed with 1013 after stallMs; the program runs on, and the socket may reattach with from', async () => {
      const pty = await setup({ terminalRingBytes: RING, terminalStallMs: STALL_MS });
      const socket = await connect('', new FakeSocket(true)); // its peer reads nothing
      socket.bufferedAmount = 1024 * 1024; // and its queue is full
      pty.emitData(new Uint8Array(RING / 2 + 1).fill(0x61));
      expect(pty.paused).toBe(true);
      const stalledAt = Date.now();
      await waitFor(() => socket.closes.length > 0, { what: 'the drop' });
      expect(Date.now() - stalledAt).toBeGreaterThanOrEqual(STALL_MS - 5);
      expect(socket.closes).toEqual([{ code: 1013, reason: `terminal x: client too slow (no progress for ${STALL_MS} ms)` }]);
      expect(pty.paused).toBe(false);
      expect(pty.kills).toBe(0);
      const listed = (await (await app.fetch(request('/terminals'))).json()) as { terminals: { running: boolean; end: number }[] };
      expect(listed.terminals.map((info) => [info.running, info.end])).toEqual([[true, RING / 2 + 1]]);
      // The peer learns from the close; a new socket picks up where it stopped (nothing was sent to the old one).
      socket.peerClosed(1013);
      const again = await connect('?from=0');
      expect(again.output()).toEqual(new Uint8Array(RING / 2 + 1).fill(0x61));
    });

    it('a socket that drains in time is kept', async () => {
      const pty = await setup({ terminalRingBytes: RING, terminalStallMs: STALL_MS });
      const socket = await connect('', new FakeSocket(true));
      socket.bufferedAmount = 1024 * 1024;
      pty.emitData(new Uint8Array(RING).fill(0x62));
      expect(pty.paused).toBe(true);
      socket.drained();
      expect(pty.paused).toBe(false);
      await new Promise((resolve) => setTimeout(resolve, STALL_MS * 3));
      expect(socket.closes).toEqual([]);
      expect(socket.output()).toEqual(new Uint8Array(RING).fill(0x62));
    });
  });
});
