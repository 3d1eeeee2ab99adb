import { mkdir } from 'node:fs/promises';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { FakeAgentConfig } from '../../support/fake-agent-cli.ts';
import { isRunning, waitFor } from '../../support/processes.ts';
import {
  finished,
  PLAIN_OUTPUT_ENV,
  startChat,
  startChatFixture,
  waitForChunk,
  type ChatFixture,
} from './chat-fixture.ts';

/** The agent server: `<exe> serve --port 0`, one per agent, shared by its chats (docs/noide-protocol.md#agent-chat). */
describe('/ws chat: the agent server', () => {
  let fx: ChatFixture;

  beforeAll(async () => {
    fx = await startChatFixture();
  });

  afterAll(async () => {
    await fx.close();
  });

  it('is started on first use in the root, stdin and stderr on /dev/null, in a group of its own, with the first chat’s key', async () => {
    await mkdir(`${fx.root}/sub`);
    const first = await startChat(fx.client, 'hello', { apiKey: 'key-one', cwd: `${fx.root}/sub` });
    await finished(fx.client, first.rid);
    const second = await startChat(fx.client, 'hello', { apiKey: 'key-two' });
    await finished(fx.client, second.rid);

    const [serve, ...more] = fx.records.serves();
    expect(more).toEqual([]);
    expect(serve).toMatchObject({ exe: fx.opencode!.path, argv: ['serve', '--port', '0'], cwd: fx.root, fds: ['/dev/null', 'pipe', '/dev/null'] });
    expect(serve!.pgid).toBe(serve!.pid);
    const { FORCE_COLOR: _force, CLICOLOR_FORCE: _clicolorForce, ...kept } = fx.daemonEnv;
    expect(serve!.env).toEqual({ ...kept, ...PLAIN_OUTPUT_ENV, OPENROUTER_API_KEY: 'key-one' });
    // Both runs attach to it; each has its own key.
    const url = `http://127.0.0.1:${serve!.port}`;
    for (const [chat, key] of [[first, 'key-one'], [second, 'key-two']] as const) {
      const run = fx.records.run(chat.prompt)!;
      expect(run.argv.slice(0, 3)).toEqual(['run', '--attach', url]);
      expect(run.env.OPENROUTER_API_KEY).toBe(key);
    }
  });

  it('is not stopped by a cancel or a closed socket, and is reused after them', async () => {
    const [serve] = fx.records.serves();
    const other = await fx.connect();
    const chat = await startChat(other, 'hang');
    await waitForChunk(other, chat.rid, 'ready');
    expect(await other.ok('chat_cancel', { id: chat.rid })).toEqual({ cancelled: true });
    await finished(other, chat.rid);
    await other.close();
    await fx.client.ok('get_cwd');
    expect(isRunning(serve!.pid)).toBe(true);
    const next = await startChat(fx.client, 'hello');
    await finished(fx.client, next.rid);
    expect(fx.records.serves().map((record) => record.pid)).toEqual([serve!.pid]);
  });

  it('kilo gets a server of its own', async () => {
    const chat = await startChat(fx.client, 'hello', { command: 'kilo' });
    await finished(fx.client, chat.rid);
    const kilo = fx.records.serves().filter((record) => record.exe === fx.kilo!.path);
    expect(kilo).toHaveLength(1);
    expect(fx.records.run(chat.prompt)!.argv.slice(0, 3)).toEqual(['run', '--attach', `http://127.0.0.1:${kilo[0]!.port}`]);
  });

  it('one that died is started again on the next chat', async () => {
    const [before] = fx.records.serves().filter((record) => record.exe === fx.opencode!.path);
    process.kill(-before!.pgid, 'SIGKILL');
    await waitFor(() => !isRunning(before!.pid), { what: 'the server to die' });
    const chat = await startChat(fx.client, 'hello');
    expect(await finished(fx.client, chat.rid)).toMatchObject({ done: { id: chat.rid } });
    const opencode = fx.records.serves().filter((record) => record.exe === fx.opencode!.path);
    expect(opencode.map((record) => record.pid)).toEqual([before!.pid, expect.any(Number)]);
    expect(opencode[1]!.pid).not.toBe(before!.pid);
    expect(fx.records.run(chat.prompt)!.argv.slice(0, 3)).toEqual(['run', '--attach', `http://127.0.0.1:${opencode[1]!.port}`]);
  });
});

describe('/ws chat: two first chats at once share one agent server start', () => {
  let fx: ChatFixture;

  beforeAll(async () => {
    // The server prints its port only when told: both chats are surely waiting on the one start.
    fx = await startChatFixture({ agents: { opencode: { holdPort: true } } });
  });

  afterAll(async () => {
    await fx.close();
  });

  it('one server, both runs attached to it', async () => {
    const first = await startChat(fx.client, 'hello');
    await fx.records.waitForServe();
    const second = await startChat(fx.client, 'hello');
    await fx.records.releaseServe();
    await Promise.all([finished(fx.client, first.rid), finished(fx.client, second.rid)]);
    const serves = fx.records.serves();
    expect(serves).toHaveLength(1);
    const url = `http://127.0.0.1:${serves[0]!.port}`;
    expect(fx.records.run(first.prompt)!.argv.slice(0, 3)).toEqual(['run', '--attach', url]);
    expect(fx.records.run(second.prompt)!.argv.slice(0, 3)).toEqual(['run', '--attach', url]);
  });
});

