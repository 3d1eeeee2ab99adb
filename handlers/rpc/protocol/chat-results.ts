/** The results of the agent chat commands (docs/noide-protocol.md#agent-chat); the rest of a chat is its events. */
import { z } from 'zod';
import { entry, noResult } from './result-entry.ts';

export const chatResults = {
  chat_stream: noResult('docs/noide-protocol.md#chat_stream'),
  chat_cancel: entry(
    z.strictObject({ cancelled: z.boolean(), reason: z.string().describe('when not cancelled: `Process not found`').optional() }),
    'docs/noide-protocol.md#chat_cancel',
  ),
  chat_models: entry(z.array(z.strictObject({ id: z.string(), label: z.string() })), 'docs/noide-protocol.md#chat_models'),
  chat_check_install: entry(z.boolean(), 'docs/noide-protocol.md#chat_check_install'),
};
