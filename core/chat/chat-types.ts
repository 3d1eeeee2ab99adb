/**
 * Agent chat's public shape (docs/noide-protocol.md#agent-chat): the daemon runs an agent's own CLI as a thin
 * client of a long-lived agent server it keeps per agent, and relays the CLI's output line by line. Dialect-
 * neutral: the `/ws` commands (handlers/rpc/commands/chat) are thin over it.
 */

export const CHAT_AGENTS = ['kilo', 'opencode'] as const;
export type ChatAgent = (typeof CHAT_AGENTS)[number];

export function isChatAgent(command: string): command is ChatAgent {
  return (CHAT_AGENTS as readonly string[]).includes(command);
}

/** One attachment as the client sent it: `base64` wins (a `data:` URL works), else `content` as UTF-8. */
export interface ChatAttachment {
  name: string;
  content?: string;
  base64?: string;
}

export interface ChatStreamRequest {
  /** The id the run's events carry and `cancel` takes. */
  rid: string;
  agent: ChatAgent;
  /** The CLI's arguments from the client, the prompt last; `--attach URL` is inserted, nothing else added. */
  args: readonly string[];
  /** Absolute real folder to run in, already checked to be a folder inside the workspace. */
  cwd: string;
  apiKey?: string;
  mode?: string;
  attachments: readonly ChatAttachment[];
}

/** Where one chat's events go (the `/ws` socket that started it). */
export interface ChatSink {
  /** One line of the CLI's output, terminator stripped. */
  chunk(stream: 'stdout' | 'stderr', text: string): void;
  /** Exactly once, after every chunk: no error on exit 0. */
  done(error?: string): void;
  /** True while the reader has too much unread: the run's pipes pause until `onDrain`. */
  readonly congested: boolean;
  /** Called when a congested reader has caught up; returns an unsubscribe. */
  onDrain(listener: () => void): () => void;
}

export interface ChatModel {
  id: string;
  label: string;
}

export interface CancelResult {
  cancelled: boolean;
  reason?: string;
}

export interface ChatEngine {
  /**
   * Starts a run and returns at once; everything after is the sink's (chunks, then one done, also for a failure
   * before the CLI started: not found, wrong binary, the agent server, attachments).
   */
  stream(request: ChatStreamRequest, sink: ChatSink): void;
  /** TERM then KILL to a running chat's group (`cancelled: true`); a chat still starting is stopped when it spawns. */
  cancel(rid: string): CancelResult;
  /** Whether the agent's CLI is installed (the lookup order and the `run --help` identity probe). */
  checkInstall(agent: ChatAgent): Promise<boolean>;
  /** The agent's model list (OpenRouter for opencode, the Kilo gateway for kilo). Throws ChatError. */
  models(agent: string, apiKey?: string): Promise<ChatModel[]>;
  /** Chats running now (started and not done). */
  readonly running: number;
  /** Stops every chat and agent server (TERM, KILL after 2 s) and removes every attachment file. */
  close(): Promise<void>;
}

/** A failure whose message is the protocol's error text, verbatim. */
export class ChatError extends Error {
  override readonly name = 'ChatError';
}
