/**
 * The manager over real ptys (NodePtyAdapter): what other engines rely on when they start their work in a
 * named session from code — one `start` call, then await its output or its exit code — and that killing
 * a session leaves no process behind.
 */
import { mkdir, mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { NodePtyAdapter } from '../../../adapters/pty/node-pty-adapter.ts';
import { createTerminalManager } from '../../../core/terminals/create-terminal-manager.ts';
import type { TerminalManager } from '../../../core/terminals/terminal-manager.ts';
import { isRunning, processesInSession, waitFor, usePlainShell } from '../../support/processes.ts';
import { RecordingClient } from '../../support/terminals.ts';

/**
 * Node-pty on Linux can lose the last few KiB a program writes if it exits before they are read (the kernel
 * drops what is still queued when the pty hangs up; microsoft/node-pty#726). Tests that check an exact long
 * output therefore keep the program alive with `read` until its output has arrived, then let it exit.
 */
const HOLD_OPEN = 'read _hold';

/** `seq 1 n` as a pty shows it (onlcr turns each newline into CR LF). */
const seqOutput = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => `${from + i}\r\n`).join('');

describe('terminal manager (real ptys)', () => {
  let root: string;
  let ptys: NodePtyAdapter;
  let terminals: TerminalManager;

  usePlainShell();

  beforeEach(async () => {
    root = await realpath(await mkdtemp(join(tmpdir(), 'wsapi-terminals-')));
    ptys = new NodePtyAdapter();
    terminals = createTerminalManager(ptys, { ringBytes: 1024 * 1024, maxSessions: 16, reapMs: 60_000, stallMs: 10_000 });
  });

  afterEach(async () => {
    await terminals.closeAll();
    await ptys.killAll();
    await rm(root, { recursive: true, force: true });
  });

  it('starts a command from code in one call; its output and exit code can be awaited', async () => {
    await mkdir(join(root, 'pkg'));
    const session = terminals.start({ name: 'install', command: 'echo "installing in $(pwd)"; exit 3', cwd: join(root, 'pkg') });
    expect(await session.waitForOutput(/installing in (\S+)/, { timeoutMs: 5000 })).toContain(`installing in ${join(root, 'pkg')}`);
    expect(await session.exited).toEqual({ code: 3 });
    expect(session.info()).toMatchObject({ name: 'install', command: 'echo "installing in $(pwd)"; exit 3', cwd: join(root, 'pkg'), running: false, exitCode: 3 });
  });

  it('gives the program a terminal: TERM, COLORTERM, the size asked for, a tty on stdin', async () => {
    const session = terminals.start({
      name: 'env',
      command: 'echo "term=$TERM color=$COLORTERM size=$(stty size) tty=$(test -t 0 && echo yes)"',
      cwd: root,
      cols: 132,
      rows: 43,
    });
    await session.exited;
    expect(session.text()).toBe('term=xterm-256color color=truecolor size=43 132 tty=yes\r\n');
  });

  it('keeps the whole output in the ring with absolute offsets, follow sees every byte once, text is the ring', async () => {
    const session = terminals.start({ name: 'seq', command: `seq 1 20000; ${HOLD_OPEN}`, cwd: root });
    const followed: { offset: number; bytes: Uint8Array }[] = [];
    session.follow((bytes, offset) => followed.push({ offset, bytes: bytes.slice() }));
    await session.waitForOutput('\n20000\r\n', { timeoutMs: 10_000 });
    session.write('\n'); // echoed as CR LF
    expect(await session.exited).toEqual({ code: 0 });
    const expected = seqOutput(1, 20000) + '\r\n';
    expect(session.text()).toBe(expected);
    expect(session.info()).toMatchObject({ start: 0, end: expected.length });
    let at = 0;
    for (const chunk of followed) {
      expect(chunk.offset).toBe(at);
      at += chunk.bytes.length;
    }
    expect(Buffer.concat(followed.map((chunk) => chunk.bytes)).toString()).toBe(expected);
  });

  it('an interactive session takes input and answers it; waitForOutput from an offset ignores what came before', async () => {
    const session = terminals.start({ name: 'sh', cwd: root });
    session.write('echo ready-$((40+2))\n');
    await session.waitForOutput('ready-42', { timeoutMs: 5000 });
    const mark = session.info().end;
    session.write('echo again-$((1+1))\n');
    const text = await session.waitForOutput(/again-2\r\n/, { from: mark, timeoutMs: 5000 });
    expect(text).not.toContain('ready-42');
  });

  it('a client that detaches and reattaches from where it stopped sees every byte exactly once', async () => {
    const session = terminals.start({ name: 'phases', cwd: root });
    const first = new RecordingClient();
    const attachment = session.attach(first);
    // The markers are computed by the shell, so the echo of the typed line cannot match them.
    session.write('seq 1 3000; echo phase-$((0+1))-done\n');
    await waitFor(() => new TextDecoder().decode(first.received()).includes('phase-1-done\r\n'), { what: 'phase one' });
    attachment.detach();
    session.write('seq 3001 6000; echo phase-$((1+1))-done\n'); // while nobody is attached
    await session.waitForOutput('phase-2-done\r\n', { from: first.cursor, timeoutMs: 5000 });
    const second = new RecordingClient();
    expect(session.attach(second, { from: first.cursor })).toMatchObject({ from: first.cursor, truncated: false });
    session.write('exit\n');
    await session.exited;
    await waitFor(() => second.exits.length === 1, { what: 'the exit to reach the second client' });
    expect(second.contiguousFrom(first.cursor)).toBe(true);
    const ring = (session as unknown as { ring: { read(): Uint8Array } }).ring.read();
    expect(Buffer.compare(Buffer.concat([first.received(), second.received()]), ring)).toBe(0);
    expect(session.text()).toContain(seqOutput(1, 3000) + 'phase-1-done\r\n');
    expect(session.text()).toContain(seqOutput(3001, 6000) + 'phase-2-done\r\n');
  });

  it('kill ends the whole session: the shell and a background job in a process group of its own', async () => {
    const session = terminals.start({ name: 'jobs', cwd: root });
    session.write('sleep 1000 &\n');
    const [sleeper] = await waitFor(() => {
      const found = processesInSession(session.pid, 'sleep');
      return found.length === 1 ? found : undefined;
    }, { what: 'the background sleep' });
    await session.kill();
    expect(isRunning(session.pid)).toBe(false);
    expect(isRunning(sleeper!)).toBe(false);
    expect(await session.exited).toEqual({ code: null });
    expect(terminals.list().map((info) => [info.name, info.running])).toEqual([['jobs', false]]); // kept until removed or reaped
  });

  it('a job the shell left behind at its exit dies when the session is killed, removed or reaped', async () => {
    // `set -m` gives the job a process group of its own: the hang-up at the shell's exit does not reach it.
    for (const end of ['kill', 'remove', 'reap'] as const) {
      const manager = end === 'reap' ? createTerminalManager(ptys, { ringBytes: 65536, maxSessions: 16, reapMs: 50, stallMs: 10_000 }) : terminals;
      const session = manager.start({ name: `left-${end}`, cwd: root });
      session.write('set -m; sleep 4321 & exit\n');
      expect(await session.exited).toEqual({ code: 0 });
      const [sleeper] = processesInSession(session.pid, 'sleep');
      expect(sleeper, 'the job outlived its shell').toBeDefined();
      if (end === 'kill') await session.kill();
      else if (end === 'remove') expect(await manager.remove(`left-${end}`)).toBe(true);
      else await waitFor(() => manager.get(`left-${end}`) === undefined, { what: 'the reaper' });
      await waitFor(() => !isRunning(sleeper!), { what: `the job to die at the ${end}` });
    }
  });

  it('an unnamed session dies with its client, processes and all', async () => {
    const session = terminals.start({ cwd: root });
    const attachment = session.attach(new RecordingClient());
    session.write('sleep 1001 &\n');
    const [sleeper] = await waitFor(() => {
      const found = processesInSession(session.pid, 'sleep');
      return found.length === 1 ? found : undefined;
    }, { what: 'the background sleep' });
    attachment.detach();
    await session.exited;
    await waitFor(() => !isRunning(sleeper!) && !isRunning(session.pid), { what: 'the unnamed session to be gone' });
  });

  it('closeAll kills every session', async () => {
    const sessions = [terminals.start({ name: 'a', command: 'sleep 1000', cwd: root }), terminals.start({ name: 'b', cwd: root }), terminals.start({ cwd: root })];
    await terminals.closeAll();
    for (const session of sessions) expect(isRunning(session.pid)).toBe(false);
    expect(terminals.list()).toEqual([]);
    expect(ptys.liveCount).toBe(0);
  });

  it('pausing for a slow client blocks the program instead of growing memory; it runs on once the client reads', async () => {
    const small = createTerminalManager(ptys, { ringBytes: 64 * 1024, maxSessions: 4, reapMs: 60_000, stallMs: 60_000 });
    try {
      const session = small.start({ name: 'flood', command: `seq 1 100000; echo flood-done; ${HOLD_OPEN}`, cwd: root });
      const client = new RecordingClient();
      client.allowance = 0;
      const attachment = session.attach(client);
      // The program blocks on the full pty: output stops a little past half the ring.
      await waitFor(() => session.info().end > 32 * 1024, { what: 'output up to the pause' });
      await new Promise((resolve) => setTimeout(resolve, 200));
      const stalled = session.info().end;
      // (Messages carry the figures: this failed once in a loaded full run, without them.)
      expect(stalled, `output end after the pause: ${stalled}`).toBeLessThan(64 * 1024 + 64 * 1024); // half a ring + what was in flight, not the ~690 KB the program has to write
      expect(session.running, 'the program still runs, blocked').toBe(true);
      // Now read as fast as it comes.
      client.allowance = Infinity;
      attachment.drained();
      const timer = setInterval(() => attachment.drained(), 5);
      try {
        await session.waitForOutput('flood-done\r\n', { timeoutMs: 10_000 }).catch((error: Error) => {
          throw new Error(`${error.message} (output end ${session.info().end}, received ${client.received().length}, running ${session.running})`);
        });
        session.write('\n');
        await session.exited;
        await waitFor(() => client.exits.length === 1, { what: 'the exit' });
      } finally {
        clearInterval(timer);
      }
      expect(client.contiguousFrom(0)).toBe(true);
      expect(new TextDecoder().decode(client.received())).toBe(seqOutput(1, 100000) + 'flood-done\r\n\r\n');
    } finally {
      await small.closeAll();
    }
  });
});
