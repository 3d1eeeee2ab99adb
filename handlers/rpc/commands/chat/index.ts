/**
 * Agent chat's `/ws` rows (docs/noide-protocol.md#agent-chat), thin over core/chat's engine. `chat_stream` and
 * `chat_cancel` answer at once (light); `chat_check_install` runs probes and `chat_models` asks a remote service
 * (heavy, like every slow row).
 */
import type { RpcCommand } from '../../command.ts';
import { chatCancel } from './chat-cancel.ts';
import { chatCheckInstall } from './chat-check-install.ts';
import { chatModels } from './chat-models.ts';
import { chatStream } from './chat-stream.ts';

export const chatCommands = {
  chat_stream: chatStream,
  chat_cancel: chatCancel,
  chat_models: chatModels,
  chat_check_install: chatCheckInstall,
} satisfies Record<string, RpcCommand>;

export const LIGHT_CHAT_COMMANDS = ['chat_stream', 'chat_cancel'] as const;
