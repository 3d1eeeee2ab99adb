import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { OUTPUT_HIGH_WATER_BYTES, parseTerminalMessage } from '../../../handlers/api/terminal-session.ts';
import type { PtyAdapter, PtyProcess, PtySpawnOptions } from '../../../adapters/pty/pty-adapter.ts';
import type { ServerSocket, SocketOpenHandler, Upgrader } from '../../../runtime/websocket.ts';
import { nodeApp, request, tempWorkspace, type TempWorkspace } from '../../support/workspace.ts';

const UPGRADE_HEADERS = { upgrade: 'websocket', connection: 'Upgrade', 'sec-websocket-version': '13', 'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==' };

/** A pty that records what the session does to it and lets the test drive output and exit. */
class FakePty implements PtyProcess {
  readonly pid = 4242;
  readonly writes: (string | Uint8Array)[] = [];
  readonly resizes: [number, number][] = [];
  kills = 0;
  paused = false;
  #data: ((data: Uint8Array) => void)[] = [];
  #exit: ((exit: { code: number | null; signal: number | null }) => void)[] = [];
  write(data: string | Uint8Array) {
    this.writes.push(data);
  }
  resize(cols: number, rows: number) {
    this.resizes.push([cols, rows]);
  }
  onData(listener: (data: Uint8Array) => void) {
    this.#data.push(listener);
  }
  onExit(listener: (exit: { code: number | null; signal: number | null }) => void) {
    this.#exit.push(listener);
  }
  kill() {
    this.kills++;
  }
  pause() {
    this.paused = true;
  }
  resume() {
    this.paused = false;
  }
  emitData(bytes: Uint8Array) {
    for (const listener of this.#data) listener(bytes);
  }
  emitExit(code: number) {
    for (const listener of this.#exit) listener({ code, signal: null });
  }
}

class FakePtyAdapter implements PtyAdapter {
  readonly spawned: { options: PtySpawnOptions; pty: FakePty }[] = [];
  fail = false;
  spawn(options: PtySpawnOptions): PtyProcess {
    if (this.fail) throw new Error('spawn failed');
    const pty = new FakePty();
    this.spawned.push({ options, pty });
    return pty;
  }
  async killAll() {}
}

class FakeSocket implements ServerSocket {
  readonly sent: (string | Uint8Array)[] = [];
  readonly closes: { code: number | undefined; reason: string | undefined }[] = [];
  /** What a slow peer has not taken yet; the test sets it and calls drained(). */
  bufferedAmount = 0;
  #drain: (() => void)[] = [];
  onDrain(listener: () => void) {
    this.#drain.push(listener);
  }
  drained() {
    this.bufferedAmount = 0;
    for (const listener of this.#drain) listener();
  }
  #message: ((data: string | Uint8Array, isBinary: boolean) => void)[] = [];
  #close: ((code: number, reason: string) => void)[] = [];
  send(data: string | Uint8Array) {
    this.sent.push(data);
  }
  close(code?: number, reason?: string) {
    this.closes.push({ code, reason });
  }
  onMessage(listener: (data: string | Uint8Array, isBinary: boolean) => void) {
    this.#message.push(listener);
  }
  onClose(listener: (code: number, reason: string) => void) {
    this.#close.push(listener);
  }
  receiveText(text: string) {
    for (const listener of this.#message) listener(text, false);
  }
  receiveBinary(bytes: Uint8Array) {
    for (const listener of this.#message) listener(bytes, true);
  }
  peerClosed(code = 1000) {
    for (const listener of this.#close) listener(code, '');
  }
}

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
    async function open(ptys = new FakePtyAdapter()) {
      const app = nodeApp(workspace.root, { pty: ptys });
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
      return { ptys, socket, pty: ptys.spawned[0]?.pty };
    }

    it('spawns the default shell in the workspace root at 80x24', async () => {
      const { ptys } = await open();
      expect(ptys.spawned).toHaveLength(1);
      expect(ptys.spawned[0]!.options).toEqual({ cwd: workspace.root, cols: 80, rows: 24 });
    });

    it('forwards pty output as binary frames, byte for byte', async () => {
      const { socket, pty } = await open();
      const bytes = new Uint8Array([0x1b, 0x5b, 0x41, 0xe2, 0x82]); // ends mid-character on purpose
      pty!.emitData(bytes);
      expect(socket.sent).toEqual([bytes]);
      expect(socket.sent[0]).toBeInstanceOf(Uint8Array);
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

    it('closes the socket with 1000 when the shell exits', async () => {
      const { socket, pty } = await open();
      pty!.emitExit(0);
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

    it('pauses the pty while a slow client has more than the high-water mark queued, resumes on drain', async () => {
      const { socket, pty } = await open();
      socket.bufferedAmount = OUTPUT_HIGH_WATER_BYTES;
      pty!.emitData(new Uint8Array([0x41]));
      expect(pty!.paused).toBe(false); // at the mark, not above it
      socket.bufferedAmount = OUTPUT_HIGH_WATER_BYTES + 1;
      pty!.emitData(new Uint8Array([0x42]));
      expect(pty!.paused).toBe(true);
      socket.drained();
      expect(pty!.paused).toBe(false);
      expect(socket.sent).toEqual([new Uint8Array([0x41]), new Uint8Array([0x42])]); // nothing dropped
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
