/**
 * Attaching to a session: where the replay starts, exactly-once delivery across a detach and reattach, the
 * exit after the last byte, UTF-8 cuts, and `follow` / `text` / `waitForOutput` for code. Fake pty: the test
 * decides every byte the program prints.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createTerminalManager } from '../../../core/terminals/create-terminal-manager.ts';
import type { TerminalManager } from '../../../core/terminals/terminal-manager.ts';
import { WorkspaceError } from '../../../core/errors/workspace-error.ts';
import { FakePtyAdapter, RecordingClient, bytesOf, concat, nextTurn } from '../../support/terminals.ts';

const CWD = '/work/space';
const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);

describe('attaching to a session (fake pty)', () => {
  let terminals: TerminalManager;
  let ptys: FakePtyAdapter;

  function start(ringBytes = 1024) {
    ptys = new FakePtyAdapter(true);
    terminals = createTerminalManager(ptys, { ringBytes, maxSessions: 8, reapMs: 60_000, stallMs: 60_000 });
    const session = terminals.start({ name: 'x', cwd: CWD });
    return { session, pty: ptys.last };
  }

  afterEach(async () => {
    await terminals?.closeAll();
  });

  it('replays from the ring start by default, then goes live, with contiguous offsets', async () => {
    const { session, pty } = start();
    pty.emitData('one ');
    pty.emitData('two ');
    const client = new RecordingClient();
    const attachment = session.attach(client);
    expect([attachment.from, attachment.end, attachment.truncated]).toEqual([0, 8, false]);
    pty.emitData('three '); // before the delivery starts: kept for the replay, not sent ahead of it
    expect(client.chunks).toEqual([]);
    await nextTurn();
    pty.emitData('four');
    expect(decode(client.received())).toBe('one two three four');
    expect(client.contiguousFrom(0)).toBe(true);
  });

  it('replays from a given offset in the middle of the ring', async () => {
    const { session, pty } = start();
    pty.emitData('0123456789');
    const client = new RecordingClient();
    const attachment = session.attach(client, { from: 4 });
    expect([attachment.from, attachment.end, attachment.truncated]).toEqual([4, 10, false]);
    await nextTurn();
    expect(client.chunks).toEqual([{ offset: 4, bytes: bytesOf('456789') }]);
  });

  it('starts at the ring start and says truncated when `from` fell out of the ring', async () => {
    const { session, pty } = start(8);
    pty.emitData('abcdefghijkl'); // keeps efghijkl at 4..12
    const client = new RecordingClient();
    const attachment = session.attach(client, { from: 2 });
    expect([attachment.from, attachment.end, attachment.truncated]).toEqual([4, 12, true]);
    await nextTurn();
    expect(client.chunks).toEqual([{ offset: 4, bytes: bytesOf('efghijkl') }]);
    // `from` exactly at the ring start is not truncated.
    expect(session.attach(new RecordingClient(), { from: 4 }).truncated).toBe(false);
  });

  it('from = end sends nothing old, only what comes next', async () => {
    const { session, pty } = start();
    pty.emitData('old');
    const client = new RecordingClient();
    expect(session.attach(client, { from: 3 })).toMatchObject({ from: 3, end: 3, truncated: false });
    await nextTurn();
    expect(client.chunks).toEqual([]);
    pty.emitData('new');
    expect(client.chunks).toEqual([{ offset: 3, bytes: bytesOf('new') }]);
  });

  it('refuses a `from` past the end, negative or not an integer (bad-request) and attaches nothing', () => {
    const { session, pty } = start();
    pty.emitData('abc');
    for (const from of [4, 1e9, -1, 1.5, Number.NaN, Infinity]) {
      let error: unknown;
      try {
        session.attach(new RecordingClient(), { from });
      } catch (caught) {
        error = caught;
      }
      expect(error, String(from)).toBeInstanceOf(WorkspaceError);
      expect((error as WorkspaceError).code).toBe('bad-request');
    }
    expect(() => session.attach(new RecordingClient(), { from: 4 })).toThrow('from must be an offset between 0 and 3, not 4');
  });

  it('delivers every byte exactly once across a detach and a reattach from where the client stopped', async () => {
    const { session, pty } = start(4096);
    const all: Uint8Array[] = [];
    const emit = (text: string) => {
      all.push(bytesOf(text));
      pty.emitData(text);
    };
    const first = new RecordingClient();
    const attachment = session.attach(first);
    await nextTurn();
    for (let i = 0; i < 50; i++) emit(`line ${i}\r\n`);
    attachment.detach();
    for (let i = 50; i < 100; i++) emit(`line ${i}\r\n`); // while nobody is attached
    const second = new RecordingClient();
    expect(session.attach(second, { from: first.cursor })).toMatchObject({ from: first.cursor, truncated: false });
    await nextTurn();
    for (let i = 100; i < 150; i++) emit(`line ${i}\r\n`);
    expect(second.contiguousFrom(first.cursor)).toBe(true);
    expect(concat([first.received(), second.received()])).toEqual(concat(all));
  });

  it('after a detach nothing more reaches the client', async () => {
    const { session, pty } = start();
    const client = new RecordingClient();
    const attachment = session.attach(client);
    await nextTurn();
    attachment.detach();
    pty.emitData('after');
    pty.emitExit(0);
    expect(client.chunks).toEqual([]);
    expect(client.exits).toEqual([]);
  });

  it('a client detached before its delivery started receives nothing', async () => {
    const { session, pty } = start();
    pty.emitData('abc');
    const client = new RecordingClient();
    session.attach(client).detach();
    await nextTurn();
    expect(client.chunks).toEqual([]);
  });

  it('sends the exit once, after the last byte; an exited session still replays, then exits', async () => {
    const { session, pty } = start();
    const live = new RecordingClient();
    session.attach(live);
    await nextTurn();
    pty.emitData('done\r\n');
    pty.emitExit(7);
    expect(decode(live.received())).toBe('done\r\n');
    expect(live.exits).toEqual([7]);
    expect(await session.exited).toEqual({ code: 7 });

    const late = new RecordingClient();
    expect(session.attach(late)).toMatchObject({ from: 0, end: 6, truncated: false });
    await nextTurn();
    expect(decode(late.received())).toBe('done\r\n');
    expect(late.exits).toEqual([7]);
    const atEnd = new RecordingClient();
    session.attach(atEnd, { from: 6 });
    await nextTurn();
    expect([atEnd.chunks, atEnd.exits]).toEqual([[], [7]]);
  });

  it('a slow client gets the exit only after it has been sent everything', async () => {
    const { session, pty } = start();
    const client = new RecordingClient();
    client.allowance = 0;
    const attachment = session.attach(client);
    await nextTurn();
    pty.emitData('tail');
    pty.emitExit(0);
    expect(client.exits).toEqual([]);
    client.allowance = Infinity;
    attachment.drained();
    expect(decode(client.received())).toBe('tail');
    expect(client.exits).toEqual([0]);
  });

  describe('with utf8 (the protocol carries text)', () => {
    it('never cuts a character across two sends, and keeps offsets in bytes', async () => {
      const { session, pty } = start();
      const client = new RecordingClient();
      session.attach(client, { utf8: true });
      await nextTurn();
      const euro = bytesOf('€'); // e2 82 ac
      pty.emitData(concat([bytesOf('a'), euro.subarray(0, 1)]));
      pty.emitData(euro.subarray(1, 2));
      pty.emitData(concat([euro.subarray(2), bytesOf('b')]));
      expect(client.chunks.map((chunk) => [chunk.offset, decode(chunk.bytes)])).toEqual([
        [0, 'a'],
        [1, '€b'],
      ]);
    });

    it('a replay is cut at characters too, and a partial character at the exit is sent as it is', async () => {
      const { session, pty } = start();
      pty.emitData(concat([bytesOf('日本'), bytesOf('語').subarray(0, 2)]));
      const client = new RecordingClient();
      session.attach(client, { utf8: true, from: 0 });
      await nextTurn();
      expect(client.chunks.map((chunk) => [chunk.offset, decode(chunk.bytes)])).toEqual([[0, '日本']]);
      pty.emitExit(0);
      expect(client.chunks.map((chunk) => [chunk.offset, chunk.bytes.length])).toEqual([
        [0, 6],
        [6, 2],
      ]);
      expect(client.exits).toEqual([0]);
    });

    it('without utf8, chunks go out as the pty produced them', async () => {
      const { session, pty } = start();
      const client = new RecordingClient();
      session.attach(client);
      await nextTurn();
      pty.emitData(new Uint8Array([0x41, 0xe2]));
      expect(client.chunks).toEqual([{ offset: 0, bytes: new Uint8Array([0x41, 0xe2]) }]);
    });
  });

  describe('for code: follow, text, waitForOutput', () => {
    it('follow replays from the ring start (or `from`) and then every chunk as it comes, until unsubscribed', () => {
      const { session, pty } = start();
      pty.emitData('abc');
      const seen: [number, string][] = [];
      const stop = session.follow((bytes, offset) => seen.push([offset, decode(bytes)]));
      const fromOne: [number, string][] = [];
      session.follow((bytes, offset) => fromOne.push([offset, decode(bytes)]), { from: 1 });
      pty.emitData('de');
      stop();
      pty.emitData('f');
      expect(seen).toEqual([
        [0, 'abc'],
        [3, 'de'],
      ]);
      expect(fromOne).toEqual([
        [1, 'bc'],
        [3, 'de'],
        [5, 'f'],
      ]);
    });

    it('a follower that throws is unsubscribed; clients and other followers still get the output', async () => {
      const { session, pty } = start();
      const client = new RecordingClient();
      session.attach(client);
      await nextTurn();
      const seen: string[] = [];
      const errors = vi.spyOn(console, 'error').mockImplementation(() => {});
      let calls = 0;
      session.follow(() => {
        calls++;
        throw new Error('boom');
      });
      session.follow((bytes) => seen.push(decode(bytes)));
      pty.emitData('a');
      pty.emitData('b');
      expect([calls, seen, decode(client.received())]).toEqual([1, ['a', 'b'], 'ab']);
      expect(errors).toHaveBeenCalledTimes(1);
      errors.mockRestore();
    });

    it('follow never pauses the program (no flow control for code)', () => {
      const { session, pty } = start(16);
      session.follow(() => {});
      pty.emitData('x'.repeat(100));
      expect(pty.flow).toEqual([]);
    });

    it('text is the ring as text', () => {
      const { session, pty } = start(8);
      pty.emitData('hello, world');
      expect(session.text()).toBe('o, world');
    });

    it('waitForOutput resolves with the output once a string or pattern appears, from the start or `from`', async () => {
      const { session, pty } = start();
      pty.emitData('starting\r\n');
      expect(await session.waitForOutput('start')).toBe('starting\r\n');
      const ready = session.waitForOutput(/listening on :(\d+)/);
      pty.emitData('listening on :80');
      pty.emitData('81\r\n');
      expect(await ready).toBe('starting\r\nlistening on :80'); // the text up to the chunk that matched
      await expect(session.waitForOutput('starting', { from: 10, timeoutMs: 30 })).rejects.toThrow(
        "no starting in x's output within 30 ms",
      );
    });

    it('waitForOutput finds output printed before the call, also after the exit; a /g pattern matches every time', async () => {
      const { session, pty } = start();
      pty.emitData('ready\r\n');
      pty.emitExit(0);
      const pattern = /ready/g;
      expect(await session.waitForOutput(pattern)).toBe('ready\r\n');
      expect(await session.waitForOutput(pattern)).toBe('ready\r\n');
      await expect(session.waitForOutput('missing')).rejects.toThrow('x exited without printing missing');
    });

    it('waitForOutput finds a string split across chunks, and one split across a multi-byte character', async () => {
      const { session, pty } = start();
      const split = session.waitForOutput('server ready');
      pty.emitData('... server re');
      pty.emitData('ady');
      expect(await split).toBe('... server ready');
      const euro = bytesOf('price: 5€');
      const waiting = session.waitForOutput('5€', { from: session.info().end });
      pty.emitData(euro.subarray(0, euro.length - 1));
      pty.emitData(euro.subarray(euro.length - 1));
      expect(await waiting).toBe('price: 5€');
    });

    it('waitForOutput keeps at most a ring of text while it waits', async () => {
      const { session, pty } = start(8);
      const waiting = session.waitForOutput('READY');
      for (let i = 0; i < 100; i++) pty.emitData('noise ');
      pty.emitData('READY');
      expect(await waiting).toBe('se READY'); // the last 8 characters
    });

    it('waitForOutput rejects when the program exits without printing the pattern', async () => {
      const { session, pty } = start();
      const waiting = session.waitForOutput('ready');
      pty.emitData('crashed\r\n');
      pty.emitExit(1);
      await expect(waiting).rejects.toThrow('x exited without printing ready');
    });
  });
});
