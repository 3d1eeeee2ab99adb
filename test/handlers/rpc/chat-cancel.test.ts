import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isRunning, waitFor } from '../../support/processes.ts';
import {
  finished,
  groupMembers,
  nextChat,
  processesWithArg,
  startChat,
  startChatFixture,
  waitForChunk,
  waitForDone,
  type ChatFixture,
} from './chat-fixture.ts';

const NOT_FOUND = { cancelled: false, reason: 'Process not found' };

describe('/ws chat_cancel', () => {
  let fx: ChatFixture;

  beforeAll(async () => {
    // A short grace, so the run that ignores SIGTERM is KILLed soon.
    fx = await startChatFixture({ limits: { chatKillGraceMs: 300 } });
  });

  afterAll(async () => {
    await fx.close();
  });

  /** Starts `scenario` and waits for its `ready` line: the run is spawned and has recorded itself. */
  async function running(scenario: string, client = fx.client) {
    const chat = await startChat(client, scenario);
    await waitForChunk(client, chat.rid, 'ready');
    return { ...chat, run: fx.records.run(chat.prompt)! };
  }

  async function groupGone(pgid: number): Promise<void> {
    await waitFor(() => groupMembers(pgid).length === 0, { timeoutMs: 3000, what: `process group ${pgid} to be gone (${groupMembers(pgid).join(', ')})` });
  }

  it('a running chat: cancelled, its done follows with the signal’s exit code, and nothing of its group is left', async () => {
    const { rid, run } = await running('spawnchild');
    expect(run.pgid).toBe(run.pid);
    expect(run.grandchild).toBeDefined();
    expect(groupMembers(run.pgid)).toHaveLength(2);
    const reply = await fx.client.call('chat_cancel', { id: rid });
    expect(reply).toEqual({ id: reply.id, ok: true, result: { cancelled: true } });
    expect(await finished(fx.client, rid)).toEqual({ done: { id: rid, error: 'opencode exited with code -1' }, stdout: ['ready'], stderr: [] });
    await groupGone(run.pgid);
    expect(isRunning(run.grandchild!)).toBe(false);
  });

  it('a run that ignores SIGTERM is KILLed after the grace', async () => {
    const { rid, run } = await running('stubborn');
    expect(await fx.client.ok('chat_cancel', { id: rid })).toEqual({ cancelled: true });
    expect((await finished(fx.client, rid)).done).toEqual({ id: rid, error: 'opencode exited with code -1' });
    await groupGone(run.pgid);
  });

  it('kilo’s done names kilo', async () => {
    const chat = await startChat(fx.client, 'hang', { command: 'kilo' });
    await waitForChunk(fx.client, chat.rid, 'ready');
    expect(await fx.client.ok('chat_cancel', { id: chat.rid })).toEqual({ cancelled: true });
    expect((await finished(fx.client, chat.rid)).done).toEqual({ id: chat.rid, error: 'kilo exited with code -1' });
  });

  it('an unknown id, or a chat that has ended: not found', async () => {
    expect(await fx.client.ok('chat_cancel', { id: 'no-such-chat' })).toEqual(NOT_FOUND);
    const { rid } = await startChat(fx.client, 'hello');
    await finished(fx.client, rid);
    expect(await fx.client.ok('chat_cancel', { id: rid })).toEqual(NOT_FOUND);
  });

  it('a chat whose id is its request frame’s: cancelled by that id as a string or as the number it was', async () => {
    for (const asSent of [(id: number) => String(id), (id: number) => id]) {
      const chat = nextChat('hang');
      const reply = await fx.client.call('chat_stream', { command: 'opencode', args: ['run', chat.prompt] });
      const rid = String(reply.id);
      await waitForChunk(fx.client, rid, 'ready');
      expect(await fx.client.ok('chat_cancel', { id: asSent(reply.id as number) })).toEqual({ cancelled: true });
      expect((await finished(fx.client, rid)).done).toEqual({ id: rid, error: 'opencode exited with code -1' });
    }
  });

  it('a second socket cancels a chat started on the first; the first gets the done', async () => {
    const other = await fx.connect();
    const { rid, run } = await running('hang');
    expect(await other.ok('chat_cancel', { id: rid })).toEqual({ cancelled: true });
    expect((await finished(fx.client, rid)).done).toEqual({ id: rid, error: 'opencode exited with code -1' });
    await groupGone(run.pgid);
    expect(other.events).toEqual([]);
  });

  it('a socket that closes does not stop its chats: another one can still cancel them', async () => {
    const leaving = await fx.connect();
    const { rid, run } = await running('hang', leaving);
    await leaving.close();
    // The daemon acts on a close as it reads it; a round trip on another socket lets it have done so.
    await fx.client.ok('get_cwd');
    expect(isRunning(run.pid)).toBe(true);
    expect(await fx.client.ok('chat_cancel', { id: rid })).toEqual({ cancelled: true });
    await groupGone(run.pgid);
  });

});

