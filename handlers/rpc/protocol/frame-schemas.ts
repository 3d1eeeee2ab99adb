/**
 * The protocol's frames (docs/noide-protocol.md#frames), for the protocol document: the request as the server
 * parses it (handlers/rpc/frames.ts), the two replies, an event, and the app-level keepalive. A reply's `result`
 * and an event's `payload` are open here: each command's and event's own schema says what they hold.
 */
import { z } from 'zod';
import { requestFrame } from '../frames.ts';

const id = z.union([z.number(), z.string()]).describe("the request's id; 0 for a frame that could not be read as a request");

export const frameSchemas = {
  request: requestFrame,
  replyOk: z.strictObject({ id, ok: z.literal(true), result: z.unknown() }),
  replyError: z.strictObject({ id, ok: z.literal(false), error: z.string() }),
  event: z.strictObject({ event: z.string(), payload: z.unknown() }),
  ping: z.strictObject({ event: z.literal('__ping') }).describe('client → server'),
  pong: z.strictObject({ event: z.literal('__pong') }).describe('server → client'),
};
