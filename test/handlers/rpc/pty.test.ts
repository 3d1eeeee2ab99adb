import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { NodePtyAdapter } from '../../../adapters/pty/node-pty-adapter.ts';
import type { TerminalSession } from '../../../core/terminals/terminal-manager.ts';
import type { NodeServer } from '../../../runtime/node/server.ts';
import type { SocketOpenHandler } from '../../../runtime/websocket.ts';
import { isRunning, waitFor } from '../../support/processes.ts';
import { ptyExits, ptyOutputs, ptyText, waitForPtyText, type PtyOutput } from '../../support/pty-events.ts';
import { RpcClient, startTestServer } from '../../support/rpc-client.ts';
import { bytesOf, FakeSocket } from '../../support/terminals.ts';
import { nodeApp, request, tempWorkspace, type TempWorkspace } from '../../support/workspace.ts';

/**
 * Most sessions run dash: an interactive bash here sources a .bashrc that runs `pyenv init` (~0.8 s a shell on
 * this machine). The default shell (a login $SHELL) is exercised where it is the subject.
 */
const SH = { shell: '/bin/sh' };

/** One past the last byte this client was sent of the session: where a reconnect resumes. */
function receivedEnd(client: RpcClient, sessionId: string): number {
  const last = ptyOutputs(client, sessionId).at(-1);
  return last ? last.offset + last.length : 0;
}

/** Each event starts where the previous one ended; for UTF-8 output, `length` is the bytes of `data`. */
function expectContiguous(outputs: PtyOutput[], from: number): void {
  let at = from;
  for (const output of outputs) {
    expect(output.offset).toBe(at);
    expect(output.length).toBe(bytesOf(output.data).length);
    at += output.length;
  }
}