describe('/ws chat_cancel of a chat still starting (its agent server has not printed its port yet)', () => {
  let fx: ChatFixture;

  beforeAll(async () => {
    fx = await startChatFixture({ agents: { opencode: { holdPort: true } } });
  });

  afterAll(async () => {
    await fx.records.releaseServe();
    await fx.close();
  });

  it('is not found yet, and the run is stopped as soon as it spawns', async () => {
    const { rid, prompt } = await startChat(fx.client, 'hang');
    await fx.records.waitForServe();
    expect(await fx.client.ok('chat_cancel', { id: rid })).toEqual(NOT_FOUND);
    await fx.records.releaseServe();
    const outcome = await finished(fx.client, rid);
    expect(outcome.done).toEqual({ id: rid, error: 'opencode exited with code -1' });
    expect(outcome.stdout.filter((line) => line !== 'ready')).toEqual([]);
    await waitFor(() => processesWithArg(prompt).length === 0, { timeoutMs: 3000, what: 'the run to be gone' });
  });
});

describe('/ws chat_stream: at most maxChats running at once', () => {
  let fx: ChatFixture;

  beforeAll(async () => {
    fx = await startChatFixture({ limits: { maxChats: 2 } });
  });

  afterAll(async () => {
    await fx.close();
  });

  it('one more is refused in its done without running; once one ends, a new one runs', async () => {
    const first = await startChat(fx.client, 'hang');
    const second = await startChat(fx.client, 'hang', { command: 'kilo' });
    await Promise.all([waitForChunk(fx.client, first.rid, 'ready'), waitForChunk(fx.client, second.rid, 'ready')]);
    const third = await startChat(fx.client, 'hello');
    expect(await finished(fx.client, third.rid)).toEqual({
      done: { id: third.rid, error: 'too many chats running (2); cancel one or wait for one to finish' },
      stdout: [],
      stderr: [],
    });
    expect(fx.records.started(third.prompt)).toBe(false);
    expect(await fx.client.ok('chat_cancel', { id: first.rid })).toEqual({ cancelled: true });
    await waitForDone(fx.client, first.rid);
    const fourth = await startChat(fx.client, 'hello');
    expect(await finished(fx.client, fourth.rid)).toEqual({ done: { id: fourth.rid }, stdout: ['hello from opencode'], stderr: [] });
    expect(await fx.client.ok('chat_cancel', { id: second.rid })).toEqual({ cancelled: true });
    await waitForDone(fx.client, second.rid);
  });
});

describe('/ws chat_stream: a chat nobody cancels is bounded by chatTimeoutMs', () => {
  let fx: ChatFixture;

  beforeAll(async () => {
    fx = await startChatFixture({ limits: { chatTimeoutMs: 1500, chatKillGraceMs: 300 } });
  });

  afterAll(async () => {
    await fx.close();
  });

  it('is stopped with its whole group, and its done says it timed out', async () => {
    const chat = await startChat(fx.client, 'spawnchild');
    await waitForChunk(fx.client, chat.rid, 'ready');
    const run = fx.records.run(chat.prompt)!;
    expect(await finished(fx.client, chat.rid)).toEqual({ done: { id: chat.rid, error: 'opencode timed out after 1.5 s' }, stdout: ['ready'], stderr: [] });
    await waitFor(() => groupMembers(run.pgid).length === 0, { timeoutMs: 3000, what: `process group ${run.pgid} to be gone` });
    expect(isRunning(run.grandchild!)).toBe(false);
  });
});
