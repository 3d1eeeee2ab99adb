/**
 * A `text/event-stream` (Server-Sent Events) response body fed by an async source of JSON frames: each frame
 * one `data: <json>\n\n` event, a `: keep-alive\n\n` comment every `keepAliveMs` so proxies and load
 * balancers do not cut an idle stream, and the source closed when the client goes away (the body's
 * `cancel`). Web APIs only.
 *
 * The body pulls one frame at a time: a client that stops reading (a full TCP window) stops the pulls, so
 * what piles up is the source's own bounded queue (core/changes), never this stream.
 */
import { logUnexpectedError } from '../errors/unexpected-error.ts';
import { createResponse } from './response.ts';

export interface FrameSource<T> {
  /** The next frame; `done` ends the stream. */
  next(): Promise<IteratorResult<T, unknown>>;
  /** Called once when the stream ends or the client cancels it. */
  close(): void;
}

export interface EventStreamOptions {
  keepAliveMs: number;
  headers?: HeadersInit;
}

const encoder = new TextEncoder();
const KEEP_ALIVE = encoder.encode(': keep-alive\n\n');

export function eventStreamResponse<T>(source: FrameSource<T>, options: EventStreamOptions): Response {
  let keepAlive: ReturnType<typeof setInterval> | undefined;
  let finished = false;
  const finish = () => {
    if (finished) return;
    finished = true;
    clearInterval(keepAlive);
    source.close();
  };
  const body = new ReadableStream<Uint8Array>(
    {
      start(controller) {
        keepAlive = setInterval(() => {
          // Only into an empty queue: a client that reads nothing does not collect comments either.
          if (!finished && (controller.desiredSize ?? 0) > 0) controller.enqueue(KEEP_ALIVE);
        }, options.keepAliveMs);
        // Node: an open stream nobody reads must not keep the process alive by its timer alone.
        (keepAlive as { unref?: () => void }).unref?.();
      },
      async pull(controller) {
        let result: IteratorResult<T, unknown>;
        try {
          result = await source.next();
        } catch (error) {
          // A source that fails is a bug: logged once here, and the stream ends as a stream does (a client
          // reconnects) rather than erroring into the host server, which would log it again and reset the socket.
          logUnexpectedError('an event stream', error);
          finish();
          controller.close();
          return;
        }
        if (finished) return; // cancelled while waiting
        if (result.done) {
          finish();
          controller.close();
          return;
        }
        controller.enqueue(encoder.encode(`data: ${JSON.stringify(result.value)}\n\n`));
      },
      cancel() {
        finish();
      },
    },
    { highWaterMark: 1 },
  );
  const headers = new Headers(options.headers);
  headers.set('content-type', 'text/event-stream');
  headers.set('cache-control', 'no-cache, no-transform');
  // nginx buffers proxied responses unless told not to; an event that waits in a buffer is not "at once".
  headers.set('x-accel-buffering', 'no');
  return createResponse(body, { status: 200, headers });
}
