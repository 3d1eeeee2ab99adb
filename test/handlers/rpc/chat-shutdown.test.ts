import { describe, expect, it } from 'vitest';
import { isRunning } from '../../support/processes.ts';
import { groupMembers, processesWithArg, startChat, startChatFixture, waitForChunk } from './chat-fixture.ts';

describe('daemon shutdown (server.close())', () => {
  it('stops every chat (a child of one and one that ignores SIGTERM included) and every agent server, and removes the attachment files', async () => {
    const fx = await startChatFixture({ limits: { chatKillGraceMs: 300 } });
    try {
      const chats = await Promise.all([
        startChat(fx.client, 'hang', { attachments: [{ name: 'a.txt', content: 'a' }] }),
        startChat(fx.client, 'spawnchild'),
        startChat(fx.client, 'stubborn', { command: 'kilo' }),
      ]);
      await Promise.all(chats.map((chat) => waitForChunk(fx.client, chat.rid, 'ready')));
      const runs = chats.map((chat) => fx.records.run(chat.prompt)!);
      const serves = fx.records.serves();
      expect(serves.map((serve) => serve.exe).sort()).toEqual([fx.kilo!.path, fx.opencode!.path]);
      expect(fx.tempLeft()).toHaveLength(1);

      await fx.closeServer();

      for (const run of runs) expect(groupMembers(run.pgid), run.prompt!).toEqual([]);
      expect(isRunning(runs[1]!.grandchild!)).toBe(false);
      for (const serve of serves) expect(groupMembers(serve.pgid), serve.exe).toEqual([]);
      expect(fx.tempLeft()).toEqual([]);
    } finally {
      await fx.close();
    }
  });

  it('a chat still starting (its server has not printed its port) is stopped too: its server is gone and no run is left', async () => {
    const fx = await startChatFixture({ agents: { opencode: { holdPort: true } } });
    try {
      const chat = await startChat(fx.client, 'hang', { attachments: [{ name: 'a.txt', content: 'a' }] });
      const serve = await fx.records.waitForServe();

      // Its server would only give up after chatServerStartMs (30 s): a shutdown must not wait for that.
      await settlesWithin(fx.closeServer(), 5000, 'server.close() with a chat still starting');

      expect(groupMembers(serve.pgid)).toEqual([]);
      expect(processesWithArg(chat.prompt)).toEqual([]);
      expect(fx.tempLeft()).toEqual([]);
    } finally {
      await fx.records.releaseServe(); // lets a close that waits for the start finish, so clean-up does not hang
      await fx.close();
    }
  });
});

/** Awaits `promise`, failing with a clear message if it has not settled after `ms`. */
async function settlesWithin(promise: Promise<unknown>, ms: number, what: string): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} had not settled after ${ms} ms`)), ms);
  });
  try {
    await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}
