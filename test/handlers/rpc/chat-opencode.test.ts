/**
 * Agent chat end to end with the real opencode CLI (test/support/opencode-cli.ts installs it): a real server, a real `/ws`
 * socket, the daemon's own `opencode serve` and `opencode run --attach`, and a loopback OpenAI-compatible model
 * the CLI is pointed at, so nothing leaves the machine. One daemon and one agent server for the whole file:
 * opencode takes seconds to start, and the suite has a time budget.
 */
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NodeChatHost } from '../../../adapters/process/node-chat-host.ts';
import type { NodeServer } from '../../../runtime/node/server.ts';
import { messagesMention, startFakeModelServer, type FakeModelRequest, type FakeModelServer } from '../../support/fake-model-server.ts';
import { isRunning, processesWithEnv, processTable, type MarkedProcess } from '../../support/processes.ts';
import { RpcClient, startTestServer, type EventFrame } from '../../support/rpc-client.ts';
import { opencodeBinFolder } from '../../support/opencode-cli.ts';
import { tempWorkspace, type TempWorkspace } from '../../support/workspace.ts';


/** Marks everything the daemon starts (its children inherit its environment), to find them in /proc. */
const MARK_VARIABLE = 'WSAPI_CHAT_OPENCODE_TEST';
const MARK = randomUUID();

/** opencode's startup, a run and a model round trip take seconds, many more on a loaded machine. */
const SLOW_MS = 90_000;
const TEST_MS = 120_000;
/** The first run on a machine installs the CLI (177 MB, from npm's cache when it has it). */
const INSTALL_MS = 10 * 60_000;

const REPLY = 'Hello from the fake model.';

/** The daemon's PATH: the installed CLI's folder and the system's. */
let PATH = '';

