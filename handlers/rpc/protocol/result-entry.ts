import { z } from 'zod';

/**
 * What the protocol document says of one command beyond its row (which gives its arguments and weight): the
 * shape of its reply's `result`, and the docs page and heading that specify it.
 */
export interface ResultEntry {
  result: z.ZodType;
  /** `docs/noide-protocol.md#…`; the tests check the heading exists. */
  docs: string;
}

/**
 * A command whose reply carries no value: its `run` returns nothing or null, and the reply frame says
 * `"result": null` (handlers/rpc/frames.ts).
 */
export function noResult(docs: string) {
  return { result: z.null(), docs };
}

/** One entry, its schema's own type kept (the type-level test compares it with the row's result type). */
export function entry<S extends z.ZodType>(result: S, docs: string) {
  return { result, docs };
}
