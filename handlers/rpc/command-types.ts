/**
 * The `/ws` command table as types: each command's arguments as a client sends them and its result, read from the
 * rows themselves (their zod shapes and what their `run` returns). For the typed client (client/rpc-client.ts);
 * nothing here runs.
 */
import type { RpcCommand } from './command.ts';
import type { archiveCommands } from './commands/archive/index.ts';
import type { chatCommands } from './commands/chat/index.ts';
import type { fileCommands } from './commands/files/index.ts';
import type { gitCommands } from './commands/git/index.ts';
import type { ptyCommands } from './commands/pty/index.ts';
import type { shellCommands } from './commands/shell/index.ts';

export type RpcCommandTable = typeof ptyCommands &
  typeof shellCommands &
  typeof fileCommands &
  typeof archiveCommands &
  typeof gitCommands &
  typeof chatCommands;

export type RpcCommandName = keyof RpcCommandTable & string;

export type RpcArgs<C extends RpcCommandName> = RpcCommandTable[C] extends RpcCommand<infer A, unknown> ? A : never;

export type RpcResult<C extends RpcCommandName> = RpcCommandTable[C] extends RpcCommand<Record<string, unknown>, infer R> ? R : never;

/** The events the server sends (docs/noide-protocol.md): terminal output and exits, chat chunks and ends. */
export interface RpcEvents {
  'pty-output': { session_id: string; data: string; offset: number; length: number };
  'pty-exit': { session_id: string; code: number | null };
  'chat-stream-chunk': { id: string; stream: 'stdout' | 'stderr'; text: string };
  'chat-stream-done': { id: string; error?: string };
}
