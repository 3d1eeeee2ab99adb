/**
 * `/ws` under malformed traffic, two ways:
 *
 * - sendWsFrames: generated frames (./malformed-requests.ts WsFrameCase) on one `ws` client socket, every reply
 *   checked (./malformed-oracle.ts rpcReplyViolation) and counted against the replies the frames must get;
 * - rawWsCases / sendRawWs: frames no WebSocket library would send, written by hand on a `node:net` socket after a
 *   real handshake — invalid UTF-8 in a text frame, unmasked or reserved-bit frames, unknown opcodes, oversized or
 *   fragmented control frames, lengths past the message cap, orphan continuations, sockets cut mid-frame and
 *   mid-command. The daemon may close such a socket (1002, 1007, 1009: that is its refusal); never with 1011.
 */
import { randomBytes } from 'node:crypto';
import { connect, type Socket } from 'node:net';
import WebSocket from 'ws';
import { rpcReplyViolation, type Violation } from './malformed-oracle.ts';
import type { WsFrameCase } from './malformed-requests.ts';

export interface WsRun {
  sent: number;
  replies: number;
  violations: Violation[];
}

/** Sends `frames` on one `/ws` socket and waits for every reply they must get (`timeoutMs` at most). */
export async function sendWsFrames(port: number, token: string, frames: readonly WsFrameCase[], timeoutMs = 60_000): Promise<WsRun> {
  const socket = new WebSocket(`ws://127.0.0.1:${port}/ws?token=${encodeURIComponent(token)}`, { maxPayload: 1024 * 1024 * 1024 });
  await new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve());
    socket.once('error', reject);
  });
  const expected = frames.reduce((sum, frame) => sum + frame.replies, 0);
  const violations: Violation[] = [];
  let replies = 0;
  const finished = new Promise<void>((resolve) => {
    const timer = setTimeout(() => {
      violations.push({ kind: 'shape', detail: `${expected - replies} of ${expected} replies missing after ${timeoutMs} ms` });
      resolve();
    }, timeoutMs);
    const done = () => {
      clearTimeout(timer);
      resolve();
    };
    socket.on('message', (data: WebSocket.RawData, isBinary: boolean) => {
      replies += 1;
      const violation = isBinary ? { kind: 'shape' as const, detail: 'a binary reply' } : rpcReplyViolation(data.toString());
      if (violation) violations.push(violation);
      if (replies >= expected) done();
    });
    socket.once('close', (code: number, reason: Buffer) => {
      if (replies < expected) violations.push({ kind: code === 1011 ? '5xx' : 'shape', detail: `socket closed (${code} ${reason.toString()}) with ${expected - replies} replies missing` });
      done();
    });
    if (expected === 0) done();
  });
  for (const frame of frames) socket.send(frame.data, { binary: frame.binary });
  await finished;
  socket.terminate();
  return { sent: frames.length, replies, violations };
}

// ---------------------------------------------------------------------------------------------------------------
// Raw frames

interface FrameSpec {
  fin?: boolean;
  rsv?: number;
  opcode: number;
  payload?: Buffer;
  masked?: boolean;
  /** A length to announce instead of the payload's own (the payload sent stays what it is). */
  announce?: bigint;
}

/** One WebSocket frame as bytes (RFC 6455 §5.2): a client's frames are masked unless told otherwise. */
export function frameBytes({ fin = true, rsv = 0, opcode, payload = Buffer.alloc(0), masked = true, announce }: FrameSpec): Buffer {
  const length = announce ?? BigInt(payload.length);
  const header: number[] = [(fin ? 0x80 : 0) | (rsv << 4) | opcode];
  const maskBit = masked ? 0x80 : 0;
  if (length < 126n) header.push(maskBit | Number(length));
  else if (length < 65536n) header.push(maskBit | 126, Number(length >> 8n) & 0xff, Number(length) & 0xff);
  else {
    header.push(maskBit | 127);
    for (let shift = 56n; shift >= 0n; shift -= 8n) header.push(Number((length >> shift) & 0xffn));
  }
  if (!masked) return Buffer.concat([Buffer.from(header), payload]);
  const mask = randomBytes(4);
  const body = Buffer.from(payload);
  for (let i = 0; i < body.length; i++) body[i]! ^= mask[i % 4]!;
  return Buffer.concat([Buffer.from(header), mask, body]);
}

const text = (value: string) => Buffer.from(value, 'utf8');
const closePayload = (code: number, reason: Buffer = Buffer.alloc(0)) => Buffer.concat([Buffer.from([code >> 8, code & 0xff]), reason]);

/**
 * One raw exchange after the handshake: the byte pieces (each its own write), then what ends it — `close`: the
 * daemon closes the socket (its refusal); `reply`: one reply comes and the socket stays; `cut`: the client
 * destroys the socket right after writing (mid-frame, mid-command).
 */
