/**
 * Flow control (core/terminals/terminal-manager.ts): a client reads the ring at its own pace; half a ring
 * behind pauses the pty, a quarter resumes it; a named session's client that holds the pty paused longer
 * than stallMs is dropped while the program runs on; an unnamed session's never is; memory stays bounded.
 * A fake pty and a client whose socket the test fills and drains.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createTerminalManager } from '../../../core/terminals/create-terminal-manager.ts';
import { CLIENT_HIGH_WATER_BYTES } from '../../../core/terminals/delivery.ts';
import type { TerminalManager, TerminalManagerOptions, TerminalSession } from '../../../core/terminals/terminal-manager.ts';
import type { Session } from '../../../core/terminals/terminal-session.ts';
import { FakePtyAdapter, RecordingClient, concat } from '../../support/terminals.ts';

const CWD = '/work/space';
/** The most one send carries (delivery.ts). */
const CHUNK = 64 * 1024;

function pattern(length: number, seed = 0): Uint8Array {
  const bytes = new Uint8Array(length);
  for (let i = 0; i < length; i++) bytes[i] = (i * 7 + seed) & 0xff;
  return bytes;
}

describe('flow control (fake pty, fake client)', () => {
  let terminals: TerminalManager;
  let ptys: FakePtyAdapter;

  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
  });

  afterEach(async () => {
    vi.useRealTimers();
    await terminals?.closeAll();
  });

  function setup(options: Partial<TerminalManagerOptions> & { name?: string | null } = {}) {
    const { name = 'x', ...managerOptions } = options;
    ptys = new FakePtyAdapter(true);
    terminals = createTerminalManager(ptys, { ringBytes: 1024, maxSessions: 8, reapMs: 60_000, stallMs: 50, ...managerOptions });
    const session = terminals.start({ ...(name !== null && { name }), cwd: CWD });
    return { session, pty: ptys.last };
  }

  /** Attaches a client that accepts `allowance` sends, and lets its delivery start. */
  function attach(session: TerminalSession, allowance = Infinity, from?: number) {
    const client = new RecordingClient();
    client.allowance = allowance;
    const attachment = session.attach(client, from === undefined ? {} : { from });
    vi.advanceTimersByTime(0);
    return { client, attachment };
  }

  it('asks the pty for output in pieces of an eighth of the ring (4 KiB at least): what arrives after a pause fits', () => {
    setup({ ringBytes: 64 * 1024 });
    expect(ptys.spawned[0]!.options.maxChunkBytes).toBe(8 * 1024);
    setup({ ringBytes: 4096 });
    expect(ptys.spawned[0]!.options.maxChunkBytes).toBe(4096);
  });

  it('a replay promised at attach arrives whole even if the program outruns the ring before it starts', () => {
    const { session, pty } = setup(); // a 1024-byte ring
    const before = pattern(1024, 1);
    pty.emitData(before);
    const client = new RecordingClient();
    const attachment = session.attach(client); // from the ring's start: 0
    expect([attachment.from, attachment.end, attachment.truncated]).toEqual([0, 1024, false]);
    expect(pty.flow).toEqual(['pause']); // a whole ring to replay: paused at once
    const inFlight = pattern(900, 2); // already read when the pause came: the ring moves on past `from`
    pty.emitData(inFlight);
    expect(session.info().start).toBe(900);
    vi.advanceTimersByTime(0);
    expect(client.received()).toEqual(concat([before, inFlight]));
    expect(pty.flow).toEqual(['pause', 'resume']);
  });

  it('pauses the pty only once a client is more than half a ring behind', () => {
    const { session, pty } = setup();
    attach(session, 0);
    pty.emitData(pattern(512));
    expect(pty.flow).toEqual([]); // exactly half: not yet
    pty.emitData(pattern(1));
    expect(pty.flow).toEqual(['pause']);
  });

  it('resumes only once every client is within a quarter ring', () => {
    const ring = 1024 * 1024 - 4; // a quarter ring (262 143) is then reached exactly after four whole sends
    const { session, pty } = setup({ ringBytes: ring });
    const { client, attachment } = attach(session, 0);
    const emitted = pattern(ring / 4 + 4 * CHUNK);
    pty.emitData(emitted);
    expect(pty.flow).toEqual(['pause']);
    client.allowance = 3;
    attachment.drained();
    expect(client.chunks.map((chunk) => chunk.bytes.length)).toEqual([CHUNK, CHUNK, CHUNK]);
    expect(pty.flow).toEqual(['pause']); // a quarter ring and one chunk behind: still paused
    client.allowance = 1;
    attachment.drained();
    expect(session.info().end - client.cursor).toBe(ring / 4);
    expect(pty.flow).toEqual(['pause', 'resume']);
    client.allowance = Infinity;
    attachment.drained();
    expect(Buffer.compare(client.received(), emitted)).toBe(0); // nothing lost
    expect(client.contiguousFrom(0)).toBe(true);
  });

  it('waits for the slowest client; a fast one meanwhile gets everything live', () => {
    const { session, pty } = setup();
    const fast = attach(session);
    const slow = attach(session, 0);
    const emitted = pattern(600);
    pty.emitData(emitted);
    expect(pty.flow).toEqual(['pause']);
    expect(Buffer.compare(fast.client.received(), emitted)).toBe(0);
    slow.client.allowance = Infinity;
    slow.attachment.drained();
    expect(pty.flow).toEqual(['pause', 'resume']);
    expect(Buffer.compare(slow.client.received(), emitted)).toBe(0);
  });

  it('a session with no client never pauses: the ring just keeps the latest output', () => {
    const { session, pty } = setup();
    for (let i = 0; i < 10; i++) pty.emitData(pattern(1000, i));
    expect(pty.flow).toEqual([]);
    expect(session.info()).toMatchObject({ start: 10_000 - 1024, end: 10_000 });
  });

  it('the lagging client detaching resumes the pty', () => {
    const { session, pty } = setup();
    const { attachment } = attach(session, 0);
    pty.emitData(pattern(600));
    attachment.detach();
    expect(pty.flow).toEqual(['pause', 'resume']);
  });

  it('an exit while paused still delivers everything, then the exit, to a client that reads within stallMs', () => {
    const { session, pty } = setup();
    const { client, attachment } = attach(session, 0);
    const emitted = pattern(700);
    pty.emitData(emitted);
    pty.emitExit(0);
    vi.advanceTimersByTime(40);
    expect(client.drops).toEqual([]);
    client.allowance = Infinity;
    attachment.drained();
    expect(client.received()).toEqual(emitted);
    expect(client.exits).toEqual([0]);
    vi.advanceTimersByTime(1000);
    expect(client.drops).toEqual([]);
  });

  it('a client stuck behind an exited session is dropped after stallMs, so it cannot hold the session forever', () => {
    const { session, pty } = setup();
    const { client } = attach(session, 0);
    pty.emitData(pattern(100)); // less than half a ring: the program was never paused
    pty.emitExit(0);
    vi.advanceTimersByTime(49);
    expect(client.drops).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(client.drops).toEqual(['terminal x: client too slow (no progress for 50 ms)']);
    expect(client.exits).toEqual([]);
    expect(terminals.list().map((info) => info.name)).toEqual(['x']); // still replayable until reaped
  });

  describe('a named session', () => {
    it('drops the client that held the pty paused for stallMs; the program runs on and the client may reattach', () => {
      const { session, pty } = setup({ stallMs: 50 });
      const fast = attach(session);
      const slow = attach(session, 2); // takes two sends, then reads nothing
      pty.emitData(pattern(100, 1));
      pty.emitData(pattern(100, 2));
      pty.emitData(pattern(600, 3)); // 600 behind
      expect(pty.flow).toEqual(['pause']);
      vi.advanceTimersByTime(49);
      expect(slow.client.drops).toEqual([]);
      vi.advanceTimersByTime(1);
      expect(slow.client.drops).toEqual(['terminal x: client too slow (no progress for 50 ms)']);
      expect(slow.client.exits).toEqual([]);
      expect(fast.client.drops).toEqual([]);
      expect(pty.flow).toEqual(['pause', 'resume']);
      expect(pty.kills).toBe(0);
      expect(session.running).toBe(true);

      pty.emitData(pattern(300, 4)); // runs on; the dropped client hears nothing more
      slow.client.allowance = Infinity;
      slow.attachment.drained();
      expect(slow.client.received().length).toBe(200);
      const again = attach(session, Infinity, slow.client.cursor);
      expect(concat([slow.client.received(), again.client.received()])).toEqual(fast.client.received());
      expect(fast.client.received().length).toBe(1100);
    });

    it('keeps a client whose socket drains slowly but steadily, however long the pause lasts (slow is not stuck)', () => {
      // The /ws case: the socket is busy with a big reply to another command, so the terminal's cursor cannot
      // move, but the queue shrinks: the client is reading.
      const { session, pty } = setup({ stallMs: 50 });
      let backlog = 64 * CLIENT_HIGH_WATER_BYTES;
      const sent: Uint8Array[] = [];
      const client = { send: (bytes: Uint8Array) => sent.push(bytes.slice()), get backlog() { return backlog; }, exit() {}, drops: [] as string[], drop(reason: string) { this.drops.push(reason); } };
      const attachment = session.attach(client);
      vi.advanceTimersByTime(0);
      pty.emitData(pattern(1000));
      expect(pty.flow).toEqual(['pause']);
      for (let step = 0; step < 20; step++) {
        vi.advanceTimersByTime(40); // 800 ms in all: sixteen stall periods
        backlog -= 2 * CLIENT_HIGH_WATER_BYTES;
      }
      expect(client.drops).toEqual([]);
      backlog = 0;
      attachment.drained();
      expect(concat(sent)).toEqual(pattern(1000));
      expect(pty.flow).toEqual(['pause', 'resume']);
      // The same client, stuck for good: dropped one stall period later.
      backlog = CLIENT_HIGH_WATER_BYTES;
      pty.emitData(pattern(1000));
      vi.advanceTimersByTime(100);
      expect(client.drops).toEqual(['terminal x: client too slow (no progress for 50 ms)']);
    });

    it('counts a large message trickling out as progress (inTransit falls while backlog waits for its end)', () => {
      const { session, pty } = setup({ stallMs: 50 });
      let inTransit = 50 * 1024 * 1024;
      const client = { send() {}, backlog: 64 * CLIENT_HIGH_WATER_BYTES, get inTransit() { return inTransit; }, exit() {}, drops: [] as string[], drop(reason: string) { this.drops.push(reason); } };
      session.attach(client);
      vi.advanceTimersByTime(0);
      pty.emitData(pattern(1000));
      for (let step = 0; step < 10; step++) {
        vi.advanceTimersByTime(40);
        inTransit -= 1024 * 1024;
      }
      expect(client.drops).toEqual([]);
      vi.advanceTimersByTime(100); // the trickle stops: stuck
      expect(client.drops).toEqual(['terminal x: client too slow (no progress for 50 ms)']);
    });

    it('keeps a client that caught up in time; the next pause gets a fresh stallMs', () => {
      const { session, pty } = setup({ stallMs: 50 });
      const { client, attachment } = attach(session, 0);
      pty.emitData(pattern(600));
      vi.advanceTimersByTime(40);
      client.allowance = Infinity;
      attachment.drained();
      expect(pty.flow).toEqual(['pause', 'resume']);
      vi.advanceTimersByTime(100);
      expect(client.drops).toEqual([]);
      client.allowance = 0;
      pty.emitData(pattern(600));
      vi.advanceTimersByTime(49);
      expect(client.drops).toEqual([]);
      vi.advanceTimersByTime(1);
      expect(client.drops).toHaveLength(1);
    });
  });

  it('an unnamed session never drops its client, however long it holds the pty paused', () => {
    const { session, pty } = setup({ name: null, stallMs: 50 });
    const { client, attachment } = attach(session, 0);
    const emitted = pattern(900);
    pty.emitData(emitted);
    vi.advanceTimersByTime(60_000);
    expect(client.drops).toEqual([]);
    expect(pty.flow).toEqual(['pause']);
    expect(pty.kills).toBe(0);
    client.allowance = Infinity;
    attachment.drained();
    expect(client.received()).toEqual(emitted);
    expect(pty.flow).toEqual(['pause', 'resume']);
  });

  it('memory stays bounded when the pty outruns a pause: the ring never exceeds its capacity, and a client past its start continues from it', () => {
    const ring = 4096;
    const { session, pty } = setup({ ringBytes: ring });
    const { client, attachment } = attach(session, 0);
    // A pty keeps delivering what it had already read after pause(): simulate a lot of it.
    for (let i = 0; i < 40; i++) {
      pty.emitData(pattern(1000, i));
      expect(session.info().end - session.info().start).toBeLessThanOrEqual(ring);
      expect((session as Session).ring.allocatedBytes).toBeLessThanOrEqual(ring);
    }
    expect(pty.flow).toEqual(['pause']);
    client.allowance = Infinity;
    attachment.drained();
    const { start, end } = session.info();
    expect([start, end]).toEqual([40_000 - ring, 40_000]);
    expect(client.chunks[0]!.offset).toBe(start); // the gap shows in the offset
    expect(client.contiguousFrom(start)).toBe(true);
    expect(client.received()).toEqual((session as Session).ring.read());
    expect(pty.flow).toEqual(['pause', 'resume']);
  });

  it('queues at most the high-water mark on a client socket: the rest waits in the ring', () => {
    const { session, pty } = setup({ ringBytes: 4 * 1024 * 1024 });
    const client = new RecordingClient();
    let queued = 0;
    const socketLike = {
      send: (bytes: Uint8Array, offset: number) => {
        queued += bytes.length;
        client.send(bytes, offset);
      },
      get backlog() {
        return queued;
      },
      exit: () => {},
      drop: () => {},
    };
    const attachment = session.attach(socketLike);
    vi.advanceTimersByTime(0);
    for (let i = 0; i < 64; i++) pty.emitData(pattern(32 * 1024, i)); // 2 MiB
    expect(queued).toBe(CLIENT_HIGH_WATER_BYTES);
    queued = 0;
    attachment.drained();
    expect(queued).toBe(CLIENT_HIGH_WATER_BYTES);
    expect(client.cursor).toBe(2 * CLIENT_HIGH_WATER_BYTES);
  });
});
