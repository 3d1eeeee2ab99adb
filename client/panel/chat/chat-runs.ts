/**
 * The chats the panel has started over the shared `/ws` client (docs/noide-protocol.md#agent-chat): each run gets
 * an id of ours (`requestId`), its `chat-stream-chunk` events go to it as they come and its one `chat-stream-done`
 * ends it. A run whose connection drops before its done can never hear it (events go to the socket that started
 * the chat), so it ends as `interrupted`; once the connection is back it is cancelled on the daemon, whose output
 * would only be dropped.
 */
import { RpcCallError, type RpcClient } from '../../rpc-client.ts';
import { messageOf } from '../shared/errors.ts';

/** The agent CLIs the daemon runs for chat: `chat_stream` takes exactly these (anything else is `Unsupported chat agent`). */
export const CHAT_AGENTS = ['opencode', 'kilo'] as const;
export type ChatAgentName = (typeof CHAT_AGENTS)[number];

export type ChatEnd =
  | { state: 'done' }
  | { state: 'cancelled'; detail?: string }
  | { state: 'error'; message: string }
  | { state: 'interrupted' };

export interface ChatRunHandlers {
  chunk(stream: 'stdout' | 'stderr', text: string): void;
  end(end: ChatEnd): void;
  /** After an interruption: what became of the run on the daemon once the connection was back. */
  afterInterruption?(message: string): void;
}

export interface ChatRequest {
  agent: ChatAgentName;
  prompt: string;
  /** A model id as `chat_models` lists it; absent: the CLI's default. */
  model?: string;
  attachments?: { name: string; base64: string }[];
}

interface Run {
  handlers: ChatRunHandlers;
  cancelRequested: boolean;
}

/**
 * The CLI's arguments for one message: `run [-m provider/model] prompt`, plain text output (no `--format json`:
 * the panel shows lines as the CLI prints them). The lists `chat_models` answers are the providers' own ids
 * (OpenRouter's for opencode, the Kilo gateway's for kilo), so they are named through that provider.
 */
export function chatArgs(request: ChatRequest): string[] {
  const model = request.model ? ['-m', `${request.agent === 'opencode' ? 'openrouter' : 'kilo'}/${request.model}`] : [];
  return ['run', ...model, request.prompt];
}

export class ChatRuns {
  readonly #rpc: RpcClient;
  readonly #runs = new Map<string, Run>();
  /** Runs cut off by a dropped connection, to cancel on the daemon once it is back. */
  readonly #orphans = new Map<string, Run>();
  readonly #prefix = `panel-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
  #count = 0;
  #wasOpen: boolean;

  constructor(rpc: RpcClient) {
    this.#rpc = rpc;
    this.#wasOpen = rpc.state === 'open';
    rpc.on('chat-stream-chunk', ({ id, stream, text }) => this.#runs.get(id)?.handlers.chunk(stream, text));
    rpc.on('chat-stream-done', ({ id, error }) => {
      const run = this.#runs.get(id);
      if (!run) return;
      this.#runs.delete(id);
      if (run.cancelRequested) run.handlers.end({ state: 'cancelled', ...(error === undefined ? {} : { detail: error }) });
      else if (error !== undefined) run.handlers.end({ state: 'error', message: error });
      else run.handlers.end({ state: 'done' });
    });
    rpc.onState((state) => {
      if (state === 'open') {
        this.#wasOpen = true;
        this.#cancelOrphans();
      } else if (this.#wasOpen) {
        this.#wasOpen = false;
        this.#interruptAll();
      }
    });
  }

  get running(): number {
    return this.#runs.size;
  }

  /** Starts a chat; returns its id. Everything after (chunks, the end) goes to `handlers`. */
  start(request: ChatRequest, handlers: ChatRunHandlers): string {
    const id = `${this.#prefix}-${++this.#count}`;
    const run: Run = { handlers, cancelRequested: false };
    // Registered before the call: the first events may come before the reply.
    this.#runs.set(id, run);
    this.#rpc
      .call('chat_stream', {
        command: request.agent,
        args: chatArgs(request),
        requestId: id,
        ...(request.attachments?.length ? { attachments: request.attachments } : {}),
      })
      .catch((error: unknown) => {
        if (this.#runs.get(id) !== run) return; // already ended (interrupted)
        this.#runs.delete(id);
        if (error instanceof RpcCallError) handlers.end({ state: 'error', message: error.message });
        else this.#interrupt(id, run);
      });
    return id;
  }

  /** Asks the daemon to stop the chat; its done (which follows) ends it as cancelled. */
  async cancel(id: string): Promise<void> {
    const run = this.#runs.get(id);
    if (!run) return;
    run.cancelRequested = true;
    await this.#rpc.call('chat_cancel', { id });
  }

  #interruptAll(): void {
    for (const [id, run] of [...this.#runs]) this.#interrupt(id, run);
  }

  #interrupt(id: string, run: Run): void {
    this.#runs.delete(id);
    this.#orphans.set(id, run);
    run.handlers.end({ state: 'interrupted' });
    if (this.#rpc.state === 'open') this.#cancelOrphans();
  }

  #cancelOrphans(): void {
    for (const [id, run] of [...this.#orphans]) {
      this.#orphans.delete(id);
      this.#rpc.call('chat_cancel', { id }).then(
        (answer) =>
          run.handlers.afterInterruption?.(
            answer.cancelled ? 'the run was stopped on the daemon once the connection was back' : 'the daemon had no running process left for it',
          ),
        (error: unknown) => run.handlers.afterInterruption?.(`could not stop the run on the daemon: ${messageOf(error)}`),
      );
    }
  }
}
