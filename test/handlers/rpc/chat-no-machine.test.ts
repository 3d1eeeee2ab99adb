/**
 * Where no agent CLI can run (Workers, an embedder that passes no chat host) every chat row says chat needs a
 * machine; `chat_stream`'s agent check comes first, as it does with an engine.
 */
import { expect, it } from 'vitest';
import { chatCommands } from '../../../handlers/rpc/commands/chat/index.ts';
import type { RpcCall, RpcCommand, RpcConnection } from '../../../handlers/rpc/command.ts';
import type { WorkspaceContext } from '../../../runtime/context.ts';

const call: RpcCall = { ctx: { root: '/ws' } as WorkspaceContext, connection: {} as RpcConnection, requestId: 7 };
const NO_MACHINE = 'agent chat needs a machine that can run the agent CLIs: not available on this runtime';

it('answers that chat needs a machine, for each of the four commands', async () => {
  const args: Record<string, Record<string, unknown>> = {
    chat_stream: { command: 'opencode' },
    chat_cancel: { id: '1' },
    chat_models: { agent: 'kilo' },
    chat_check_install: { command: 'kilo' },
  };
  expect(Object.keys(chatCommands).sort()).toEqual(Object.keys(args).sort());
  for (const [name, given] of Object.entries(args)) {
    await expect((chatCommands as Record<string, RpcCommand>)[name]!.invoke(given, call), name).rejects.toThrow(NO_MACHINE);
  }
  await expect(chatCommands.chat_stream.invoke({ command: 'claude' }, call)).rejects.toThrow('Unsupported chat agent');
});