export interface RawWsCase {
  name: string;
  pieces: Buffer[];
  then: 'close' | 'reply' | 'cut';
}

/** The raw cases, for a daemon whose `/ws` message cap is `maxMessageBytes`. */
export function rawWsCases(maxMessageBytes: number): RawWsCase[] {
  const request = (id: number, command: string, args: object) => text(JSON.stringify({ id, command, args }));
  const whole = frameBytes({ opcode: 1, payload: request(1, 'get_cwd', {}) });
  const heavy = [
    frameBytes({ opcode: 1, payload: request(1, 'search_in_files', { path: '.', query: 'line' }) }),
    frameBytes({ opcode: 1, payload: request(2, 'read_directory', { path: '.', maxDepth: 12 }) }),
    frameBytes({ opcode: 1, payload: request(3, 'read_file', { path: 'big.txt' }) }),
    frameBytes({ opcode: 1, payload: request(4, 'list_files', { path: '.' }) }),
    frameBytes({ opcode: 1, payload: request(5, 'read_file_base64', { path: 'bin.dat' }) }),
  ];
  const half = Math.floor(maxMessageBytes / 2) + 1;
  return [
    { name: 'text frame of invalid UTF-8', pieces: [frameBytes({ opcode: 1, payload: Buffer.from([0x7b, 0xff, 0xfe, 0x7d]) })], then: 'close' },
    { name: 'text frame cut inside a UTF-8 character', pieces: [frameBytes({ opcode: 1, payload: Buffer.from([0xe2, 0x82]) })], then: 'close' },
    { name: 'unmasked client frame', pieces: [frameBytes({ opcode: 1, payload: request(1, 'get_cwd', {}), masked: false })], then: 'close' },
    { name: 'reserved bit without an extension', pieces: [frameBytes({ opcode: 1, rsv: 4, payload: request(1, 'get_cwd', {}) })], then: 'close' },
    { name: 'unknown data opcode', pieces: [frameBytes({ opcode: 3, payload: text('{}') })], then: 'close' },
    { name: 'unknown control opcode', pieces: [frameBytes({ opcode: 0xb, payload: text('x') })], then: 'close' },
    { name: 'control frame over 125 bytes', pieces: [frameBytes({ opcode: 9, payload: Buffer.alloc(126) })], then: 'close' },
    { name: 'fragmented ping', pieces: [frameBytes({ opcode: 9, fin: false, payload: text('p') })], then: 'close' },
    { name: 'continuation with nothing to continue', pieces: [frameBytes({ opcode: 0, payload: text('{}') })], then: 'close' },
    { name: 'new message inside a fragmented one', pieces: [frameBytes({ opcode: 1, fin: false, payload: text('{"id":') }), frameBytes({ opcode: 1, payload: text('{}') })], then: 'close' },
    { name: '64-bit length with its top bit set', pieces: [frameBytes({ opcode: 1, announce: 2n ** 63n + 5n })], then: 'close' },
    { name: 'announced length over the message cap', pieces: [frameBytes({ opcode: 1, announce: BigInt(maxMessageBytes + 1) })], then: 'close' },
    { name: 'announced length of 2^53', pieces: [frameBytes({ opcode: 2, announce: 2n ** 53n })], then: 'close' },
    {
      name: 'fragments adding up past the message cap',
      pieces: [frameBytes({ opcode: 1, fin: false, payload: Buffer.alloc(half, 0x20) }), frameBytes({ opcode: 0, payload: Buffer.alloc(half, 0x20) })],
      then: 'close',
    },
    { name: 'close with code 999', pieces: [frameBytes({ opcode: 8, payload: closePayload(999) })], then: 'close' },
    { name: 'close with code 1005 (reserved)', pieces: [frameBytes({ opcode: 8, payload: closePayload(1005) })], then: 'close' },
    { name: 'close with code 5000', pieces: [frameBytes({ opcode: 8, payload: closePayload(5000) })], then: 'close' },
    { name: 'close with a 1-byte payload', pieces: [frameBytes({ opcode: 8, payload: Buffer.from([3]) })], then: 'close' },
    { name: 'close with a reason of invalid UTF-8', pieces: [frameBytes({ opcode: 8, payload: closePayload(1000, Buffer.from([0xff, 0xc0])) })], then: 'close' },
    { name: 'ping with a payload, then a request', pieces: [frameBytes({ opcode: 9, payload: text('hello') }), whole], then: 'reply' },
    { name: 'a request one byte per write', pieces: [...whole].map((byte) => Buffer.from([byte])), then: 'reply' },
    {
      name: 'a request in 40 one-byte fragments',
      pieces: [...request(1, 'get_cwd', {})].map((byte, i, all) => frameBytes({ opcode: i === 0 ? 1 : 0, fin: i === all.length - 1, payload: Buffer.from([byte]) })),
      then: 'reply',
    },
    { name: 'a binary frame of invalid UTF-8', pieces: [frameBytes({ opcode: 2, payload: Buffer.from([0xff, 0xfe, 0xfd]) })], then: 'reply' },
    { name: 'an empty text frame', pieces: [frameBytes({ opcode: 1 })], then: 'reply' },
    { name: 'cut inside a frame header', pieces: [whole.subarray(0, 1)], then: 'cut' },
    { name: 'cut inside a masking key', pieces: [whole.subarray(0, 4)], then: 'cut' },
    { name: 'cut inside a payload', pieces: [whole.subarray(0, whole.length - 3)], then: 'cut' },
    { name: 'cut inside a fragmented message', pieces: [frameBytes({ opcode: 1, fin: false, payload: text('{"id":1,') })], then: 'cut' },
    { name: 'cut mid-command (heavy reads and walks in flight)', pieces: heavy, then: 'cut' },
    { name: 'cut after a close frame, before the reply', pieces: [...heavy, frameBytes({ opcode: 8, payload: closePayload(1000) })], then: 'cut' },
  ];
}

