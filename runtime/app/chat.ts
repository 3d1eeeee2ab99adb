/**
 * Agent chat's part of the app (core/chat, docs/noide-protocol.md#agent-chat): one engine per workspace root,
 * built with the first request's context (the root's real path is known then), closed with the app. Without a
 * chat host (Workers, an embedder that gives none) there is none, and the chat commands say so.
 */
import { createChatEngine } from '../../core/chat/chat-engine.ts';
import type { ChatEngine } from '../../core/chat/chat-types.ts';
import type { Limits } from '../context.ts';
import type { WorkspaceAppOptions } from './app-options.ts';

export interface ChatPart {
  /** The engine for `root` (the same one until the root changes), or undefined without a host. */
  engineFor(root: string): ChatEngine | undefined;
  close(): Promise<void>;
}

export function buildChat(options: WorkspaceAppOptions, limits: Limits): ChatPart {
  let current: { root: string; engine: ChatEngine } | undefined;
  const retired: Promise<void>[] = [];
  return {
    engineFor(root) {
      const host = options.chatHost;
      if (host === undefined) return undefined;
      if (current?.root === root) return current.engine;
      if (current !== undefined) retired.push(current.engine.close());
      const engine = createChatEngine({
        host,
        root,
        maxChats: limits.maxChats,
        timeoutMs: limits.chatTimeoutMs,
        serverStartMs: limits.chatServerStartMs,
        killGraceMs: limits.chatKillGraceMs,
        probeTimeoutMs: limits.chatProbeTimeoutMs,
        modelsTimeoutMs: limits.chatModelsTimeoutMs,
        ...(options.chatModelsUrls === undefined ? {} : { modelsBaseUrls: options.chatModelsUrls }),
      });
      current = { root, engine };
      return engine;
    },
    async close() {
      await Promise.all([...retired, current?.engine.close()]);
    },
  };
}
