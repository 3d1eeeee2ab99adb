import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { WebSocket } from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bytesWritten, waitFor } from '../../support/processes.ts';
import { TEST_TOKEN } from '../../support/workspace.ts';
import { MiB, nextChat, startChatFixture, type ChatFixture, type ChunkPayload, type DonePayload } from './chat-fixture.ts';

/** The `flood` scenario: 1600 lines of 65 535 `x` (100 MiB with their newlines). */
const LINES = 1600;
const LINE_LENGTH = 65_535;
const FLOOD_BYTES = LINES * (LINE_LENGTH + 1);

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

function rssAfterGc(): number {
  gc();
  return process.memoryUsage().rss;
}

/**
 * Backpressure end to end: the daemon runs in this process, and the client is a `ws` socket whose reading can be
 * paused (undici's WebSocket cannot be), so a client that stops reading is exactly that — its kernel buffers fill
 * and the daemon's writes to it stop completing.
 */
describe('/ws chat_stream to a client that stops reading', () => {
  let fx: ChatFixture;

  beforeAll(async () => {
    fx = await startChatFixture();
  });

  afterAll(async () => {
    await fx.close();
  });

  it('holds the CLI instead of the output (RSS grows < 64 MiB); once it reads again, all 100 MiB arrive, then one done', async () => {
    const url = new URL('/ws', fx.server.url.replace(/^http/, 'ws'));
    url.searchParams.set('token', TEST_TOKEN);
    const ws = new WebSocket(url);
    await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
    const { rid, prompt } = nextChat('flood');
    let lines = 0;
    let text = 0;
    let malformed = 0;
    let afterDone = 0;
    const dones: DonePayload[] = [];
    ws.on('message', (data) => {
      const frame = JSON.parse(data.toString()) as { event?: string; payload?: ChunkPayload | DonePayload };
      if (frame.payload?.id !== rid) return;
      if (frame.event === 'chat-stream-done') dones.push(frame.payload);
      if (frame.event !== 'chat-stream-chunk') return;
      const chunk = frame.payload as ChunkPayload;
      if (dones.length > 0) afterDone++;
      lines++;
      text += chunk.text.length;
      if (chunk.stream !== 'stdout' || chunk.text.length !== LINE_LENGTH || chunk.text.replaceAll('x', '') !== '') malformed++;
    });

    const before = rssAfterGc();
    let peak = before;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 10);
    let held: number;
    try {
      ws.pause();
      ws.send(JSON.stringify({ id: 1, command: 'chat_stream', args: { command: 'opencode', args: ['run', prompt], requestId: rid } }));
      const run = await fx.records.waitForRun(prompt);
      // No event says "the pipes are paused": the CLI's writes stop advancing, which is the pause seen from outside.
      let last = -1;
      let still = 0;
      held = await waitFor(
        () => {
          const written = bytesWritten(run.pid) ?? FLOOD_BYTES;
          still = written === last ? still + 1 : 0;
          last = written;
          return (still >= 10 || written >= FLOOD_BYTES) && written;
        },
        { timeoutMs: 15_000, intervalMs: 50, what: 'the CLI’s output to stop advancing' },
      );
      peak = Math.max(peak, rssAfterGc());
    } finally {
      clearInterval(sampler);
    }
    expect(held, 'bytes the CLI got written while the client was not reading').toBeLessThan(FLOOD_BYTES / 2);
    expect(peak - before, 'RSS growth while the client was not reading').toBeLessThan(64 * MiB);

    ws.resume();
    await waitFor(() => dones.length > 0, { timeoutMs: 30_000, what: 'the done' });
    // One more round trip: nothing of the chat may follow its done.
    const pong = new Promise<void>((resolve) =>
      ws.on('message', (data) => {
        if ((JSON.parse(data.toString()) as { id?: unknown }).id === 2) resolve();
      }),
    );
    ws.send(JSON.stringify({ id: 2, command: 'get_cwd' }));
    await pong;
    expect({ lines, text, malformed, afterDone, dones }).toEqual({ lines: LINES, text: LINES * LINE_LENGTH, malformed: 0, afterDone: 0, dones: [{ id: rid }] });
    ws.close();
  }, 40_000);
});
