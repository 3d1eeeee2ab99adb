import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { NodeProcessAdapter } from '../../../adapters/process/node-process-adapter.ts';
import type { RunCommandOptions, RunCommandResult } from '../../../adapters/process/process-adapter.ts';
import { isRunning, processesInSession, waitFor } from '../../support/processes.ts';
import { tempWorkspace, type TempWorkspace } from '../../support/workspace.ts';

const PATH = '/usr/bin:/bin';
/** A plain POSIX shell, so messages and `$0` do not depend on the machine's login shell. */
const SH_ENV = { PATH, SHELL: '/bin/sh' };

const text = (result: RunCommandResult) => new TextDecoder().decode(result.output);

describe('NodeProcessAdapter', () => {
  let workspace: TempWorkspace;
  let adapter: NodeProcessAdapter;
  /** Processes a test lets escape on purpose (a new session is out of the adapter's reach by design). */
  const escaped: number[] = [];

  beforeEach(async () => {
    workspace = await tempWorkspace();
    adapter = new NodeProcessAdapter({ env: SH_ENV, killGraceMs: 200 });
  });

  afterEach(async () => {
    await adapter.killAll();
    for (const pid of escaped.splice(0)) if (isRunning(pid)) process.kill(pid, 'SIGKILL');
    await workspace.cleanup();
  });

  function run(command: string, options: Partial<RunCommandOptions> = {}): Promise<RunCommandResult> {
    return adapter.run({ command, cwd: workspace.root, timeoutMs: 10_000, maxOutputBytes: 1024 * 1024, ...options });
  }

  /** The pid a command wrote to `name` in the workspace (commands announce themselves so tests can find them). */
  function pidFile(name: string): Promise<number> {
    return waitFor(
      async () => {
        const content = await readFile(join(workspace.root, name), 'utf8').catch(() => '');
        return content.endsWith('\n') ? Number(content) : undefined;
      },
      { what: `pid in ${name}` },
    );
  }

  it('runs in the given folder and answers stdout and stderr interleaved in the order they were written', async () => {
    const result = await run('echo one; echo two >&2; echo three; pwd >&2; exit 3');
    expect({ ...result, output: text(result) }).toEqual({
      output: `one\ntwo\nthree\n${workspace.root}\n`,
      exitCode: 3,
      timedOut: false,
      truncated: false,
    });
  });

  it('answers the exit status whatever it is; null when the shell died by a signal', async () => {
    expect((await run('true')).exitCode).toBe(0);
    expect((await run('exit 255')).exitCode).toBe(255);
    expect(await run('kill -9 $$')).toEqual({ output: new Uint8Array(0), exitCode: null, timedOut: false, truncated: false });
  });

  it('passes the command to the shell untouched: quotes, newlines, $0 and the shell messages are the shell’s own', async () => {
    expect(text(await run(`printf '%s|' "a b" 'c"d' $0\necho "$1:$#"`))).toBe('a b|c"d|/bin/sh|:0\n');
    expect(text(await run('no-such-command-here'))).toBe('/bin/sh: 1: no-such-command-here: not found\n');
  });

  it('runs $SHELL, else sh from PATH', async () => {
    const withBash = new NodeProcessAdapter({ env: { PATH, SHELL: '/bin/bash' } });
    const options = { cwd: workspace.root, timeoutMs: 10_000, maxOutputBytes: 1024 };
    expect(new TextDecoder().decode((await withBash.run({ ...options, command: 'echo "$0 ${BASH_VERSION:+bash}"' })).output)).toBe(
      '/bin/bash bash\n',
    );
    for (const env of [{ PATH }, { PATH, SHELL: '/nonexistent/zsh' }, { PATH, SHELL: '/etc' }]) {
      const fallback = new NodeProcessAdapter({ env });
      expect(new TextDecoder().decode((await fallback.run({ ...options, command: 'echo $0' })).output), JSON.stringify(env)).toBe(
        '/usr/bin/sh\n',
      );
    }
  });

  it('gives stdin /dev/null: a command that reads input sees end-of-file at once', async () => {
    expect(text(await run('cat; echo "cat:$?"; readlink /proc/self/fd/0'))).toBe('cat:0\n/dev/null\n');
  });

  it('inherits the environment minus the variables that describe the daemon’s own terminal', async () => {
    const env = { ...SH_ENV, WSAPI_KEPT: 'kept', TERM: 'xterm', TMUX: '/tmp/tmux', TMUX_PANE: '%1', STY: 's', WINDOWID: '9', COLUMNS: '80', LINES: '24' };
    const withEnv = new NodeProcessAdapter({ env });
    const result = await withEnv.run({
      command: 'echo "$WSAPI_KEPT $TERM ${TMUX-no} ${TMUX_PANE-no} ${STY-no} ${WINDOWID-no} ${COLUMNS-no} ${LINES-no}"',
      cwd: workspace.root,
      timeoutMs: 10_000,
      maxOutputBytes: 1024,
    });
    expect(text(result)).toBe('kept xterm no no no no no no\n');
  });

  it('returns the bytes as written, not UTF-8 or not', async () => {
    const result = await run("printf 'A\\377\\342\\202\\254\\000B'");
    expect(result.output).toEqual(new Uint8Array([0x41, 0xff, 0xe2, 0x82, 0xac, 0x00, 0x42]));
  });

  it('answers when the shell exits, killing a background child that keeps the output pipe open', async () => {
    const result = await run('sleep 60 & echo $!');
    const pid = Number(text(result));
    expect(result).toMatchObject({ exitCode: 0, timedOut: false, truncated: false });
    expect(text(result)).toBe(`${pid}\n`);
    expect(isRunning(pid)).toBe(false);
  });

  it('kills background jobs in process groups of their own too (job control), and output after the exit is not waited for', async () => {
    // bash: dash refuses job control without a terminal.
    const bash = new NodeProcessAdapter({ env: { PATH, SHELL: '/bin/bash' }, killGraceMs: 200 });
    const command = 'set -m; echo $$ > shell.pid; sleep 60 & echo $!; (sleep 5; echo late) & echo early';
    const result = await bash.run({ command, cwd: workspace.root, timeoutMs: 10_000, maxOutputBytes: 1024 });
    const sid = await pidFile('shell.pid');
    const pid = Number(text(result).split('\n')[0]);
    expect(text(result)).toBe(`${pid}\nearly\n`);
    expect(isRunning(pid)).toBe(false);
    expect(processesInSession(sid, 'sleep').filter(isRunning)).toEqual([]);
  });

  it('does not wait for ever on a process that left the session holding the pipe (out of reach by design)', async () => {
    // The shell waits until the child has left the session (setsid ran before its sh writes the mark): under
    // load, a shell exiting first would otherwise kill it while it is still ours.
    const result = await run("setsid sh -c 'echo > left-session; exec sleep 60' & while [ ! -e left-session ]; do sleep 0.01; done; echo $!");
    const pid = Number(text(result));
    escaped.push(pid);
    expect(text(result)).toBe(`${pid}\n`);
    expect(isRunning(pid)).toBe(true);
  });

  it('past the deadline kills the whole session and says timedOut', async () => {
    const result = await run('echo $$ > shell.pid; echo before; sleep 60 & sleep 60; echo after', { timeoutMs: 300 });
    const sid = await pidFile('shell.pid');
    expect({ ...result, output: text(result) }).toEqual({ output: 'before\n', exitCode: null, timedOut: true, truncated: false });
    expect(isRunning(sid)).toBe(false);
    expect(processesInSession(sid, 'sleep').filter(isRunning)).toEqual([]);
  });

  it('SIGKILLs what ignores SIGTERM once the grace period is over', async () => {
    const result = await run("trap '' TERM; echo $$ > shell.pid; sleep 60; echo after", { timeoutMs: 300 });
    const sid = await pidFile('shell.pid');
    expect({ ...result, output: text(result) }).toEqual({ output: '', exitCode: null, timedOut: true, truncated: false });
    expect(isRunning(sid)).toBe(false);
    expect(processesInSession(sid, 'sleep').filter(isRunning)).toEqual([]);
  });

  it('cuts the output at the cap, kills the command and says truncated; output of exactly the cap is whole', async () => {
    expect(await run("printf 'abcd'", { maxOutputBytes: 4 })).toEqual({
      output: new TextEncoder().encode('abcd'),
      exitCode: 0,
      timedOut: false,
      truncated: false,
    });
    expect(await run("printf 'abcde'", { maxOutputBytes: 4 })).toMatchObject({ output: new TextEncoder().encode('abcd'), truncated: true });

    const endless = await run('echo $$ > shell.pid; exec yes', { maxOutputBytes: 10 });
    const pid = await pidFile('shell.pid');
    expect({ ...endless, output: text(endless) }).toEqual({ output: 'y\ny\ny\ny\ny\n', exitCode: null, timedOut: false, truncated: true });
    expect(isRunning(pid)).toBe(false);
  });

  it('a burst far past the cap keeps exactly the cap', async () => {
    const cap = 16 * 1024 * 1024;
    const result = await run('head -c 200000000 /dev/zero', { maxOutputBytes: cap });
    expect(result.truncated).toBe(true);
    expect(result.output.byteLength).toBe(cap);
    expect(result.output.every((byte) => byte === 0)).toBe(true);
  });

  it('aborting the signal kills the command; an aborted signal starts nothing', async () => {
    const aborter = new AbortController();
    const running = run('echo $$ > shell.pid; exec sleep 60', { signal: aborter.signal });
    const pid = await pidFile('shell.pid');
    expect(adapter.liveCount).toBe(1);
    aborter.abort();
    expect(await running).toEqual({ output: new Uint8Array(0), exitCode: null, timedOut: false, truncated: false });
    expect(isRunning(pid)).toBe(false);
    expect(adapter.liveCount).toBe(0);

    expect(await run('touch started', { signal: AbortSignal.abort() })).toEqual({
      output: new Uint8Array(0),
      exitCode: null,
      timedOut: false,
      truncated: false,
    });
    await expect(readFile(join(workspace.root, 'started'))).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('killAll stops every running command (the daemon’s shutdown)', async () => {
    const first = run('echo $$ > one.pid; exec sleep 60');
    const second = run("trap '' TERM; echo $$ > two.pid; sleep 60");
    const pids = [await pidFile('one.pid'), await pidFile('two.pid')];
    expect(adapter.liveCount).toBe(2);
    await adapter.killAll();
    expect(pids.map(isRunning)).toEqual([false, false]);
    expect((await first).exitCode).toBeNull();
    expect((await second).exitCode).toBeNull();
    expect(adapter.liveCount).toBe(0);
  });

  it('rejects when the command cannot start at all (no such folder)', async () => {
    const missing = join(workspace.root, 'missing');
    await expect(run('true', { cwd: missing })).rejects.toThrow(`cannot run a command in ${missing}: spawn /bin/sh ENOENT`);
  });
});
