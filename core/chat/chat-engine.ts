/**
 * The agent-chat engine (docs/noide-protocol.md#agent-chat): the daemon's table of chats — per daemon, not per
 * socket, so a reconnected client can cancel one —, its bound on how many run at once, the agent servers, the
 * agent lookup, and the model lists. One run's life is ./chat-run.ts.
 */
import type { ChatHost } from '../../adapters/process/chat-host.ts';
import { AgentServers } from './agent-servers.ts';
import { missingText, wrongBinaryText } from './agents.ts';
import { runChat, type RunHandle } from './chat-run.ts';
import { ChatError, type CancelResult, type ChatAgent, type ChatEngine, type ChatSink, type ChatStreamRequest } from './chat-types.ts';
import { findAgent } from './find-agent.ts';
import { DEFAULT_MODEL_BASE_URLS, listModels } from './model-lists.ts';

export interface ChatEngineOptions {
  host: ChatHost;
  /** The workspace root: the agent servers and the probes run there. */
  root: string;
  /** Chats running at once; one more ends at once with an error. */
  maxChats: number;
  /** A chat nobody cancels is stopped after this long. */
  timeoutMs: number;
  /** How long an agent server may take to print its port. */
  serverStartMs: number;
  /** SIGTERM → SIGKILL grace for a chat, a server, a probe. */
  killGraceMs: number;
  /** `run --help`'s limit. */
  probeTimeoutMs: number;
  /** `chat_models`: base URLs (default: the public services) and limit. */
  modelsBaseUrls?: { opencode?: string; kilo?: string };
  modelsTimeoutMs: number;
}

export function createChatEngine(options: ChatEngineOptions): ChatEngine {
  const { host } = options;
  const servers = new AgentServers({ host, cwd: options.root, startTimeoutMs: options.serverStartMs, killGraceMs: options.killGraceMs });
  const chats = new Map<string, { handle: RunHandle; ended: Promise<void> }>();
  /** Executables whose identity a probe confirmed, reused while they stay executable files. */
  const confirmed = new Map<ChatAgent, string>();
  const baseUrls = { ...DEFAULT_MODEL_BASE_URLS, ...options.modelsBaseUrls };
  let closed = false;

  async function executable(agent: ChatAgent): Promise<string> {
    const known = confirmed.get(agent);
    if (known !== undefined && (await host.isExecutableFile(known))) return known;
    const found = await findAgent(host, agent, { probeTimeoutMs: options.probeTimeoutMs, cwd: options.root });
    if (!found.found) throw new ChatError(found.reason === 'missing' ? missingText(agent) : wrongBinaryText(agent));
    confirmed.set(agent, found.path);
    return found.path;
  }

  const parts = { host, servers, executable, killGraceMs: options.killGraceMs, timeoutMs: options.timeoutMs };

  return {
    stream(request: ChatStreamRequest, sink: ChatSink): void {
      if (chats.has(request.rid)) throw new ChatError(`a chat with id '${request.rid}' is already running`);
      if (closed) return sink.done('agent chat has shut down');
      if (chats.size >= options.maxChats) {
        return sink.done(`too many chats running (${options.maxChats}); cancel one or wait for one to finish`);
      }
      const handle: RunHandle = { process: undefined, cancelled: false };
      const entry = { handle, ended: Promise.resolve() };
      chats.set(request.rid, entry);
      entry.ended = runChat(parts, request, sink, handle).finally(() => chats.delete(request.rid));
    },

    cancel(rid: string): CancelResult {
      const chat = chats.get(rid);
      if (chat === undefined) return { cancelled: false, reason: 'Process not found' };
      chat.handle.cancelled = true;
      const process = chat.handle.process;
      if (process === undefined) return { cancelled: false, reason: 'Process not found' };
      void process.stop(options.killGraceMs);
      return { cancelled: true };
    },

    async checkInstall(agent: ChatAgent): Promise<boolean> {
      const found = await findAgent(host, agent, { probeTimeoutMs: options.probeTimeoutMs, cwd: options.root });
      if (found.found) confirmed.set(agent, found.path);
      return found.found;
    },

    models: (agent, apiKey) => listModels(agent, apiKey, { baseUrls, timeoutMs: options.modelsTimeoutMs }),

    get running() {
      return chats.size;
    },

    async close(): Promise<void> {
      closed = true;
      for (const { handle } of chats.values()) {
        handle.cancelled = true;
        void handle.process?.stop(options.killGraceMs);
      }
      await Promise.all([...chats.values()].map((chat) => chat.ended));
      await servers.close();
    },
  };
}