describe('/ws terminals: pty_spawn, pty_write, pty_resize, pty_kill, pty_attach, pty_detach', () => {
  let workspace: TempWorkspace;
  let server: NodeServer;
  let client: RpcClient;
  const extraClients: RpcClient[] = [];

  beforeAll(async () => {
    workspace = await tempWorkspace({ 'sub/inner/keep.txt': 'x', 'plain.txt': 'not a folder' });
    server = await startTestServer(workspace.root);
    client = await RpcClient.connect(server);
  });

  afterEach(async () => {
    await Promise.all(extraClients.splice(0).map((other) => other.close()));
  });

  afterAll(async () => {
    await client.close();
    await server.close();
    await workspace.cleanup();
  });

  async function connect(): Promise<RpcClient> {
    const other = await RpcClient.connect(server);
    extraClients.push(other);
    return other;
  }

  function session(id: string): TerminalSession {
    const found = server.terminals?.get(id);
    if (!found) throw new Error(`no session ${id}`);
    return found;
  }

  /** Waits until `clients` have been sent everything the session has produced, and it has stopped producing. */
  async function settled(id: string, clients: RpcClient[]): Promise<number> {
    let previous = -1;
    return waitFor(
      () => {
        const end = session(id).info().end;
        const caughtUp = clients.every((each) => receivedEnd(each, id) === end);
        const stable = end === previous;
        previous = end;
        return caughtUp && stable && end;
      },
      { intervalMs: 50, what: `${id}'s output to settle` },
    );
  }

  describe('pty_spawn and output', () => {
    it('answers {id, pid}; events carry contiguous byte offsets from 0 and their data joined is the ring', async () => {
      const reply = await client.call('pty_spawn', { sessionId: 'spawned' });
      expect(reply).toEqual({ id: reply.id, ok: true, result: { id: 'spawned', pid: expect.any(Number) } });
      const { pid } = reply.result as { pid: number };
      expect(isRunning(pid)).toBe(true);
      expect(session('spawned').pid).toBe(pid);
      await client.ok('pty_write', { sessionId: 'spawned', data: 'seq 1 3000; echo "end-$((6*7))"\n' });
      await waitForPtyText(client, 'spawned', 'end-42');
      await settled('spawned', [client]);
      const outputs = ptyOutputs(client, 'spawned');
      expect(outputs.length).toBeGreaterThan(1);
      expectContiguous(outputs, 0);
      for (const output of outputs) expect(Object.keys(output).sort()).toEqual(['data', 'length', 'offset', 'session_id']);
      expect(outputs.map((output) => output.data).join('')).toBe(session('spawned').text());
      expect(session('spawned').info()).toMatchObject({ start: 0, running: true, cwd: workspace.root, command: null });
      await client.ok('pty_kill', { sessionId: 'spawned' });
      expect(isRunning(pid)).toBe(false);
    });

    it('never splits a multi-byte character across events, though the pty’s own reads do', async () => {
      await client.ok('pty_spawn', { sessionId: 'utf8', ...SH });
      // Where the pty's reads cut characters: the case this test is about must actually happen.
      let rawSplits = 0;
      const stop = session('utf8').follow((bytes, offset) => {
        if (offset > 0 && (bytes[0]! & 0xc0) === 0x80) rawSplits++;
      });
      // "日本é\r\n" is 10 bytes (3 + 3 + 2 + CR LF); typed as octal escapes so no shell has to read UTF-8 input.
      const line = "$(printf '\\346\\227\\245\\346\\234\\254\\303\\251')";
      // Where the reads end is up to the kernel and the load (on a busy machine they come coalesced, and one round
      // of 300 KB can happen to end each read between characters): print rounds until a read has cut one.
      let text = '';
      for (let round = 1; round <= 10 && rawSplits === 0; round++) {
        await client.ok('pty_write', { sessionId: 'utf8', data: `yes "${line}" | head -n 30000; echo "utf8-$((3*3))-${round}"\n` });
        text = await waitForPtyText(client, 'utf8', `utf8-9-${round}`, { timeoutMs: 20_000 });
      }
      stop();
      expect(rawSplits).toBeGreaterThan(0);
      expect(text).toContain('日本é\r\n'.repeat(30000));
      const outputs = ptyOutputs(client, 'utf8');
      for (const output of outputs) expect(output.data).not.toContain('\uFFFD');
      expectContiguous(outputs, 0);
      await client.ok('pty_kill', { sessionId: 'utf8' });
    });

    it('passes bytes that are not UTF-8 as U+FFFD, keeping the offsets in bytes', async () => {
      await client.ok('pty_spawn', { sessionId: 'lossy', ...SH });
      await client.ok('pty_write', { sessionId: 'lossy', data: "printf 'a\\377b-%s\\n' \"$((8*8))\"\n" });
      expect(await waitForPtyText(client, 'lossy', 'a\uFFFDb-64')).toContain('a\uFFFDb-64\r\n');
      await client.ok('pty_kill', { sessionId: 'lossy' });
    });

    it('gives programs TERM=xterm-256color and COLORTERM=truecolor', async () => {
      await client.ok('pty_spawn', { sessionId: 'env' });
      await client.ok('pty_write', { sessionId: 'env', data: "printf 'env=%s,%s\\n' \"$TERM\" \"$COLORTERM\"\n" });
      expect(await waitForPtyText(client, 'env', /env=[\w-]+,\w*\r\n/)).toContain('env=xterm-256color,truecolor\r\n');
      await client.ok('pty_kill', { sessionId: 'env' });
    });

    it('runs the given shell, at the given size; pty_resize changes it', async () => {
      await client.ok('pty_spawn', { sessionId: 'sized', shell: '/bin/sh', cols: 100, rows: 30 });
      await client.ok('pty_write', { sessionId: 'sized', data: 'echo "size=$(stty size) shell=$0"\n' });
      expect(await waitForPtyText(client, 'sized', /size=\d+ \d+ shell=.*\r\n/)).toContain('size=30 100 shell=/bin/sh\r\n');
      const seen = client.events.length;
      const resized = await client.call('pty_resize', { sessionId: 'sized', cols: 132, rows: 43 });
      expect(resized).toEqual({ id: resized.id, ok: true, result: null });
      await client.ok('pty_write', { sessionId: 'sized', data: 'echo "now=$(stty size)"\n' });
      expect(await waitForPtyText(client, 'sized', /now=\d+ \d+\r\n/, { since: seen })).toContain('now=43 132\r\n');
      await client.ok('pty_kill', { sessionId: 'sized' });
    });

    describe('cwd', () => {
      it('starts in a folder inside the root, absolute or relative', async () => {
        for (const [id, cwd] of [
          ['cwd-abs', join(workspace.root, 'sub', 'inner')],
          ['cwd-rel', 'sub/inner'],
        ] as const) {
          await client.ok('pty_spawn', { sessionId: id, ...SH, cwd });
          await client.ok('pty_write', { sessionId: id, data: 'echo "cwd=$(pwd)"\n' });
          expect(await waitForPtyText(client, id, /cwd=\//)).toContain(`cwd=${join(workspace.root, 'sub', 'inner')}\r\n`);
          expect(session(id).info().cwd).toBe(join(workspace.root, 'sub', 'inner'));
          await client.ok('pty_kill', { sessionId: id });
        }
      });

      it('refuses a folder outside the root, a missing one and a file, starting nothing', async () => {
        const outside = await client.call('pty_spawn', { sessionId: 'cwd-out', ...SH, cwd: '/' });
        expect(outside).toEqual({ id: outside.id, ok: false, error: 'path is outside the workspace' });
        expect(await client.call('pty_spawn', { sessionId: 'cwd-out', ...SH, cwd: '../' })).toMatchObject({ error: 'path is outside the workspace' });
        const missing = await client.call('pty_spawn', { sessionId: 'cwd-out', ...SH, cwd: 'sub/nope' });
        expect(missing).toEqual({ id: missing.id, ok: false, error: 'no such folder: sub/nope' });
        const file = await client.call('pty_spawn', { sessionId: 'cwd-out', ...SH, cwd: 'plain.txt' });
        expect(file).toEqual({ id: file.id, ok: false, error: 'not a folder: plain.txt' });
        expect(server.terminals?.get('cwd-out')).toBeUndefined();
      });
    });

    it('refuses a malformed session id', async () => {
      const reply = await client.call('pty_spawn', { sessionId: '../x' });
      expect(reply).toEqual({
        id: reply.id,
        ok: false,
        error: "invalid arg 'sessionId': a session id is 1–128 of letters, digits, '.', '_', '-'",
      });
    });
  });

  describe('unknown and exited sessions', () => {
    it('every command on an unknown session answers `Session X not found`', async () => {
      const calls: [string, Record<string, unknown>][] = [
        ['pty_write', { sessionId: 'ghost', data: 'x' }],
        ['pty_resize', { sessionId: 'ghost', cols: 80, rows: 24 }],
        ['pty_kill', { sessionId: 'ghost' }],
        ['pty_attach', { sessionId: 'ghost' }],
        ['pty_detach', { sessionId: 'ghost' }],
      ];
      for (const [command, args] of calls) {
        const reply = await client.call(command, args);
        expect(reply).toEqual({ id: reply.id, ok: false, error: 'Session ghost not found' });
      }
    });

    it('pty_write after the exit answers `Session X has exited`; pty_resize and pty_kill are no-ops', async () => {
      await client.ok('pty_spawn', { sessionId: 'gone', ...SH });
      await client.ok('pty_write', { sessionId: 'gone', data: 'exit 3\n' });
      await waitFor(() => ptyExits(client, 'gone').length > 0, { what: 'the exit' });
      const write = await client.call('pty_write', { sessionId: 'gone', data: 'echo hi\n' });
      expect(write).toEqual({ id: write.id, ok: false, error: 'Session gone has exited' });
      expect(await client.call('pty_resize', { sessionId: 'gone', cols: 90, rows: 20 })).toMatchObject({ ok: true, result: null });
      expect(await client.call('pty_kill', { sessionId: 'gone' })).toMatchObject({ ok: true, result: null });
      expect(ptyExits(client, 'gone')).toEqual([{ session_id: 'gone', code: 3 }]);
    });

    it('pty_spawn of a running id is `Session X already exists`; of an exited one replaces it', async () => {
      const first = (await client.ok('pty_spawn', { sessionId: 'again', ...SH })) as { pid: number };
      const taken = await client.call('pty_spawn', { sessionId: 'again', ...SH });
      expect(taken).toEqual({ id: taken.id, ok: false, error: 'Session again already exists' });
      expect(session('again').pid).toBe(first.pid);
      await client.ok('pty_write', { sessionId: 'again', data: 'echo "old-$((1+1))"; exit 4\n' });
      await waitFor(() => ptyExits(client, 'again').length > 0, { what: 'the first exit' });
      const seen = client.events.length;
      const second = (await client.ok('pty_spawn', { sessionId: 'again', ...SH })) as { pid: number };
      expect(second.pid).not.toBe(first.pid);
      await client.ok('pty_write', { sessionId: 'again', data: 'echo "new-$((2+2))"\n' });
      await waitForPtyText(client, 'again', 'new-4', { since: seen });
      expect(ptyOutputs(client, 'again', seen)[0]?.offset).toBe(0);
      expect(session('again').text()).not.toContain('old-2');
      expect(session('again').running).toBe(true);
      await client.ok('pty_kill', { sessionId: 'again' });
    });
  });

  it('two pty_spawn of one exited id at once: one replaces it, the other is `Session X already exists`', async () => {
    await client.ok('pty_spawn', { sessionId: 'race', ...SH });
    await client.ok('pty_write', { sessionId: 'race', data: 'exit 0\n' });
    await waitFor(() => ptyExits(client, 'race').length > 0, { what: 'the exit' });
    // Sent together, both usually arrive in one read: the second checks for the old session while the first
    // is still removing it.
    const replies = await Promise.all([client.call('pty_spawn', { sessionId: 'race', ...SH }), client.call('pty_spawn', { sessionId: 'race', ...SH })]);
    const won = replies.filter((reply) => reply.ok);
    expect(won).toEqual([{ id: expect.any(Number), ok: true, result: { id: 'race', pid: session('race').pid } }]);
    expect(replies.filter((reply) => !reply.ok)).toEqual([{ id: expect.any(Number), ok: false, error: 'Session race already exists' }]);
    await client.ok('pty_kill', { sessionId: 'race' });
  });

  describe('input to a program that does not read it', () => {
    it('is held up to 1 MiB, then pty_write is refused with a clear error; the session runs on', async () => {
      await client.ok('pty_spawn', { sessionId: 'deaf', ...SH });
      await client.ok('pty_write', { sessionId: 'deaf', data: 'stty -icanon -echo; echo "ready-$((2*3))"; sleep 1000\n' });
      await waitForPtyText(client, 'deaf', 'ready-6');
      const paste = 'x'.repeat(2 * 1024 * 1024);
      expect(await client.call('pty_write', { sessionId: 'deaf', data: paste })).toMatchObject({ ok: true, result: null });
      const refused = await client.call('pty_write', { sessionId: 'deaf', data: 'more' });
      expect(refused).toEqual({
        id: refused.id,
        ok: false,
        error: expect.stringMatching(/^terminal deaf is not reading its input \(\d+ bytes waiting\)$/),
      });
      expect(session('deaf').running).toBe(true);
      await client.ok('pty_kill', { sessionId: 'deaf' });
    });
  });

  describe('exactly one pty-exit per session per attached socket', () => {
    it('for `exit 3`: code 3 on the spawning socket and on an attached one', async () => {
      const other = await connect();
      await client.ok('pty_spawn', { sessionId: 'exit3', ...SH });
      await other.ok('pty_attach', { sessionId: 'exit3' });
      await client.ok('pty_write', { sessionId: 'exit3', data: 'exit 3\n' });
      await waitFor(() => ptyExits(client, 'exit3').length > 0 && ptyExits(other, 'exit3').length > 0, { what: 'both exits' });
      await new Promise((resolve) => setTimeout(resolve, 200)); // room for a duplicate to show up
      expect(ptyExits(client, 'exit3')).toEqual([{ session_id: 'exit3', code: 3 }]);
      expect(ptyExits(other, 'exit3')).toEqual([{ session_id: 'exit3', code: 3 }]);
      // the exit comes after the last output byte
      const lastEvent = other.events.filter((event) => (event.payload as { session_id?: string }).session_id === 'exit3').at(-1);
      expect(lastEvent?.event).toBe('pty-exit');
    });

    it('for pty_kill: code null, once on each socket, and the process group is gone when it answers', async () => {
      const other = await connect();
      const { pid } = (await client.ok('pty_spawn', { sessionId: 'killed', ...SH })) as { pid: number };
      await other.ok('pty_attach', { sessionId: 'killed' });
      await client.ok('pty_write', { sessionId: 'killed', data: 'sleep 1000 & echo "job=$!"\n' });
      const job = Number((await waitForPtyText(client, 'killed', /job=(\d+)\r\n/)).match(/job=(\d+)\r\n/)?.[1]);
      expect(isRunning(job)).toBe(true);
      const reply = await other.call('pty_kill', { sessionId: 'killed' });
      expect(reply).toEqual({ id: reply.id, ok: true, result: null });
      expect(isRunning(pid)).toBe(false);
      expect(isRunning(job)).toBe(false);
      await waitFor(() => ptyExits(client, 'killed').length > 0 && ptyExits(other, 'killed').length > 0, { what: 'both exits' });
      await client.ok('pty_kill', { sessionId: 'killed' }); // a second kill: no second exit
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(ptyExits(client, 'killed')).toEqual([{ session_id: 'killed', code: null }]);
      expect(ptyExits(other, 'killed')).toEqual([{ session_id: 'killed', code: null }]);
    });

    it('attaching twice on one socket replaces the attachment: still one stream and one exit', async () => {
      await client.ok('pty_spawn', { sessionId: 'twice', ...SH });
      await client.ok('pty_write', { sessionId: 'twice', data: 'echo "one-$((5+5))"\n' });
      await waitForPtyText(client, 'twice', 'one-10');
      const end = await settled('twice', [client]);
      const seen = client.events.length;
      const again = await client.call('pty_attach', { sessionId: 'twice', from: end });
      expect(again).toEqual({ id: again.id, ok: true, result: { pid: session('twice').pid, from: end, end, truncated: false } });
      await client.ok('pty_write', { sessionId: 'twice', data: 'exit 0\n' });
      await waitFor(() => ptyExits(client, 'twice').length > 0, { what: 'the exit' });
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(ptyExits(client, 'twice')).toEqual([{ session_id: 'twice', code: 0 }]);
      expectContiguous(ptyOutputs(client, 'twice', seen), end);
    });
  });

  describe('reconnecting', () => {
    it('a UI that loses its socket mid-stream and reattaches from its last offset sees every byte exactly once', async () => {
      // The program stops half-way (at `read`) until the test lets it go, so the socket is lost mid-stream whatever
      // the machine's speed, and the second half is written while no client is attached.
      const first = await connect();
      const { pid } = (await first.ok('pty_spawn', { sessionId: 'ui' })) as { pid: number };
      const program = 'for i in $(seq 1 3000); do echo "line-$i"; done; read _go; for i in $(seq 3001 6000); do echo "line-$i"; done; echo "fin-$((5*5))"';
      await first.ok('pty_write', { sessionId: 'ui', data: `${program}\n` });
      await waitForPtyText(first, 'ui', 'line-3000\r\n');
      await first.close();
      const resumeAt = receivedEnd(first, 'ui');
      expect(ptyText(first, 'ui')).not.toContain('fin-25'); // it was mid-stream
      expect(session('ui').running).toBe(true);

      const second = await connect();
      await second.ok('pty_write', { sessionId: 'ui', data: '\n' }); // the second half, while nobody is attached
      await waitFor(() => session('ui').text().includes('fin-25'), { what: "the program's second half" });
      const reply = await second.call('pty_attach', { sessionId: 'ui', from: resumeAt });
      expect(reply).toEqual({ id: reply.id, ok: true, result: { pid, from: resumeAt, end: expect.any(Number), truncated: false } });
      expect((reply.result as { end: number }).end).toBeGreaterThanOrEqual(resumeAt);
      await waitForPtyText(second, 'ui', 'fin-25');

      const fresh = await connect();
      const full = await fresh.call('pty_attach', { sessionId: 'ui', from: 0 });
      expect(full).toEqual({ id: full.id, ok: true, result: { pid, from: 0, end: expect.any(Number), truncated: false } });
      await settled('ui', [second, fresh]);
      expectContiguous(ptyOutputs(second, 'ui'), resumeAt);
      expectContiguous(ptyOutputs(fresh, 'ui'), 0);
      expect(ptyText(first, 'ui') + ptyText(second, 'ui')).toBe(ptyText(fresh, 'ui'));
      expect(ptyText(fresh, 'ui')).toBe(session('ui').text());
      expect(ptyText(fresh, 'ui').match(/line-3000\r\n/g)).toHaveLength(1);
      expect(ptyText(fresh, 'ui').match(/line-6000\r\n/g)).toHaveLength(1);
      await fresh.ok('pty_kill', { sessionId: 'ui' });
    });

    it('resumes exactly once after output that is not UTF-8 or holds a BOM: `length` counts bytes, not text', async () => {
      // 0xFF decodes to U+FFFD (3 bytes of UTF-8 for 1 byte of output): `data` alone cannot say where to resume.
      const first = await connect();
      await first.ok('pty_spawn', { sessionId: 'lossy', ...SH });
      await first.ok('pty_write', { sessionId: 'lossy', data: String.raw`printf '\377\377\357\273\277<'; read _go; printf 'tail-XYZ'` + '\n' });
      await waitForPtyText(first, 'lossy', '\ufffd\ufffd\ufeff<');
      await first.close();
      const resumeAt = receivedEnd(first, 'lossy');
      expect(session('lossy').info().end).toBe(resumeAt);
      const second = await connect();
      await second.ok('pty_attach', { sessionId: 'lossy', from: resumeAt });
      await second.ok('pty_write', { sessionId: 'lossy', data: '\n' });
      const rest = await waitForPtyText(second, 'lossy', 'tail-XYZ');
      // The echoed newline, then the tail (then the next prompt): nothing skipped, nothing twice.
      expect(rest.startsWith('\r\ntail-XYZ')).toBe(true);
      await second.ok('pty_kill', { sessionId: 'lossy' });
    });

    it('pty_attach with no from replays from the ring’s start; an exited session replays, then sends its pty-exit', async () => {
      await client.ok('pty_spawn', { sessionId: 'replay', ...SH });
      await client.ok('pty_write', { sessionId: 'replay', data: 'echo "hello-$((7*6))"; exit 5\n' });
      await waitFor(() => ptyExits(client, 'replay').length > 0, { what: 'the exit' });
      const other = await connect();
      const reply = await other.call('pty_attach', { sessionId: 'replay' });
      const end = session('replay').info().end;
      expect(reply).toEqual({ id: reply.id, ok: true, result: { pid: session('replay').pid, from: 0, end, truncated: false } });
      await waitFor(() => ptyExits(other, 'replay').length > 0, { what: 'the replayed exit' });
      expect(ptyText(other, 'replay')).toBe(ptyText(client, 'replay'));
      expect(ptyText(other, 'replay')).toContain('hello-42\r\n');
      expect(ptyExits(other, 'replay')).toEqual([{ session_id: 'replay', code: 5 }]);
      expect(other.events.at(-1)).toEqual({ event: 'pty-exit', payload: { session_id: 'replay', code: 5 } });
    });

    it('pty_attach from past the end is an error; from at the end sends only new output', async () => {
      await client.ok('pty_spawn', { sessionId: 'bounds', ...SH });
      await client.ok('pty_write', { sessionId: 'bounds', data: 'echo "x-$((1+2))"\n' });
      await waitForPtyText(client, 'bounds', 'x-3');
      const end = await settled('bounds', [client]);
      const other = await connect();
      const past = await other.call('pty_attach', { sessionId: 'bounds', from: end + 1 });
      expect(past).toEqual({ id: past.id, ok: false, error: `from must be an offset between 0 and ${end}, not ${end + 1}` });
      const atEnd = await other.call('pty_attach', { sessionId: 'bounds', from: end });
      expect(atEnd).toMatchObject({ ok: true, result: { from: end, end, truncated: false } });
      await client.ok('pty_write', { sessionId: 'bounds', data: 'echo "y-$((2+2))"\n' });
      await waitForPtyText(other, 'bounds', 'y-4');
      expect(ptyOutputs(other, 'bounds')[0]?.offset).toBe(end);
      expect(ptyText(other, 'bounds')).not.toContain('x-3\r\n');
      await client.ok('pty_kill', { sessionId: 'bounds' });
    });

    it('a from that fell out of the ring starts at the ring’s start and says truncated', async () => {
      const small = await startTestServer(workspace.root, { limits: { terminalRingBytes: 16 * 1024 } });
      try {
        const ui = await RpcClient.connect(small);
        await ui.ok('pty_spawn', { sessionId: 'ring', ...SH });
        await ui.ok('pty_write', { sessionId: 'ring', data: 'seq 1 20000; echo "ring-$((9*9))"\n' });
        await waitForPtyText(ui, 'ring', 'ring-81', { timeoutMs: 20_000 });
        const ring = small.terminals!.get('ring')!;
        const { start, end } = ring.info();
        expect(start).toBeGreaterThan(0);
        expect(end - start).toBeLessThanOrEqual(16 * 1024);
        const reply = await ui.call('pty_attach', { sessionId: 'ring', from: 10 });
        expect(reply).toMatchObject({ ok: true, result: { from: start, truncated: true } });
        await ui.close();
      } finally {
        await small.close();
      }
    });

    it('a from of the wrong type counts as absent (the protocol’s leniency): a replay from the start', async () => {
      await client.ok('pty_spawn', { sessionId: 'lenient-from', ...SH });
      for (const from of ['12', -1, 1.5, null]) {
        const reply = await client.call('pty_attach', { sessionId: 'lenient-from', from });
        expect(reply).toMatchObject({ ok: true, result: { from: 0, truncated: false } });
      }
      await client.ok('pty_kill', { sessionId: 'lenient-from' });
    });
  });

  describe('pty_detach', () => {
    it('stops this socket’s events; the session runs on and another attached socket still gets them', async () => {
      const watcher = await connect();
      await client.ok('pty_spawn', { sessionId: 'detach', ...SH });
      await watcher.ok('pty_attach', { sessionId: 'detach' });
      const detached = await client.call('pty_detach', { sessionId: 'detach' });
      expect(detached).toEqual({ id: detached.id, ok: true, result: null });
      const seen = client.events.length;
      await client.ok('pty_write', { sessionId: 'detach', data: 'echo "after-$((3+4))"\n' });
      await waitForPtyText(watcher, 'detach', 'after-7');
      await client.ok('pty_write', { sessionId: 'detach', data: 'exit 2\n' });
      await waitFor(() => ptyExits(watcher, 'detach').length > 0, { what: 'the exit on the other socket' });
      expect(client.events.slice(seen)).toEqual([]);
      expect(ptyExits(watcher, 'detach')).toEqual([{ session_id: 'detach', code: 2 }]);
      // detaching again, or without having attached, is fine
      expect(await client.call('pty_detach', { sessionId: 'detach' })).toMatchObject({ ok: true, result: null });
    });

    it('with no socket attached the session runs on, and a later attach gets what it printed meanwhile', async () => {
      await client.ok('pty_spawn', { sessionId: 'alone', ...SH });
      await client.ok('pty_detach', { sessionId: 'alone' });
      await client.ok('pty_write', { sessionId: 'alone', data: 'sleep 0.2; echo "meanwhile-$((6+6))"\n' });
      await waitFor(() => session('alone').text().includes('meanwhile-12'), { what: 'the output in the ring' });
      const other = await connect();
      await other.ok('pty_attach', { sessionId: 'alone' });
      await waitForPtyText(other, 'alone', 'meanwhile-12');
      await other.ok('pty_kill', { sessionId: 'alone' });
    });
  });

  it('a client that disconnects mid-flood: the session runs on, memory stays bounded, nothing throws', async () => {
    const flooder = await connect();
    await flooder.ok('pty_spawn', { sessionId: 'flood', ...SH });
    const flood = session('flood');
    const before = process.memoryUsage().rss;
    let peak = before;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 10);
    try {
      // `yes` through a pty runs at a few MB/s on this busy 2-core machine: 9 MB of output (`y\r\n`) keeps the
      // test to seconds; the ring is 1 MiB, so most of it passes after the client has gone.
      await flooder.ok('pty_write', { sessionId: 'flood', data: 'yes | head -c 6000000; echo "flood-$((4*4))"\n' });
      await waitFor(() => receivedEnd(flooder, 'flood') > 512 * 1024, { timeoutMs: 15_000, what: 'half a MiB on the socket' });
      flooder.ws.close();
      await flooder.closed;
      expect(flood.running).toBe(true);
      await waitFor(() => flood.info().end > 9_000_000, { timeoutMs: 30_000, intervalMs: 50, what: 'the flood to end' });
      await waitFor(() => flood.text().includes('flood-16'), { what: 'the marker' });
    } finally {
      clearInterval(sampler);
    }
    expect(flood.running).toBe(true);
    const { start, end } = flood.info();
    expect(end - start).toBeLessThanOrEqual(1024 * 1024);
    expect(peak - before).toBeLessThan(64 * 1024 * 1024);
    expect(await client.call('get_cwd')).toMatchObject({ ok: true, result: workspace.root });
    await client.ok('pty_kill', { sessionId: 'flood' });
  }, 60_000);

  describe('an exited session is let go of: reaped once idle (terminalReapMs), never held by a socket', () => {
    async function reaping(): Promise<NodeServer> {
      return startTestServer(workspace.root, { limits: { terminalReapMs: 100 } });
    }

    it('after its exit reached the spawning socket, whether that socket stays open or closes', async () => {
      const small = await reaping();
      try {
        const ui = await RpcClient.connect(small);
        for (const id of ['reap-open', 'reap-closed']) {
          await ui.ok('pty_spawn', { sessionId: id, ...SH });
          await ui.ok('pty_write', { sessionId: id, data: 'exit 0\n' });
          await waitFor(() => ptyExits(ui, id).length > 0, { what: `${id}'s exit` });
        }
        await ui.close();
        await waitFor(() => small.terminals!.list().length === 0, { timeoutMs: 3000, what: 'both sessions to be reaped' });
        const late = await RpcClient.connect(small);
        expect(await late.call('pty_attach', { sessionId: 'reap-open' })).toMatchObject({ ok: false, error: 'Session reap-open not found' });
        await late.close();
      } finally {
        await small.close();
      }
    });

    it('after pty_kill with two sockets attached', async () => {
      const small = await reaping();
      try {
        const [a, b] = await Promise.all([RpcClient.connect(small), RpcClient.connect(small)]);
        await a.ok('pty_spawn', { sessionId: 'reap-kill', ...SH });
        await b.ok('pty_attach', { sessionId: 'reap-kill' });
        await a.ok('pty_kill', { sessionId: 'reap-kill' });
        await waitFor(() => small.terminals!.list().length === 0, { timeoutMs: 3000, what: 'the session to be reaped' });
        await Promise.all([a.close(), b.close()]);
      } finally {
        await small.close();
      }
    });

    it('when the socket closed while its pty_spawn was still resolving the folder', async () => {
      const app = nodeApp(workspace.root, { pty: new NodePtyAdapter(), limits: { terminalReapMs: 50 } });
      let onOpen: SocketOpenHandler | undefined;
      const upgrade = (handler: SocketOpenHandler) => ((onOpen = handler), new Response(null, { status: 200 }));
      const upgradeHeaders = { upgrade: 'websocket', connection: 'Upgrade', 'sec-websocket-version': '13', 'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==' };
      await app.fetch(request('/ws', { headers: upgradeHeaders }), { upgrade });
      const socket = new FakeSocket();
      onOpen!(socket);
      socket.receiveText(JSON.stringify({ id: 1, command: 'pty_spawn', args: { sessionId: 'orphan', ...SH, cwd: 'sub' } }));
      socket.peerClosed(1006); // before the spawn's folder check has resolved
      const orphan = await waitFor(() => app.terminals!.get('orphan'), { what: 'the session to start' });
      expect(orphan.running).toBe(true); // a named session outlives its socket
      await orphan.kill();
      await waitFor(() => app.terminals!.get('orphan') === undefined, { timeoutMs: 3000, what: 'the orphan to be reaped' });
      expect(socket.sent).toEqual([]);
      await app.close();
    });
  });
});
