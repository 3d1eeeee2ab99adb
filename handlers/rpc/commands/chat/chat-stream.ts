/**
 * `chat_stream {command, args?, cwd?, apiKey?, mode?, attachments?, requestId?}` → `null` (docs/noide-protocol.md#chat_stream):
 * starts a chat on the engine (core/chat) and answers at once; everything after is `chat-stream-chunk` and one
 * `chat-stream-done` event, carrying the chat's id (`requestId` when it is a string, else this request's id as a
 * string). A `cwd` that is missing, not a folder or outside the workspace is a `done` with the protocol's text.
 */
import { z } from 'zod';
import { isFsError } from '../../../../adapters/fs/fs-error.ts';
import { WorkspaceError } from '../../../../core/errors/workspace-error.ts';
import { ChatError, isChatAgent, type ChatAttachment } from '../../../../core/chat/chat-types.ts';
import type { WorkspaceContext } from '../../../../runtime/context.ts';
import { defineCommand, RpcError } from '../../command.ts';
import { chatOf } from './chat-of.ts';
import { socketSink } from './socket-sink.ts';

/** `args`: any element that is not a string makes the whole list count as absent. */
const argList = z
  .array(z.unknown())
  // What a client should send; anything else is tolerated as the protocol says (the protocol document shows this).
  .meta({ items: { type: 'string' }, description: 'extra CLI arguments; a list with any non-string element counts as absent' })
  .transform((list) => (list.every((item) => typeof item === 'string') ? (list as string[]) : []));

/** Attachments: elements without a string `name` are skipped; a `content`/`base64` that is not a string is absent. */
const attachmentList = z
  .array(z.unknown())
  .meta({
    items: {
      type: 'object',
      properties: {
        name: { type: 'string', description: 'the file name the agent sees' },
        content: { type: 'string', description: 'text content, or a data: URL' },
        base64: { type: 'string', description: 'the bytes, base64' },
      },
      required: ['name'],
    },
    description: 'files handed to the agent; an element without a string name is skipped',
  })
  .transform((list) => list.flatMap((item) => attachmentOf(item)));

export const chatStream = defineCommand({
  args: {
    command: z.string(),
    args: argList.optional(),
    cwd: z.string().optional(),
    apiKey: z.string().optional(),
    mode: z.string().optional(),
    attachments: attachmentList.optional(),
    requestId: z.string().optional(),
  },
  async run(input, { ctx, connection, requestId }) {
    if (!isChatAgent(input.command)) throw new RpcError('Unsupported chat agent');
    const chat = chatOf(ctx);
    const rid = input.requestId ?? String(requestId);
    const sink = socketSink(connection, rid);
    const cwd = await chatFolder(ctx, input.cwd);
    if (typeof cwd !== 'string') {
      sink.done(cwd.error);
      return null;
    }
    try {
      chat.stream({ rid, agent: input.command, args: input.args ?? [], cwd, apiKey: input.apiKey, mode: input.mode, attachments: input.attachments ?? [] }, sink);
    } catch (error) {
      if (error instanceof ChatError) throw new RpcError(error.message);
      throw error;
    }
    return null;
  },
});

/** The folder a chat runs in (default: the root), or the `done` error that says why it cannot. */
async function chatFolder(ctx: WorkspaceContext, cwd: string | undefined): Promise<string | { error: string }> {
  if (cwd === undefined) return ctx.root;
  let real: string;
  try {
    real = await ctx.resolve(cwd);
  } catch (error) {
    if (error instanceof WorkspaceError && error.code !== 'not-found') return { error: error.message };
    return { error: missing(cwd) };
  }
  let type;
  try {
    type = (await ctx.fs.stat(real)).type;
  } catch (error) {
    if (isFsError(error)) return { error: missing(cwd) };
    throw error;
  }
  if (type !== 'dir') return { error: `Working directory '${cwd}' is not a directory. Open a valid folder and try again.` };
  return real;
}

function missing(cwd: string): string {
  return `Working directory '${cwd}' does not exist on this server. Open a valid folder (or clear the saved session) and try again.`;
}

function attachmentOf(item: unknown): ChatAttachment[] {
  if (typeof item !== 'object' || item === null || Array.isArray(item)) return [];
  const record = item as Record<string, unknown>;
  if (typeof record.name !== 'string') return [];
  return [
    {
      name: record.name,
      ...(typeof record.content === 'string' ? { content: record.content } : {}),
      ...(typeof record.base64 === 'string' ? { base64: record.base64 } : {}),
    },
  ];
}