/** Runs a chat against an agent server started with `config`: the chat's outcome and the new server's record. */
async function chatWith(fx: ChatFixture, config: FakeAgentConfig, command: 'opencode' | 'kilo' = 'opencode') {
  await fx[command]!.configure(config);
  const known = new Set(fx.records.serves().map((record) => record.pid));
  const chat = await startChat(fx.client, 'hello', { command });
  const outcome = await finished(fx.client, chat.rid);
  const serve = fx.records.serves().find((record) => !known.has(record.pid));
  return { chat, outcome, serve };
}

const noPort = (agent: string) => `could not determine ${agent} server port from its output`;

describe('/ws chat: an agent server whose port cannot be found', () => {
  let fx: ChatFixture;

  beforeAll(async () => {
    fx = await startChatFixture();
  });

  afterAll(async () => {
    await fx.close();
  });

  afterEach(async () => {
    await fx.opencode!.configure({});
  });

  it('it exits without printing one: the done says so, nothing runs; the next chat starts a server again', async () => {
    const failed = await chatWith(fx, { serve: 'no-port-exit' });
    expect(failed.outcome).toEqual({ done: { id: failed.chat.rid, error: noPort('opencode') }, stdout: [], stderr: [] });
    expect(fx.records.started(failed.chat.prompt)).toBe(false);
    const next = await chatWith(fx, {});
    expect(next.outcome).toEqual({ done: { id: next.chat.rid }, stdout: ['hello from opencode'], stderr: [] });
    expect(next.serve).toBeDefined();
  });

  it('only the first 40 lines count: the port on line 40 is found, on line 41 it is not (and that server is stopped)', async () => {
    const running = fx.records.serves().filter((record) => isRunning(record.pid));
    for (const serve of running) process.kill(-serve.pgid, 'SIGKILL');
    await waitFor(() => running.every((serve) => !isRunning(serve.pid)), { what: 'the running server to die' });

    const found = await chatWith(fx, { junkLines: 39 });
    expect(found.outcome).toEqual({ done: { id: found.chat.rid }, stdout: ['hello from opencode'], stderr: [] });
    expect(fx.records.run(found.chat.prompt)!.argv.slice(0, 3)).toEqual(['run', '--attach', `http://127.0.0.1:${found.serve!.port}`]);
    process.kill(-found.serve!.pgid, 'SIGKILL');
    await waitFor(() => !isRunning(found.serve!.pid), { what: 'that server to die' });

    const missed = await chatWith(fx, { junkLines: 40 });
    expect(missed.outcome).toEqual({ done: { id: missed.chat.rid, error: noPort('opencode') }, stdout: [], stderr: [] });
    expect(fx.records.started(missed.chat.prompt)).toBe(false);
    await waitFor(() => !isRunning(missed.serve!.pid), { timeoutMs: 3000, what: 'the server to be stopped' });
  });
});

describe('/ws chat: an agent server that prints no port and runs on', () => {
  let fx: ChatFixture;

  beforeAll(async () => {
    fx = await startChatFixture({ agents: { kilo: { serve: 'no-port-hang' } }, limits: { chatServerStartMs: 300 } });
  });

  afterAll(async () => {
    await fx.close();
  });

  it('the done says so after chatServerStartMs, nothing runs, and the server is stopped', async () => {
    const started = Date.now();
    const failed = await chatWith(fx, { serve: 'no-port-hang' }, 'kilo');
    expect(failed.outcome).toEqual({ done: { id: failed.chat.rid, error: noPort('kilo') }, stdout: [], stderr: [] });
    expect(Date.now() - started).toBeGreaterThanOrEqual(300);
    expect(fx.records.started(failed.chat.prompt)).toBe(false);
    await waitFor(() => !isRunning(failed.serve!.pid), { timeoutMs: 3000, what: 'the server to be stopped' });
  });

  it('two first chats waiting on one failing start both end with its error; one server was started', async () => {
    const known = fx.records.serves().length;
    const [one, two] = [await startChat(fx.client, 'hello', { command: 'kilo' }), await startChat(fx.client, 'hello', { command: 'kilo' })];
    for (const chat of [one, two]) {
      expect(await finished(fx.client, chat.rid)).toEqual({ done: { id: chat.rid, error: noPort('kilo') }, stdout: [], stderr: [] });
    }
    expect(fx.records.serves().length - known).toBe(1);
  });
});
