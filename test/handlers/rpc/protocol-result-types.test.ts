/**
 * The protocol document's result and event schemas cannot drift from the code (docs/noide-protocol.md#the-protocol-document):
 * the type checker (`npx tsc`, which covers test/) holds every row's result type — what its `run` returns, as
 * handlers/rpc/command-types.ts reads it — assignable to its schema's output, and the schema's output assignable
 * back, so neither is wider than the other; the same for the four events and RpcEvents. A drift names the command.
 */
import { describe, expect, expectTypeOf, it } from 'vitest';
import type { z } from 'zod';
import type { RpcCommandName, RpcEvents, RpcResult } from '../../../handlers/rpc/command-types.ts';
import type { rpcEventSchemas } from '../../../handlers/rpc/protocol/event-schemas.ts';
import { rpcResults, type RpcResultSchemas } from '../../../handlers/rpc/protocol/result-schemas.ts';

/** What the reply frame carries: a row whose `run` returns nothing answers `"result": null` (handlers/rpc/frames.ts). */
type OnTheWire<T> = [T] extends [void] ? null : T;

type Schema<C extends RpcCommandName> = z.output<RpcResultSchemas[C]['result']>;

/** The commands whose code can answer something the schema refuses. */
type CodeWiderThanSchema = { [C in RpcCommandName]: OnTheWire<RpcResult<C>> extends Schema<C> ? never : C }[RpcCommandName];
/** The commands whose schema allows something the code's type does not. */
type SchemaWiderThanCode = { [C in RpcCommandName]: Schema<C> extends OnTheWire<RpcResult<C>> ? never : C }[RpcCommandName];

type EventSchema<E extends keyof RpcEvents> = z.output<(typeof rpcEventSchemas)[E]>;
type EventDrift = { [E in keyof RpcEvents]: RpcEvents[E] extends EventSchema<E> ? (EventSchema<E> extends RpcEvents[E] ? never : E) : E }[keyof RpcEvents];

/** Fails to compile naming the drifting commands or events (`"pty_spawn" does not satisfy the constraint 'never'`). */
type None<T extends never> = T;
export type Drifts = [None<CodeWiderThanSchema>, None<SchemaWiderThanCode>, None<EventDrift>];

describe('result schemas match the rows, as types', () => {
  it('every row result fits its schema and the reverse', () => {
    expectTypeOf<CodeWiderThanSchema>().toEqualTypeOf<never>();
    expectTypeOf<SchemaWiderThanCode>().toEqualTypeOf<never>();
    // A row whose result type were `unknown` would fit no schema but z.unknown(): none is.
    expectTypeOf<RpcResult<'git_add'>>().toEqualTypeOf<string>();
    expectTypeOf<OnTheWire<RpcResult<'write_file'>>>().toEqualTypeOf<null>();
    expectTypeOf<OnTheWire<RpcResult<'pty_spawn'>>>().toEqualTypeOf<{ id: string; pid: number }>();
    expect(Object.keys(rpcResults).length).toBeGreaterThan(0);
  });

  it('every event schema is RpcEvents', () => {
    expectTypeOf<EventDrift>().toEqualTypeOf<never>();
  });
});
