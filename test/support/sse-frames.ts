import { expect } from 'vitest';
import type { FeedFrame } from '../../core/changes/change-feed.ts';

/** Generous: the machine is shared and loaded; every wait ends as soon as what it waits for arrives. */
export const SSE_TIMEOUT_MS = 15_000;

const TIMED_OUT = Symbol('timed out');

/**
 * Reads an event stream (`GET /workspace-files/changes`) block by block: a block is the text before a blank
 * line, one event or one comment. The one reader for every change-feed test, with two kinds of wait:
 *
 * - `block()`, `frame()`, `until()` fail the test when nothing arrives in time (a frame that must come);
 * - `next()` answers `undefined` when nothing arrives in time (to tell a quiet stream from a busy one).
 *
 * A read that times out keeps its pending chunk for the next read, so no byte is ever lost between waits.
 * Every data frame read is kept in `seen`, in order.
 */
export class SseFrames<Frame = FeedFrame> {
  readonly seen: Frame[] = [];
  private buffer = '';
  private pending: Promise<ReadableStreamReadResult<Uint8Array>> | undefined;
  private readonly decoder = new TextDecoder();
  private readonly reader: ReadableStreamDefaultReader<Uint8Array>;

  constructor(body: ReadableStream<Uint8Array>, private readonly timeoutMs = SSE_TIMEOUT_MS) {
    this.reader = body.getReader();
  }

  /** The next block, raw; `undefined` when the stream ended; fails when none arrives within `timeoutMs`. */
  async block(timeoutMs = this.timeoutMs): Promise<string | undefined> {
    const block = await this.read(timeoutMs);
    if (block === TIMED_OUT) throw new Error(`no event within ${timeoutMs} ms`);
    return block;
  }

  /** The next data frame, parsed (keep-alive comments skipped); `undefined` when the stream ended; fails on timeout. */
  async frame(timeoutMs = this.timeoutMs): Promise<Frame | undefined> {
    const frame = await this.readFrame(timeoutMs);
    if (frame === TIMED_OUT) throw new Error(`no event within ${timeoutMs} ms`);
    return frame;
  }

  /** The next data frame, or `undefined` when none arrives within `timeoutMs`; fails when the stream ended. */
  async next(timeoutMs = this.timeoutMs): Promise<Frame | undefined> {
    const frame = await this.readFrame(timeoutMs);
    if (frame === TIMED_OUT) return undefined;
    if (frame === undefined) throw new Error('the stream ended');
    return frame;
  }

  /**
   * Frames until one satisfies `match` (which is returned); the others are collected into `skipped`. Fails when
   * the stream ends or no frame arrives within the timeout (each frame gets the whole timeout).
   */
  async until(match: (frame: Frame) => boolean, skipped: Frame[] = [], what = 'the awaited frame'): Promise<Frame> {
    for (;;) {
      const frame = await this.readFrame(this.timeoutMs);
      if (frame === TIMED_OUT) throw new Error(`no frame for ${what} within ${this.timeoutMs} ms`);
      if (frame === undefined) throw new Error('the stream ended');
      if (match(frame)) return frame;
      skipped.push(frame);
    }
  }

  cancel(): Promise<void> {
    return this.reader.cancel();
  }

  private async readFrame(timeoutMs: number): Promise<Frame | undefined | typeof TIMED_OUT> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const block = await this.read(Math.max(0, deadline - Date.now()));
      if (block === TIMED_OUT || block === undefined) return block;
      if (block.startsWith(':')) continue; // keep-alive
      expect(block).toMatch(/^data: [^\n]*$/); // one frame, one data line
      const frame = JSON.parse(block.slice('data: '.length)) as Frame;
      this.seen.push(frame);
      return frame;
    }
  }

  private async read(timeoutMs: number): Promise<string | undefined | typeof TIMED_OUT> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const end = this.buffer.indexOf('\n\n');
      if (end >= 0) {
        const block = this.buffer.slice(0, end);
        this.buffer = this.buffer.slice(end + 2);
        return block;
      }
      this.pending ??= this.reader.read();
      let timer: ReturnType<typeof setTimeout> | undefined;
      const result = await Promise.race([
        this.pending,
        new Promise<typeof TIMED_OUT>((resolve) => (timer = setTimeout(() => resolve(TIMED_OUT), Math.max(0, deadline - Date.now())))),
      ]).finally(() => clearTimeout(timer));
      if (result === TIMED_OUT) return TIMED_OUT;
      this.pending = undefined;
      if (result.done) return undefined;
      this.buffer += this.decoder.decode(result.value, { stream: true });
    }
  }
}

/** An open `/workspace-files/changes` stream of a real server, read up to its `ready` frame; `abort` closes it. */
export interface OpenChangeStream {
  events: SseFrames;
  abort: AbortController;
}

/**
 * Opens `/workspace-files/changes` on a running server as a client would (Bearer token) and reads its first frame,
 * `ready`: from then on the watcher's watches are in place, so everything written after is seen.
 */
export async function openChangeStream(serverUrl: string, token: string, query = ''): Promise<OpenChangeStream> {
  const abort = new AbortController();
  const response = await fetch(`${serverUrl}/workspace-files/changes${query}`, {
    headers: { authorization: `Bearer ${token}` },
    signal: abort.signal,
  });
  expect(response.status).toBe(200);
  const events = new SseFrames(response.body as ReadableStream<Uint8Array>);
  expect(await events.frame()).toEqual({ kind: 'ready' });
  return { events, abort };
}
