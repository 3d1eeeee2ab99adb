/**
 * The manager's bookkeeping over a fake pty: starting, naming, listing, caps, reaping, removal. Real ptys are
 * in terminal-manager-pty.test.ts; the flow control in flow-control.test.ts.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createTerminalManager } from '../../../core/terminals/create-terminal-manager.ts';
import type { TerminalManager, TerminalManagerOptions } from '../../../core/terminals/terminal-manager.ts';
import { WorkspaceError } from '../../../core/errors/workspace-error.ts';
import { waitFor } from '../../support/processes.ts';
import { FakePtyAdapter, RecordingClient, nextTurn } from '../../support/terminals.ts';

const CWD = '/work/space';
const HOUR = 60 * 60 * 1000;

function thrown(run: () => unknown): WorkspaceError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(WorkspaceError);
    return error as WorkspaceError;
  }
  throw new Error('expected a WorkspaceError');
}

describe('terminal manager (fake pty)', () => {
  let managers: TerminalManager[] = [];

  function setup(options: Partial<TerminalManagerOptions> = {}) {
    const ptys = new FakePtyAdapter(true);
    const terminals = createTerminalManager(ptys, { ringBytes: 1024, maxSessions: 8, reapMs: HOUR, stallMs: HOUR, ...options });
    managers.push(terminals);
    return { ptys, terminals };
  }

  afterEach(async () => {
    await Promise.all(managers.map((terminals) => terminals.closeAll()));
    managers = [];
  });

  describe('start', () => {
    it('runs a command through the shell, a named interactive session as a login shell, an unnamed one plainly', () => {
      const { ptys, terminals } = setup();
      terminals.start({ name: 'build', command: 'npm run build', cwd: CWD });
      terminals.start({ name: 'shell', cwd: CWD, cols: 120, rows: 40 });
      terminals.start({ cwd: CWD });
      terminals.start({ name: 'zsh', shell: '/bin/zsh', cwd: CWD, env: { FOO: 'bar' } });
      expect(ptys.spawned.map((spawned) => spawned.options)).toEqual([
        { args: ['-c', 'npm run build'], cwd: CWD, cols: 80, rows: 24, env: { COLORTERM: 'truecolor' }, maxChunkBytes: 4096 },
        { args: ['-l'], cwd: CWD, cols: 120, rows: 40, env: { COLORTERM: 'truecolor' }, maxChunkBytes: 4096 },
        { cwd: CWD, cols: 80, rows: 24, env: { COLORTERM: 'truecolor' }, maxChunkBytes: 4096 },
        { shell: '/bin/zsh', cwd: CWD, cols: 80, rows: 24, env: { COLORTERM: 'truecolor', FOO: 'bar' }, maxChunkBytes: 4096 },
      ]);
    });

    it('describes a new session exactly', () => {
      const { ptys, terminals } = setup();
      const session = terminals.start({ name: 'build', command: 'make', cwd: CWD });
      expect(session.name).toBe('build');
      expect(session.pid).toBe(ptys.last.pid);
      expect(session.running).toBe(true);
      expect(session.info()).toEqual({ name: 'build', pid: ptys.last.pid, command: 'make', cwd: CWD, running: true, exitCode: null, start: 0, end: 0 });
    });

    it('refuses a malformed name (bad-request, 400) and starts nothing', () => {
      const { ptys, terminals } = setup();
      for (const name of ['', '-x', '.x', '_x', 'a b', 'a/b', 'a:b', 'é', 'x'.repeat(129), 'a\n']) {
        const error = thrown(() => terminals.start({ name, cwd: CWD }));
        expect([error.code, error.status], JSON.stringify(name)).toEqual(['bad-request', 400]);
      }
      expect(ptys.spawned).toHaveLength(0);
      for (const name of ['a', 'A.b_c-9', '9lives', 'x'.repeat(128)]) terminals.start({ name, cwd: CWD });
      expect(terminals.list().map((info) => info.name)).toEqual(['a', 'A.b_c-9', '9lives', 'x'.repeat(128)]);
    });

    it('refuses a taken name (conflict, 409), also while the session has exited but is kept', async () => {
      const { ptys, terminals } = setup();
      terminals.start({ name: 'dev', cwd: CWD });
      const error = thrown(() => terminals.start({ name: 'dev', cwd: CWD }));
      expect([error.code, error.status, error.message]).toEqual(['conflict', 409, 'terminal dev already exists']);
      ptys.last.emitExit(0);
      expect(thrown(() => terminals.start({ name: 'dev', cwd: CWD })).code).toBe('conflict');
      expect(ptys.spawned).toHaveLength(1);
      await terminals.remove('dev');
      terminals.start({ name: 'dev', cwd: CWD }); // free again once removed
      expect(ptys.spawned).toHaveLength(2);
    });

    it('caps running sessions (too-many, 429), named and unnamed alike; exited ones do not count', async () => {
      const { ptys, terminals } = setup({ maxSessions: 2 });
      terminals.start({ name: 'a', cwd: CWD });
      terminals.start({ cwd: CWD });
      const error = thrown(() => terminals.start({ name: 'c', cwd: CWD }));
      expect([error.code, error.status, error.message]).toEqual(['too-many', 429, 'too many terminals running (the limit is 2)']);
      expect(ptys.spawned).toHaveLength(2);
      ptys.spawned[0]!.pty.emitExit(0);
      terminals.start({ name: 'c', cwd: CWD });
      expect(thrown(() => terminals.start({ cwd: CWD })).code).toBe('too-many');
      expect(terminals.list().map((info) => [info.name, info.running])).toEqual([
        ['a', false],
        ['c', true],
      ]);
    });

    it('reports a pty that cannot start as internal (500), and keeps nothing', () => {
      const { ptys, terminals } = setup();
      ptys.fail = true;
      const error = thrown(() => terminals.start({ name: 'x', cwd: CWD }));
      expect([error.code, error.status, error.message]).toEqual(['internal', 500, 'could not start the terminal: spawn failed']);
      expect(terminals.list()).toEqual([]);
      expect(terminals.get('x')).toBeUndefined();
    });
  });

  describe('list, get, write, resize', () => {
    it('lists named sessions in start order with their state and ring offsets; unnamed ones are not listed', () => {
      const { ptys, terminals } = setup();
      terminals.start({ name: 'one', command: 'true', cwd: CWD });
      const one = ptys.last;
      terminals.start({ cwd: CWD });
      terminals.start({ name: 'two', cwd: '/elsewhere' });
      const two = ptys.last;
      one.emitData('hello');
      one.emitExit(3);
      two.emitData('$ ');
      expect(terminals.list()).toEqual([
        { name: 'one', pid: one.pid, command: 'true', cwd: CWD, running: false, exitCode: 3, start: 0, end: 5 },
        { name: 'two', pid: two.pid, command: null, cwd: '/elsewhere', running: true, exitCode: null, start: 0, end: 2 },
      ]);
      expect(terminals.get('two')?.pid).toBe(two.pid);
      expect(terminals.get('nope')).toBeUndefined();
    });

    it('reports the ring offsets once output has wrapped it', () => {
      const { ptys, terminals } = setup({ ringBytes: 10 });
      const session = terminals.start({ name: 'x', cwd: CWD });
      ptys.last.emitData('0123456789abcdef');
      expect([session.info().start, session.info().end]).toEqual([6, 16]);
      expect(session.text()).toBe('6789abcdef');
    });

    it('writes and resizes while running; after the exit a write is a conflict and a resize is ignored', () => {
      const { ptys, terminals } = setup();
      const session = terminals.start({ name: 'x', cwd: CWD });
      session.write('ls\r');
      session.write(new Uint8Array([3]));
      session.resize(100, 30);
      ptys.last.emitExit(null);
      const error = thrown(() => session.write('late'));
      expect([error.code, error.status, error.message]).toEqual(['conflict', 409, 'terminal x has exited']);
      session.resize(1, 1);
      expect(ptys.last.writes).toEqual(['ls\r', new Uint8Array([3])]);
      expect(ptys.last.resizes).toEqual([[100, 30]]);
      expect(session.info()).toMatchObject({ running: false, exitCode: null }); // by a signal: no code
    });
  });

  describe('remove and closeAll', () => {
    it('remove kills the program, waits for its exit, forgets it, and tells an attached client it ended', async () => {
      const { ptys, terminals } = setup();
      const session = terminals.start({ name: 'x', cwd: CWD });
      const client = new RecordingClient();
      session.attach(client);
      await nextTurn();
      ptys.last.emitData('bye');
      expect(await terminals.remove('x')).toBe(true);
      expect(ptys.last.kills).toBe(1);
      expect(session.running).toBe(false);
      expect(await session.exited).toEqual({ code: null });
      expect(terminals.get('x')).toBeUndefined();
      expect(terminals.list()).toEqual([]);
      expect(new TextDecoder().decode(client.received())).toBe('bye');
      expect(client.exits).toEqual([null]);
      expect(await terminals.remove('x')).toBe(false);
    });

    it('remove of an exited session forgets it and sweeps its session once (what the program left running dies too)', async () => {
      const { ptys, terminals } = setup();
      terminals.start({ name: 'x', cwd: CWD });
      ptys.last.emitExit(0);
      expect(await terminals.remove('x')).toBe(true);
      expect(ptys.last.kills).toBe(1);
      expect(terminals.list()).toEqual([]);
    });

    it('closeAll kills every session, named and unnamed, and forgets them', async () => {
      const { ptys, terminals } = setup();
      terminals.start({ name: 'a', cwd: CWD });
      const unnamed = terminals.start({ cwd: CWD });
      unnamed.attach(new RecordingClient());
      terminals.start({ name: 'b', cwd: CWD });
      await terminals.closeAll();
      expect(ptys.spawned.map((spawned) => spawned.pty.kills)).toEqual([1, 1, 1]);
      expect(unnamed.running).toBe(false);
      expect(terminals.list()).toEqual([]);
      // Every slot is free again: the cap counts only what runs.
      for (let i = 0; i < 8; i++) terminals.start({ cwd: CWD });
    });
  });

  describe('unnamed sessions', () => {
    it('are killed and forgotten when their client detaches', async () => {
      const { ptys, terminals } = setup({ maxSessions: 1 });
      const session = terminals.start({ cwd: CWD });
      const attachment = session.attach(new RecordingClient());
      expect(ptys.last.kills).toBe(0);
      attachment.detach();
      expect(ptys.last.kills).toBe(1);
      await session.exited;
      terminals.start({ cwd: CWD }); // the cap's slot is free
    });

    it('die with the last of several clients', () => {
      const { ptys, terminals } = setup();
      const session = terminals.start({ cwd: CWD });
      const first = session.attach(new RecordingClient());
      const second = session.attach(new RecordingClient());
      first.detach();
      first.detach(); // twice is once
      expect(ptys.last.kills).toBe(0);
      second.detach();
      expect(ptys.last.kills).toBe(1);
    });
  });

  describe('named sessions', () => {
    it('run on when their client detaches', () => {
      const { ptys, terminals } = setup();
      const session = terminals.start({ name: 'dev', cwd: CWD });
      session.attach(new RecordingClient()).detach();
      expect(ptys.last.kills).toBe(0);
      expect(session.running).toBe(true);
      expect(terminals.get('dev')).toBe(session);
    });
  });

  describe('reaping', () => {
    it('forgets an exited session with no client after reapMs', async () => {
      const { ptys, terminals } = setup({ reapMs: 30 });
      terminals.start({ name: 'old', command: 'true', cwd: CWD });
      terminals.start({ name: 'running', cwd: CWD });
      ptys.spawned[0]!.pty.emitExit(0);
      expect(terminals.list().map((info) => info.name)).toEqual(['old', 'running']); // kept at first: its output and code
      await waitFor(() => terminals.get('old') === undefined, { what: 'the exited session to be reaped' });
      expect(terminals.list().map((info) => info.name)).toEqual(['running']); // a running one is never reaped
    });

    it('does not reap an exited session while a client is attached; the reap clock starts when it leaves', async () => {
      const { ptys, terminals } = setup({ reapMs: 30 });
      const session = terminals.start({ name: 'x', cwd: CWD });
      const attachment = session.attach(new RecordingClient());
      ptys.last.emitExit(1);
      await new Promise((resolve) => setTimeout(resolve, 90)); // three reap periods with the client attached
      expect(terminals.get('x')).toBe(session);
      const left = Date.now();
      attachment.detach();
      await waitFor(() => terminals.get('x') === undefined, { what: 'the reap after the client left' });
      expect(Date.now() - left).toBeGreaterThanOrEqual(25);
    });

    it('a client attaching to an exited session postpones its reaping until it leaves', async () => {
      const { ptys, terminals } = setup({ reapMs: 40 });
      const session = terminals.start({ name: 'x', cwd: CWD });
      ptys.last.emitExit(0);
      const attachment = session.attach(new RecordingClient()); // the reap timer is running
      await new Promise((resolve) => setTimeout(resolve, 80));
      expect(terminals.get('x')).toBe(session);
      attachment.detach();
      await waitFor(() => terminals.get('x') === undefined, { what: 'the reap after the client left' });
    });

    it('keeps at most maxSessions exited idle sessions: the ones idle longest go first', async () => {
      const { ptys, terminals } = setup({ maxSessions: 2 });
      for (const name of ['a', 'b', 'c', 'd']) {
        terminals.start({ name, cwd: CWD });
        ptys.last.emitExit(0);
        await new Promise((resolve) => setTimeout(resolve, 2)); // distinct idle times
      }
      expect(terminals.list().map((info) => info.name)).toEqual(['c', 'd']);
    });

    it('exited sessions with a client count too: idle ones go first, then the oldest attached one, its client dropped', () => {
      const { ptys, terminals } = setup({ maxSessions: 1 });
      const a = terminals.start({ name: 'a', cwd: CWD });
      const reader = new RecordingClient();
      reader.allowance = 0; // never reads to the exit
      a.attach(reader);
      ptys.last.emitExit(0);
      terminals.start({ name: 'b', cwd: CWD });
      ptys.last.emitExit(0);
      expect(terminals.list().map((info) => info.name)).toEqual(['a']); // b was idle: it went first
      expect(reader.drops).toEqual([]);
      const c = terminals.start({ name: 'c', cwd: CWD });
      const other = new RecordingClient();
      other.allowance = 0;
      c.attach(other);
      ptys.last.emitExit(0);
      // Two exited, both held by clients, one allowed: the older goes, and its client hears why.
      expect(terminals.list().map((info) => info.name)).toEqual(['c']);
      expect(reader.drops).toEqual(['terminal a: exited, and more than 1 exited terminals are kept']);
      expect(other.drops).toEqual([]);
    });
  });
});
