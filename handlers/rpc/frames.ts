/**
 * The protocol's frames (docs/noide-protocol.md#frames): request `{id, command, args}`, reply `{id, ok, result|error}`,
 * event `{event, payload}`; the app-level keepalive `{"event":"__ping"}` → `{"event":"__pong"}`.
 */
import { z } from 'zod';
import { jsonType } from './command.ts';

/** A request as parsed; the protocol document (handlers/rpc/protocol/) describes requests with this schema. */
export const requestFrame = z.object({
  id: z.union([z.number(), z.string()]),
  command: z.string(),
  args: z.record(z.string(), z.unknown()).optional().nullable(),
});

/** What each key of a request must be, for the `invalid request: …` text (zod's `record`, `Invalid input` are not the protocol's words). */
const EXPECTED: Record<string, string> = { id: 'a number or a string', command: 'a string', args: 'an object' };

export type ParsedFrame =
  | { kind: 'request'; id: number | string; command: string; args: Record<string, unknown> }
  | { kind: 'ping' }
  /** Some other event a client sent: nothing to answer. */
  | { kind: 'event' }
  | { kind: 'invalid'; reason: string };

export function parseFrame(text: string): ParsedFrame {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    return { kind: 'invalid', reason: `malformed JSON (${(error as Error).message})` };
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json)) {
    return { kind: 'invalid', reason: 'a frame must be a JSON object' };
  }
  const record = json as Record<string, unknown>;
  if (typeof record.event === 'string' && !('command' in record)) {
    return record.event === '__ping' ? { kind: 'ping' } : { kind: 'event' };
  }
  const parsed = requestFrame.safeParse(json);
  if (!parsed.success) {
    const key = String(parsed.error.issues[0]?.path[0] ?? '');
    const value = record[key];
    const reason = value === undefined ? 'missing' : `expected ${EXPECTED[key] ?? 'something else'}, got ${jsonType(value)}`;
    return { kind: 'invalid', reason: `'${key}': ${reason}` };
  }
  return { kind: 'request', id: parsed.data.id, command: parsed.data.command, args: parsed.data.args ?? {} };
}

export function replyOk(id: number | string, result: unknown): string {
  return JSON.stringify({ id, ok: true, result: result === undefined ? null : result });
}

export function replyError(id: number | string, error: string): string {
  return JSON.stringify({ id, ok: false, error });
}

export function eventFrame(event: string, payload: unknown): string {
  return JSON.stringify({ event, payload });
}

export const PONG = JSON.stringify({ event: '__pong' });
