/**
 * The events the server sends (docs/noide-protocol.md#terminals, docs/noide-protocol.md#agent-chat), by name: the
 * `payload` of an event frame. Written as the rows emit them (handlers/rpc/commands/pty/socket-terminals.ts,
 * handlers/rpc/commands/chat/socket-sink.ts); the type checker holds them equal to RpcEvents.
 */
import { z } from 'zod';
import type { RpcEvents } from '../command-types.ts';

export const rpcEventSchemas = {
  'pty-output': z.strictObject({
    session_id: z.string(),
    data: z.string().describe('text cut at whole UTF-8 characters (lossy for bytes that are not UTF-8)'),
    offset: z.number().int().min(0).describe('the byte offset of its first byte'),
    length: z.number().int().min(0).describe('the bytes it stands for: resume at offset + length'),
  }),
  'pty-exit': z.strictObject({ session_id: z.string(), code: z.number().int().nullable().describe('null after a kill or a signal') }),
  'chat-stream-chunk': z.strictObject({ id: z.string(), stream: z.enum(['stdout', 'stderr']), text: z.string().describe('one line') }),
  'chat-stream-done': z.strictObject({ id: z.string(), error: z.string().optional() }),
} satisfies Record<keyof RpcEvents, z.ZodType>;