export interface RawWsOutcome {
  /** The close code the daemon sent, if it sent a close frame. */
  closeCode?: number;
  /** Text frames the daemon sent (replies). */
  replies: string[];
}

/**
 * Handshakes on a `node:net` socket, writes the case's pieces, then reads until the case's end (a close frame, a
 * reply) or `readMs` of silence; a `cut` case destroys the socket at once. Server frames are unmasked; only close
 * and text frames matter here.
 */
export async function sendRawWs(port: number, token: string, raw: RawWsCase, readMs = 5000): Promise<RawWsOutcome> {
  const socket = connect(port, '127.0.0.1');
  socket.on('error', () => {});
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', () => resolve());
    socket.once('error', reject);
  });
  const key = randomBytes(16).toString('base64');
  socket.write(
    `GET /ws?token=${encodeURIComponent(token)} HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
      `Sec-WebSocket-Key: ${key}\r\nSec-WebSocket-Version: 13\r\n\r\n`,
  );
  let buffered = await readUntil(socket, (bytes) => bytes.indexOf('\r\n\r\n') >= 0, 10_000);
  const headEnd = buffered.indexOf('\r\n\r\n');
  if (!/^HTTP\/1\.1 101/.test(buffered.toString('latin1'))) throw new Error(`no handshake: ${buffered.subarray(0, 200).toString('latin1')}`);
  buffered = buffered.subarray(headEnd + 4);
  for (const piece of raw.pieces) socket.write(piece);
  if (raw.then === 'cut') {
    socket.destroy();
    return { replies: [] };
  }
  const ended = (bytes: Buffer) => {
    const frames = parseServerFrames(bytes);
    return frames.closeCode !== undefined || (raw.then === 'reply' && frames.replies.length > 0);
  };
  const rest = await readUntil(socket, ended, readMs, buffered);
  socket.destroy();
  return parseServerFrames(rest);
}

/** Reads from `socket` until `enough(bytes)`, the socket closes, or `ms` pass without a byte. */
function readUntil(socket: Socket, enough: (bytes: Buffer) => boolean, ms: number, start: Buffer = Buffer.alloc(0)): Promise<Buffer> {
  return new Promise((resolve) => {
    let bytes = start;
    let timer: ReturnType<typeof setTimeout>;
    const finish = () => {
      clearTimeout(timer);
      socket.off('data', onData);
      socket.off('close', finish);
      resolve(bytes);
    };
    const arm = () => {
      clearTimeout(timer);
      timer = setTimeout(finish, ms);
    };
    const onData = (chunk: Buffer) => {
      bytes = Buffer.concat([bytes, chunk]);
      if (enough(bytes)) finish();
      else arm();
    };
    socket.on('data', onData);
    socket.once('close', finish);
    if (enough(bytes)) finish();
    else arm();
  });
}

/** The server's frames in `bytes`: its text replies and its close code (server frames are never masked). */
function parseServerFrames(bytes: Buffer): RawWsOutcome {
  const outcome: RawWsOutcome = { replies: [] };
  let at = 0;
  while (at + 2 <= bytes.length) {
    const opcode = bytes[at]! & 0x0f;
    let length = bytes[at + 1]! & 0x7f;
    let start = at + 2;
    if (length === 126) {
      if (start + 2 > bytes.length) break;
      length = bytes.readUInt16BE(start);
      start += 2;
    } else if (length === 127) {
      if (start + 8 > bytes.length) break;
      length = Number(bytes.readBigUInt64BE(start));
      start += 8;
    }
    if (start + length > bytes.length) break;
    const payload = bytes.subarray(start, start + length);
    if (opcode === 1) outcome.replies.push(payload.toString('utf8'));
    if (opcode === 8) outcome.closeCode = payload.length >= 2 ? payload.readUInt16BE(0) : 1005;
    at = start + length;
  }
  return outcome;
}