describe('/ws agent chat with the real opencode CLI', () => {
  let workspace: TempWorkspace;
  let home: string;
  let model: FakeModelServer;
  let server: NodeServer;
  let client: RpcClient;
  let serverClosed = false;

  beforeAll(async () => {
    // Not installed or not runnable is a failure of every test here, never a skip.
    const bin = await opencodeBinFolder();
    // Only the CLI's folder and the system's: no `kilo` anywhere on it (checked below).
    PATH = `${bin}:/usr/bin:/bin`;
    workspace = await tempWorkspace({ 'README.md': 'a workspace\n' });
    home = await realpath(await mkdtemp(join(tmpdir(), 'wsapi-opencode-home-')));
    await mkdir(join(home, 'tmp'));
    model = await startFakeModelServer();
    const env: NodeJS.ProcessEnv = {
      PATH,
      // opencode keeps its config, database, logs and caches under HOME and the XDG folders: all in a temp home.
      HOME: home,
      XDG_CONFIG_HOME: join(home, '.config'),
      XDG_DATA_HOME: join(home, '.local', 'share'),
      XDG_CACHE_HOME: join(home, '.cache'),
      XDG_STATE_HOME: join(home, '.local', 'state'),
      // …and more under the temp folder ($TMPDIR/opencode): that too in the temp home.
      TMPDIR: join(home, 'tmp'),
      // One provider, the loopback model. Its SDK package ships inside the opencode binary: nothing is installed.
      OPENCODE_CONFIG_CONTENT: JSON.stringify({
        provider: {
          fake: {
            npm: '@ai-sdk/openai-compatible',
            name: 'Fake',
            options: { baseURL: model.baseURL, apiKey: 'unused' },
            models: { m: { name: 'm' } },
          },
        },
        model: 'fake/m',
      }),
      // Otherwise opencode fetches the models.dev catalogue (models.opencode.ai) at every start…
      OPENCODE_DISABLE_MODELS_FETCH: '1',
      // …and npm-installs @opencode-ai/plugin into its config folder in the background; offline, npm answers from
      // its (empty) cache at once instead of asking registry.npmjs.org.
      npm_config_offline: 'true',
      [MARK_VARIABLE]: MARK,
    };
    server = await startTestServer(workspace.root, { chatHost: new NodeChatHost({ env, home }) });
    client = await RpcClient.connect(server);
  }, INSTALL_MS);

  afterAll(async () => {
    await client?.close();
    if (!serverClosed) await server?.close();
    await model?.close();
    await workspace?.cleanup();
    if (home !== undefined) await rm(home, { recursive: true, force: true });
  });

  /** What the daemon started and still runs. */
  const started = (): MarkedProcess[] => processesWithEnv(MARK_VARIABLE, MARK);
  const agentServers = () => started().filter(({ argv }) => argv[1] === 'serve');

  /** A chat turn of the agent: opencode offers its tools there, and not when it asks the model for a title. */
  const agentTurn = (prompt: string) => (request: FakeModelRequest) =>
    Array.isArray((request.body as { tools?: unknown }).tools) && messagesMention(request, prompt);

  const chatEvents = (rid: string) =>
    client.events.filter(({ event, payload }) => event.startsWith('chat-stream-') && (payload as { id?: unknown }).id === rid);
  const isDone = (rid: string) => (event: EventFrame) => event.event === 'chat-stream-done' && (event.payload as { id?: unknown }).id === rid;

  /** The JSON event a chunk carries, or undefined when the chunk is not a JSON object with a string `type`. */
  function jsonEvent(event: EventFrame): { type: string; part?: { type?: unknown; text?: unknown } } | undefined {
    const text = (event.payload as { text?: unknown }).text;
    if (typeof text !== 'string') return undefined;
    try {
      const parsed = JSON.parse(text) as unknown;
      return typeof parsed === 'object' && parsed !== null && typeof (parsed as { type?: unknown }).type === 'string'
        ? (parsed as { type: string })
        : undefined;
    } catch {
      return undefined;
    }
  }

  it('chat_check_install finds opencode on the daemon’s PATH; kilo, absent there, is false', async () => {
    expect(await client.call('chat_check_install', { command: 'opencode' }, { timeoutMs: SLOW_MS })).toMatchObject({ ok: true, result: true });

    // The premise of the second half: no kilo on that PATH, nor in the (empty) home the lookup also searches.
    for (const folder of PATH.split(':')) expect(existsSync(join(folder, 'kilo')), `${folder}/kilo`).toBe(false);
    expect(await client.call('chat_check_install', { command: 'kilo' }, { timeoutMs: SLOW_MS })).toMatchObject({ ok: true, result: false });
  }, TEST_MS);

  it('chat_stream relays opencode’s own NDJSON lines, the model got the prompt, then one done without error', async () => {
    const rid = 'say-hi';
    // `opencode run --attach` exits as soon as the server answers the prompt, without reading the rest of its
    // event stream, so lines of a model's last step can be lost. The model's first step therefore asks for
    // another (a step that used tools), and that one waits until the first step's text has come through.
    const firstStep = model.script({ match: agentTurn('say hi'), text: REPLY, finishReason: 'tool_calls' });
    const lastStep = model.script({ match: agentTurn('say hi'), text: 'Done.', hold: true });

    const reply = await client.call('chat_stream', {
      command: 'opencode',
      args: ['run', '--format', 'json', '-m', 'fake/m', 'say hi'],
      requestId: rid,
    });
    expect(reply).toEqual({ id: reply.id, ok: true, result: null });

    const asked = await firstStep;
    expect(messagesMention(asked.request, 'say hi')).toBe(true);
    expect(asked.request.body).toMatchObject({ model: 'm', stream: true });

    const isChunk = (event: EventFrame) => event.event === 'chat-stream-chunk' && (event.payload as { id?: unknown }).id === rid;
    await client.waitForEvent((event) => isChunk(event) && jsonEvent(event)?.type === 'text', { timeoutMs: SLOW_MS });
    (await lastStep).release();
    await client.waitForEvent(isDone(rid), { timeoutMs: SLOW_MS });

    const events = chatEvents(rid);
    expect(events.at(-1)).toEqual({ event: 'chat-stream-done', payload: { id: rid } });
    const chunks = events.slice(0, -1);
    for (const chunk of chunks) {
      expect(chunk).toEqual({ event: 'chat-stream-chunk', payload: { id: rid, stream: 'stdout', text: expect.any(String) } });
      expect(jsonEvent(chunk), (chunk.payload as { text: string }).text).toBeDefined();
    }
    const lines = chunks.map((chunk) => jsonEvent(chunk)!);
    expect(lines.map(({ type }) => type)).toContain('step_start');
    expect(lines).toContainEqual(expect.objectContaining({ type: 'text', part: expect.objectContaining({ type: 'text', text: REPLY }) }));
  }, TEST_MS);

  it('chat_cancel mid-stream stops that opencode run and its group; the agent server stays', async () => {
    const rid = 'cancelled';
    const held = model.script({ match: agentTurn('count slowly'), text: 'One, two, three.', hold: true });
    expect(await client.call('chat_stream', {
      command: 'opencode',
      args: ['run', '--format', 'json', '-m', 'fake/m', 'count slowly'],
      requestId: rid,
    })).toMatchObject({ ok: true, result: null });

    // The model has the request and has streamed its first chunk: the run is mid-stream.
    await held;
    const runs = started().filter(({ argv }) => argv[1] === 'run' && argv.includes('count slowly'));
    expect(runs.map(({ argv }) => argv.slice(1))).toEqual([['run', '--attach', expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/), '--format', 'json', '-m', 'fake/m', 'count slowly']]);
    const run = runs[0]!;
    const serve = agentServers();
    expect(serve).toHaveLength(1);

    const cancel = await client.call('chat_cancel', { id: rid });
    expect(cancel).toEqual({ id: cancel.id, ok: true, result: { cancelled: true } });
    const done = await client.waitForEvent(isDone(rid), { timeoutMs: SLOW_MS });
    // A run ended by its signal, or one that caught it and exited on its own: either way, one done.
    const payload = done.payload as { id: string; error?: string };
    if ('error' in payload) expect(payload).toEqual({ id: rid, error: expect.stringMatching(/^opencode exited with code -?\d+$/) });
    else expect(payload).toEqual({ id: rid });
    expect(chatEvents(rid).filter(isDone(rid))).toHaveLength(1);

    expect(isRunning(run.pid)).toBe(false);
    const left = processTable().filter((entry) => (entry.pgrp === run.pgrp || entry.sid === run.sid) && entry.state !== 'Z' && entry.state !== 'X');
    expect(left.map(({ label }) => label)).toEqual([]);
    expect(agentServers().map(({ pid }) => pid)).toEqual(serve.map(({ pid }) => pid));
  }, TEST_MS);

  it('closing the daemon stops the agent server: nothing it started is left; every chat had exactly one done, last', async () => {
    expect(agentServers()).toHaveLength(1);
    serverClosed = true;
    await server.close();
    expect(started().map(({ label, argv }) => `${label} ${argv.join(' ')}`)).toEqual([]);

    // The socket is closed now: no event can still come, so the counts are final.
    await client.closed;
    for (const rid of ['say-hi', 'cancelled']) {
      const events = chatEvents(rid);
      expect(events.filter(isDone(rid)), rid).toHaveLength(1);
      expect(events.at(-1)?.event, rid).toBe('chat-stream-done');
    }
  }, TEST_MS);
});
