import { describe, expect, it } from 'vitest';
import { ChatError, type ChatEngine, type ChatModel } from '../../../core/chat/chat-types.ts';
import { RpcError, type RpcCall, type RpcConnection } from '../../../handlers/rpc/command.ts';
import { chatModels } from '../../../handlers/rpc/commands/chat/chat-models.ts';
import type { WorkspaceContext } from '../../../runtime/context.ts';

/**
 * The `chat_models` row on its own, over a fake engine: its arguments and how it turns the engine's failures into
 * replies. Over a real socket, with the row in the command table, it is the wire tests' to check.
 */

const listed: ChatModel[] = [{ id: 'openai/gpt-5', label: 'openai/gpt-5' }];

interface FakeChat {
  call: RpcCall;
  /** `[agent, apiKey]` of every `models` call, as the engine received them. */
  asked: [string, string | undefined][];
}

/** A call whose context's engine answers `models` with `answer` (a list, or an error to throw). */
function callWith(answer: ChatModel[] | Error): FakeChat {
  const asked: [string, string | undefined][] = [];
  const chat: Pick<ChatEngine, 'models'> = {
    async models(agent, apiKey) {
      asked.push([agent, apiKey]);
      if (answer instanceof Error) throw answer;
      return answer;
    },
  };
  return { call: { ctx: { chat } as unknown as WorkspaceContext, connection: {} as RpcConnection, requestId: 1 }, asked };
}

async function failureOf(work: Promise<unknown>): Promise<unknown> {
  return await work.then(
    () => expect.unreachable('the call succeeded'),
    (error: unknown) => error,
  );
}

describe('chat_models row', () => {
  it("answers the engine's list for the agent and key as sent", async () => {
    const { call, asked } = callWith(listed);
    expect(await chatModels.invoke({ agent: ' Open-Code ', apiKey: ' sk-1 ' }, call)).toEqual(listed);
    expect(asked).toStrictEqual([[' Open-Code ', ' sk-1 ']]);
  });

  it('fails on a missing or mistyped agent without asking the engine', async () => {
    const { call, asked } = callWith(listed);
    for (const [args, text] of [
      [{}, "invalid arg 'agent': missing"],
      [{ apiKey: 'sk' }, "invalid arg 'agent': missing"],
      [{ agent: 5 }, "invalid arg 'agent': expected string, got number"],
      [{ agent: null }, "invalid arg 'agent': expected string, got null"],
      [{ agent: ['kilo'] }, "invalid arg 'agent': expected string, got array"],
    ] as const) {
      const error = await failureOf(chatModels.invoke(args, call));
      expect(error).toBeInstanceOf(RpcError);
      expect((error as RpcError).message).toBe(text);
    }
    expect(asked).toEqual([]);
  });

  it('takes an apiKey that is not a string as absent', async () => {
    const { call, asked } = callWith(listed);
    for (const apiKey of [42, null, true, { key: 'sk' }]) {
      expect(await chatModels.invoke({ agent: 'kilo', apiKey }, call)).toEqual(listed);
    }
    expect(await chatModels.invoke({ agent: 'kilo' }, call)).toEqual(listed);
    expect(asked).toStrictEqual(Array(5).fill(['kilo', undefined]));
  });

  it("answers a ChatError's text as the error", async () => {
    const { call } = callWith(new ChatError("Unknown agent 'claude'"));
    const error = await failureOf(chatModels.invoke({ agent: 'claude' }, call));
    expect(error).toBeInstanceOf(RpcError);
    expect((error as RpcError).message).toBe("Unknown agent 'claude'");
  });

  it('lets any other failure through unchanged (an internal error, not a protocol text)', async () => {
    const bug = new TypeError('engine bug');
    const { call } = callWith(bug);
    expect(await failureOf(chatModels.invoke({ agent: 'kilo' }, call))).toBe(bug);
  });

  it('says chat is not available on a runtime without an engine', async () => {
    const call: RpcCall = { ctx: {} as WorkspaceContext, connection: {} as RpcConnection, requestId: 1 };
    const error = await failureOf(chatModels.invoke({ agent: 'kilo' }, call));
    expect(error).toBeInstanceOf(RpcError);
    expect((error as RpcError).message).toBe('agent chat needs a machine that can run the agent CLIs: not available on this runtime');
  });
});
