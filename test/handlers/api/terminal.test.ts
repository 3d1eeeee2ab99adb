import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CLIENT_HIGH_WATER_BYTES } from '../../../core/terminals/delivery.ts';
import { parseTerminalMessage } from '../../../handlers/terminals/terminal-socket.ts';
import type { SocketOpenHandler, Upgrader } from '../../../runtime/websocket.ts';
import { FakePtyAdapter, FakeSocket, concat, nextTurn } from '../../support/terminals.ts';
import { nodeApp, request, tempWorkspace, type TempWorkspace } from '../../support/workspace.ts';

const UPGRADE_HEADERS = { upgrade: 'websocket', connection: 'Upgrade', 'sec-websocket-version': '13', 'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==' };

describe('GET /ws/terminal (in-process)', () => {
  let workspace: TempWorkspace;

  beforeEach(async () => {
    workspace = await tempWorkspace();
  });

  afterEach(async () => {
    await workspace.cleanup();
  });

  it('answers 501 when the runtime has no pty adapter', async () => {
    const app = nodeApp(workspace.root);
    const response = await app.fetch(request('/ws/terminal', { headers: UPGRADE_HEADERS }), { upgrade: () => new Response(null) });
    expect(response.status).toBe(501);
    expect(await response.json()).toEqual({ error: 'terminals are not available on this runtime' });
  });

  it('requires the token before anything else (ori shape)', async () => {
    const app = nodeApp(workspace.root, { pty: new FakePtyAdapter() });
    const response = await app.fetch(request('/ws/terminal', { headers: { ...UPGRADE_HEADERS, authorization: 'Bearer wrong' } }));
    expect(response.status).toBe(401);
    expect(await response.json()).toEqual({ error: 'missing or invalid token' });
  });

  it('answers 426 to a plain GET', async () => {
    const ptys = new FakePtyAdapter();
    const app = nodeApp(workspace.root, { pty: ptys });
    const response = await app.fetch(request('/ws/terminal'));
    expect(response.status).toBe(426);
    expect(response.headers.get('upgrade')).toBe('websocket');
    expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(await response.json()).toEqual({ error: 'this endpoint needs a WebSocket upgrade' });
    expect(ptys.spawned).toHaveLength(0);
  });

  it('answers 426 to an upgrade request when the runtime passes no upgrader', async () => {
    const ptys = new FakePtyAdapter();
    const app = nodeApp(workspace.root, { pty: ptys });
    const response = await app.fetch(request('/ws/terminal', { headers: UPGRADE_HEADERS }));
    expect(response.status).toBe(426);
    expect(ptys.spawned).toHaveLength(0);
  });

  describe('an accepted upgrade', () => {
    /** A ring this small makes the flow-control thresholds (half and a quarter of it) easy to reach. */
    const RING_BYTES = 1024;
    /** Short, so that a named session's client would be dropped well within the tests' waits. */
    const STALL_MS = 20;

    async function open(ptys = new FakePtyAdapter()) {
      const app = nodeApp(workspace.root, { pty: ptys, limits: { terminalRingBytes: RING_BYTES, terminalStallMs: STALL_MS } });
      let onOpen: SocketOpenHandler | undefined;
      const marker = new Response(null, { status: 200 });
      const upgrade: Upgrader = (handler) => {
        onOpen = handler;
        return marker;
      };
      const response = await app.fetch(request('/ws/terminal', { headers: UPGRADE_HEADERS }), { upgrade });
      expect(response).toBe(marker);
      expect(ptys.spawned).toHaveLength(0); // nothing runs before the handshake completes
      const socket = new FakeSocket();
      onOpen!(socket);
      await nextTurn(); // the session starts delivering on a later turn
      return { app, ptys, socket, pty: ptys.spawned[0]?.pty };
    }

    it('spawns the default shell in the workspace root at 80x24, with COLORTERM=truecolor', async () => {
      const { ptys } = await open();
      expect(ptys.spawned).toHaveLength(1);
      expect(ptys.spawned[0]!.options).toEqual({ cwd: workspace.root, cols: 80, rows: 24, env: { COLORTERM: 'truecolor' }, maxChunkBytes: 4096 });
    });

    it('is an unnamed session: not listed under /terminals', async () => {
      const { app } = await open();
      const response = await app.fetch(request('/terminals'));
      expect(await response.json()).toEqual({ terminals: [] });
    });

    it('forwards pty output as binary frames, byte for byte', async () => {
      const { socket, pty } = await open();
      const bytes = new Uint8Array([0x1b, 0x5b, 0x41, 0xe2, 0x82]); // ends mid-character on purpose
      pty!.emitData(bytes);
      expect(socket.sent).toEqual([bytes]);
      expect(socket.sent[0]).toBeInstanceOf(Uint8Array);
    });

    it('sends output the shell printed before the delivery started, then live output, in order', async () => {
      const ptys = new FakePtyAdapter();
      const app = nodeApp(workspace.root, { pty: ptys });
      let onOpen: SocketOpenHandler | undefined;
      await app.fetch(request('/ws/terminal', { headers: UPGRADE_HEADERS }), {
        upgrade: (handler) => ((onOpen = handler), new Response(null, { status: 200 })),
      });
      const socket = new FakeSocket();
      onOpen!(socket);
      ptys.last.emitData('$ '); // the prompt, before the first turn
      expect(socket.sent).toEqual([]);
      await nextTurn();
      ptys.last.emitData('ls\r\n');
      expect(new TextDecoder().decode(socket.output())).toBe('$ ls\r\n');
      expect(socket.sent.every((frame) => frame instanceof Uint8Array)).toBe(true); // no announce frames on /ws/terminal
    });

    it('writes input frames to the pty and applies resize frames', async () => {
      const { socket, pty } = await open();
      socket.receiveText(JSON.stringify({ type: 'input', data: 'ls -la\r' }));
      socket.receiveText(JSON.stringify({ type: 'resize', cols: 120, rows: 40 }));
      expect(pty!.writes).toEqual(['ls -la\r']);
      expect(pty!.resizes).toEqual([[120, 40]]);
    });

    it('ignores malformed frames and binary frames', async () => {
      const { socket, pty } = await open();
      for (const frame of [
        'not json',
        '',
        'null',
        '"input"',
        '[]',
        '{"type":"nope"}',
        '{"type":"input"}',
        '{"type":"input","data":5}',
        '{"type":"resize","cols":0,"rows":10}',
        '{"type":"resize","cols":-1,"rows":10}',
        '{"type":"resize","cols":1.5,"rows":10}',
        '{"type":"resize","cols":"80","rows":24}',
        '{"type":"resize","cols":70000,"rows":24}',
        '{"type":"resize","cols":80}',
      ]) {
        socket.receiveText(frame);
      }
      socket.receiveBinary(new TextEncoder().encode(JSON.stringify({ type: 'input', data: 'rm -rf /\n' })));
      expect(pty!.writes).toEqual([]);
      expect(pty!.resizes).toEqual([]);
      expect(pty!.kills).toBe(0);
      expect(socket.closes).toEqual([]);
      socket.receiveText('{"type":"input","data":"still works\\n"}');
      expect(pty!.writes).toEqual(['still works\n']);
    });

    it('ignores input and resize frames once the shell has exited', async () => {
      const { socket, pty } = await open();
      pty!.emitExit(0);
      socket.receiveText('{"type":"input","data":"late\\n"}');
      socket.receiveText('{"type":"resize","cols":100,"rows":30}');
      expect(pty!.writes).toEqual([]);
      expect(pty!.resizes).toEqual([]);
    });

    it('closes the socket with 1000 when the shell exits, after its last output', async () => {
      const { socket, pty } = await open();
      pty!.emitData('bye\r\n');
      pty!.emitExit(0);
      expect(socket.sent).toEqual([new TextEncoder().encode('bye\r\n')]); // no exit text frame on /ws/terminal
      expect(socket.closes).toEqual([{ code: 1000, reason: undefined }]);
    });

    it('closes with 1000 when the shell exits before the delivery started', async () => {
      const ptys = new FakePtyAdapter();
      const app = nodeApp(workspace.root, { pty: ptys });
      let onOpen: SocketOpenHandler | undefined;
      await app.fetch(request('/ws/terminal', { headers: UPGRADE_HEADERS }), {
        upgrade: (handler) => ((onOpen = handler), new Response(null, { status: 200 })),
      });
      const socket = new FakeSocket();
      onOpen!(socket);
      ptys.last.emitData('x');
      ptys.last.emitExit(2);
      await nextTurn();
      expect(socket.sent).toEqual([new TextEncoder().encode('x')]);
      expect(socket.closes).toEqual([{ code: 1000, reason: undefined }]);
    });

    it('kills the shell when the socket closes, and stops sending to it', async () => {
      const { socket, pty } = await open();
      socket.peerClosed(1001);
      expect(pty!.kills).toBe(1);
      pty!.emitData(new Uint8Array([0x41]));
      pty!.emitExit(0);
      expect(socket.sent).toEqual([]);
      expect(socket.closes).toEqual([]);
    });

    it('holds output while the socket is at the high-water mark, pauses the pty past half a ring behind, resumes on drain', async () => {
      const { socket, pty } = await open();
      socket.bufferedAmount = CLIENT_HIGH_WATER_BYTES - 1;
      pty!.emitData(new Uint8Array([0x41]));
      expect(socket.sent).toEqual([new Uint8Array([0x41])]); // below the mark: sent at once
      socket.bufferedAmount = CLIENT_HIGH_WATER_BYTES;
      const held = new Uint8Array(RING_BYTES / 2).fill(0x42);
      pty!.emitData(held);
      expect(socket.sent).toHaveLength(1); // at the mark: kept in the ring
      expect(pty!.paused).toBe(false); // half a ring behind, not more
      pty!.emitData(new Uint8Array([0x43]));
      expect(pty!.paused).toBe(true);
      socket.drained();
      expect(pty!.paused).toBe(false);
      expect(pty!.flow).toEqual(['pause', 'resume']);
      expect(concat(socket.sent as Uint8Array[])).toEqual(concat([new Uint8Array([0x41]), held, new Uint8Array([0x43])])); // nothing dropped
    });

    it('never drops its one client, however long it holds the pty paused (an unnamed session)', async () => {
      const { socket, pty } = await open();
      socket.bufferedAmount = CLIENT_HIGH_WATER_BYTES;
      pty!.emitData(new Uint8Array(RING_BYTES).fill(0x44));
      expect(pty!.paused).toBe(true);
      await new Promise((resolve) => setTimeout(resolve, STALL_MS * 5)); // nothing to wait for: the point is that nothing happens
      expect(socket.closes).toEqual([]);
      expect(pty!.kills).toBe(0);
      socket.drained();
      expect(socket.output()).toEqual(new Uint8Array(RING_BYTES).fill(0x44));
    });

    it('closes the socket with 1011 when the shell cannot start', async () => {
      const ptys = new FakePtyAdapter();
      ptys.fail = true;
      const { socket } = await open(ptys);
      expect(socket.closes).toEqual([{ code: 1011, reason: 'could not start a shell' }]);
    });
  });
});

describe('parseTerminalMessage', () => {
  it('accepts the two documented messages and nothing else', () => {
    expect(parseTerminalMessage('{"type":"input","data":"x"}')).toEqual({ type: 'input', data: 'x' });
    expect(parseTerminalMessage('{"type":"resize","cols":1,"rows":65535}')).toEqual({ type: 'resize', cols: 1, rows: 65535 });
    expect(parseTerminalMessage('{"type":"input","data":""}')).toEqual({ type: 'input', data: '' });
    expect(parseTerminalMessage('{"type":"input","data":"x","extra":true}')).toEqual({ type: 'input', data: 'x' });
    expect(parseTerminalMessage('{"type":"INPUT","data":"x"}')).toBeUndefined();
    expect(parseTerminalMessage('{"type":"resize","cols":null,"rows":1}')).toBeUndefined();
  });
});
