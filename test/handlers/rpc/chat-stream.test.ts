import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeAgent } from '../../support/fake-agent-cli.ts';
import {
  chatStream,
  finished,
  MiB,
  nextChat,
  PLAIN_OUTPUT_ENV,
  shape,
  startChat,
  startChatFixture,
  type ChatFixture,
} from './chat-fixture.ts';

describe('/ws chat_stream: the run, its output and its end', () => {
  let fx: ChatFixture;

  beforeAll(async () => {
    fx = await startChatFixture();
    await mkdir(join(fx.root, 'sub', 'deeper'), { recursive: true });
    await writeFile(join(fx.root, 'file.txt'), 'not a folder\n');
    await mkdir(join(fx.base, 'outside'));
    await symlink(join(fx.root, 'sub', 'deeper'), join(fx.root, 'inward'));
    await symlink(join(fx.base, 'outside'), join(fx.root, 'escape'));
  });

  afterAll(async () => {
    await fx.close();
  });

  /** `http://127.0.0.1:<port>` of the agent's server (the one started for it so far). */
  function serverUrl(agent: FakeAgent | undefined): string {
    const serve = fx.records.serves().find((record) => record.exe === agent?.path);
    if (serve?.port === undefined) throw new Error(`no ${agent?.name} server recorded`);
    return `http://127.0.0.1:${serve.port}`;
  }

  /** The daemon's environment without what a chat's takes away. */
  function daemonEnvKept(): Record<string, string> {
    const { FORCE_COLOR: _force, CLICOLOR_FORCE: _clicolorForce, ...kept } = fx.daemonEnv;
    return kept;
  }

  it('replies null at once, relays the stdout lines as chunks, then one done without error', async () => {
    const { rid } = await startChat(fx.client, 'hello');
    expect(await finished(fx.client, rid)).toEqual({ done: { id: rid }, stdout: ['hello from opencode'], stderr: [] });
  });

  describe('the request id of the events', () => {
    it('is requestId when it is a string', async () => {
      const { prompt } = nextChat('hello');
      await chatStream(fx.client, { args: ['run', prompt], requestId: 'mine-1' });
      expect(await finished(fx.client, 'mine-1')).toMatchObject({ done: { id: 'mine-1' }, stdout: ['hello from opencode'] });
    });

    it('is the request frame’s id as a string when requestId is absent or not a string', async () => {
      for (const requestId of [undefined, 42, null]) {
        const { prompt } = nextChat('hello');
        const reply = await fx.client.call('chat_stream', { command: 'opencode', args: ['run', prompt], requestId });
        expect(reply).toEqual({ id: reply.id, ok: true, result: null });
        const rid = String(reply.id);
        expect(await finished(fx.client, rid)).toMatchObject({ done: { id: rid }, stdout: ['hello from opencode'] });
      }
    });
  });

  describe('argv: the client’s args with only --attach added', () => {
    it('after `run` when args start with it', async () => {
      const { rid, prompt } = nextChat('hello');
      await chatStream(fx.client, { args: ['run', '--format', 'json', '-m', 'openrouter/some-model', prompt], requestId: rid });
      await finished(fx.client, rid);
      const run = fx.records.run(prompt)!;
      expect(run.argv).toEqual(['run', '--attach', serverUrl(fx.opencode), '--format', 'json', '-m', 'openrouter/some-model', prompt]);
      expect(run.exe).toBe(fx.opencode!.path);
    });

    it('first when they do not', async () => {
      const { rid, prompt } = nextChat('hello');
      await chatStream(fx.client, { args: ['--print-logs', prompt], requestId: rid });
      await finished(fx.client, rid);
      expect(fx.records.run(prompt)!.argv).toEqual(['--attach', serverUrl(fx.opencode), '--print-logs', prompt]);
    });

    it('args with any element that is not a string, or that is not a list, count as none', async () => {
      for (const args of [['run', 7, 'hello'], ['run', null], 'run hello', { 0: 'run' }]) {
        const { rid } = nextChat('hello');
        // No prompt reaches the run: it is found by its one attachment, which carries the request id.
        await chatStream(fx.client, { args, requestId: rid, attachments: [{ name: 'marker.txt', content: rid }] });
        expect(await finished(fx.client, rid)).toMatchObject({ done: { id: rid }, stdout: ['hello from opencode'] });
        const run = fx.records.runs().find((record) => record.files.some((file) => Buffer.from(file.base64, 'base64').toString() === rid))!;
        expect(run.argv).toEqual(['--attach', serverUrl(fx.opencode), '-f', run.files[0]!.path]);
      }
    });
  });

  it('runs with stdin on /dev/null, its output on pipes, in a process group of its own', async () => {
    const { rid, prompt } = await startChat(fx.client, 'hello');
    await finished(fx.client, rid);
    const run = fx.records.run(prompt)!;
    expect(run.fds).toEqual(['/dev/null', 'pipe', 'pipe']);
    expect(run.pgid).toBe(run.pid);
  });

  describe('environment', () => {
    it('the daemon’s, plain output forced, colour forcing removed, the API key added', async () => {
      const { rid, prompt } = await startChat(fx.client, 'hello', { apiKey: 'sk-or-v1-test' });
      await finished(fx.client, rid);
      expect(fx.records.run(prompt)!.env).toEqual({ ...daemonEnvKept(), ...PLAIN_OUTPUT_ENV, OPENROUTER_API_KEY: 'sk-or-v1-test' });
    });

    it('no API key when it is blank or absent; opencode leaves KILO_CONFIG_CONTENT as the daemon has it, whatever the mode', async () => {
      for (const extra of [{}, { apiKey: '' }, { apiKey: '  \t' }, { mode: 'plan' }, { mode: '' }]) {
        const { rid, prompt } = await startChat(fx.client, 'hello', extra);
        await finished(fx.client, rid);
        expect(fx.records.run(prompt)!.env, JSON.stringify(extra)).toEqual({ ...daemonEnvKept(), ...PLAIN_OUTPUT_ENV });
      }
    });

    it('kilo: KILO_CONFIG_CONTENT from the mode — ask and plan as given, any other non-blank one code, none when blank', async () => {
      const cases: [string | undefined, string | undefined][] = [
        ['ask', '{"mode":"ask"}'],
        ['plan', '{"mode":"plan"}'],
        ['code', '{"mode":"code"}'],
        ['debug', '{"mode":"code"}'],
        ['', undefined],
        ['   ', undefined],
        [undefined, undefined],
      ];
      for (const [mode, config] of cases) {
        const { rid, prompt } = await startChat(fx.client, 'hello', { command: 'kilo', mode, apiKey: 'kilo-key' });
        expect(await finished(fx.client, rid)).toEqual({ done: { id: rid }, stdout: ['hello from kilo'], stderr: [] });
        const { KILO_CONFIG_CONTENT: _daemons, ...kept } = daemonEnvKept();
        const expected = { ...kept, ...PLAIN_OUTPUT_ENV, OPENROUTER_API_KEY: 'kilo-key', ...(config === undefined ? {} : { KILO_CONFIG_CONTENT: config }) };
        const run = fx.records.run(prompt)!;
        expect(run.env, `mode ${JSON.stringify(mode)}`).toEqual(expected);
        expect(run.exe).toBe(fx.kilo!.path);
        expect(run.argv).toEqual(['run', '--attach', serverUrl(fx.kilo), prompt]);
      }
    });
  });

  describe('working directory', () => {
    it('the workspace root by default', async () => {
      const { rid, prompt } = await startChat(fx.client, 'hello');
      await finished(fx.client, rid);
      expect(fx.records.run(prompt)!.cwd).toBe(fx.root);
    });

    it('a folder inside the root, by its real path when a symlink leads there', async () => {
      for (const [cwd, real] of [
        [join(fx.root, 'sub'), join(fx.root, 'sub')],
        [join(fx.root, 'inward'), join(fx.root, 'sub', 'deeper')],
      ] as const) {
        const { rid, prompt } = await startChat(fx.client, 'hello', { cwd });
        expect(await finished(fx.client, rid)).toMatchObject({ done: { id: rid } });
        expect(fx.records.run(prompt)!.cwd).toBe(real);
      }
    });

    it('refused in the done when missing, not a folder, or outside the root (a symlink out included); nothing runs', async () => {
      const cases = [
        [join(fx.root, 'nope'), `Working directory '${join(fx.root, 'nope')}' does not exist on this server. Open a valid folder (or clear the saved session) and try again.`],
        [join(fx.root, 'file.txt'), `Working directory '${join(fx.root, 'file.txt')}' is not a directory. Open a valid folder and try again.`],
        [join(fx.base, 'outside'), 'path is outside the workspace'],
        [join(fx.root, 'escape'), 'path is outside the workspace'],
      ] as const;
      for (const [cwd, error] of cases) {
        const { rid, prompt } = await startChat(fx.client, 'hello', { cwd });
        expect(await finished(fx.client, rid)).toEqual({ done: { id: rid, error }, stdout: [], stderr: [] });
        expect(fx.records.started(prompt), cwd).toBe(false);
      }
    });
  });

  describe('output', () => {
    it('one chunk per line on each stream: terminators stripped, empty lines as "", a lone \\r kept, the unterminated end a line', async () => {
      const { rid } = await startChat(fx.client, 'lines');
      expect(await finished(fx.client, rid)).toEqual({
        done: { id: rid },
        stdout: ['one', '', 'two', '', 'carriage\rreturn', 'three'],
        stderr: ['warn 1', '', 'warn 2'],
      });
    });

    it('decodes each line as lossy UTF-8: bad bytes become U+FFFD, a character cut between two writes stays whole', async () => {
      const { rid } = await startChat(fx.client, 'bytes');
      expect(await finished(fx.client, rid)).toEqual({
        done: { id: rid },
        stdout: ['a\uFFFDb', '€', 'caf\uFFFD', '\uFFFD', '😀'],
        stderr: [],
      });
    });

    it('splits a line longer than 1 MiB into 1 MiB chunks, in order, the rest last', async () => {
      const { rid } = await startChat(fx.client, 'big');
      const outcome = await finished(fx.client, rid, 20_000);
      expect(outcome.done).toEqual({ id: rid });
      expect(outcome.stdout.map(shape)).toEqual([`a×${MiB}`, `b×${MiB}`, `c×${MiB}`, `d×${MiB}`, `e×${MiB}`, 'f×100', 'after']);
    });

    it('a non-zero exit: the output, then one done with the exit code', async () => {
      for (const command of ['opencode', 'kilo']) {
        const { rid } = await startChat(fx.client, 'exit3', { command });
        expect(await finished(fx.client, rid)).toEqual({ done: { id: rid, error: `${command} exited with code 3` }, stdout: ['failing'], stderr: [] });
      }
    });
  });

  describe('bad input', () => {
    it('chat_stream: a missing or mistyped command, or one that is no chat agent', async () => {
      expect(await fx.client.call('chat_stream', {})).toEqual({ id: expect.any(Number), ok: false, error: "invalid arg 'command': missing" });
      expect(await fx.client.call('chat_stream')).toMatchObject({ ok: false, error: "invalid arg 'command': missing" });
      expect(await fx.client.call('chat_stream', { command: 7 })).toMatchObject({ ok: false, error: "invalid arg 'command': expected string, got number" });
      expect(await fx.client.call('chat_stream', { command: ['opencode'] })).toMatchObject({
        ok: false,
        error: "invalid arg 'command': expected string, got array",
      });
      for (const command of ['claude', 'OpenCode', '', 'opencode ']) {
        const { prompt } = nextChat('hello');
        expect(await fx.client.call('chat_stream', { command, args: ['run', prompt] }), command).toMatchObject({
          ok: false,
          error: 'Unsupported chat agent',
        });
        expect(fx.records.started(prompt)).toBe(false);
      }
    });

    it('optional arguments of the wrong type count as absent', async () => {
      const { rid, prompt } = nextChat('hello');
      await chatStream(fx.client, { args: ['run', prompt], requestId: rid, cwd: 5, apiKey: 7, mode: 1, attachments: 'file.txt' });
      expect(await finished(fx.client, rid)).toEqual({ done: { id: rid }, stdout: ['hello from opencode'], stderr: [] });
      const run = fx.records.run(prompt)!;
      expect(run.cwd).toBe(fx.root);
      expect(run.argv).toEqual(['run', '--attach', serverUrl(fx.opencode), prompt]);
      expect(run.env.OPENROUTER_API_KEY).toBeUndefined();
    });

    it('chat_cancel, chat_check_install and chat_models: a missing or mistyped required argument', async () => {
      expect(await fx.client.call('chat_cancel', {})).toMatchObject({ ok: false, error: "invalid arg 'id': missing" });
      // The form every mistyped argument has (the expected type's wording is the row's own: it takes numbers too).
      expect(await fx.client.call('chat_cancel', { id: true })).toMatchObject({ ok: false, error: "invalid arg 'id': expected string or number, got boolean" });
      expect(await fx.client.call('chat_check_install', {})).toMatchObject({ ok: false, error: "invalid arg 'command': missing" });
      expect(await fx.client.call('chat_check_install', { command: 1 })).toMatchObject({
        ok: false,
        error: "invalid arg 'command': expected string, got number",
      });
      expect(await fx.client.call('chat_models', {})).toMatchObject({ ok: false, error: "invalid arg 'agent': missing" });
      expect(await fx.client.call('chat_models', { agent: {} })).toMatchObject({ ok: false, error: "invalid arg 'agent': expected string, got object" });
      expect(await fx.client.call('chat_models', { agent: 'claude' })).toMatchObject({ ok: false, error: "Unknown agent 'claude'" });
    });
  });
});
