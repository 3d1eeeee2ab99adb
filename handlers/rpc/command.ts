/**
 * One row of the `/ws` command table (docs/noide-protocol.md): a zod shape for the arguments and a `run` that
 * calls the core. Each family's rows slot into handlers/rpc/command-table.ts.
 *
 * Argument rules, from the protocol: arguments are camelCase keys of `args`; a missing or mistyped required
 * argument fails with `invalid arg 'KEY': …`; an optional argument of the wrong type counts as absent (the
 * original's leniency), so its default applies.
 */
import { z } from 'zod';
import type { WorkspaceContext } from '../../runtime/context.ts';

/** Client text echoed in an error is cut: an answer never costs more than a few hundred bytes of it. */
export function clipped(text: string, max = 128): string {
  return text.length <= max ? text : `${text.slice(0, max)}…`;
}

/** A failure whose message is the protocol's error text, verbatim (`File already exists`, ...). */
export class RpcError extends Error {
  override readonly name = 'RpcError';
}

/** What a command sees of the connection it was called on. */
export interface RpcConnection {
  /** Sends an event frame `{event, payload}` to this socket. */
  emit(event: string, payload: unknown): void;
  /** Called once when the socket closes (detach terminals, abort work). */
  onClose(listener: () => void): void;
  /** Aborted when the socket closes: long commands (run_command) stop their work. */
  readonly signal: AbortSignal;
  /**
   * Bytes sent to this socket not yet written out, and a hook for when they are: terminal output to this
   * socket is flow-controlled on them (core/terminals).
   */
  readonly backlog: number;
  /** The socket's ServerSocket.inTransitBytes: progress within one large message. */
  readonly inTransit: number | undefined;
  onDrain(listener: () => void): () => void;
  /** Closes the socket (a terminal dropped this client as too slow). */
  close(code: number, reason: string): void;
  /** Per-connection state a command family keeps (the pty commands' attachments), by key. */
  readonly state: Map<string, unknown>;
}

export interface RpcCall {
  readonly ctx: WorkspaceContext;
  readonly connection: RpcConnection;
  /** The request frame's `id` (chat events carry it as their id when the client names none). */
  readonly requestId: number | string;
}

/**
 * A row. `A` and `R` are its arguments as a client sends them and its result: types only (the typed client,
 * client/rpc-client.ts, reads them through handlers/rpc/command-types.ts), never looked at when it runs.
 */
export interface RpcCommand<A = Record<string, unknown>, R = unknown> {
  /** Validates `args` (already known to be an object or absent) and runs; throws for an error reply. */
  invoke(args: Record<string, unknown>, call: RpcCall): Promise<unknown>;
  /**
   * `light`: quick, with a small reply; runs the moment its frame arrives. Absent: heavy (a large reply or
   * large work), started by the connection's scheduler (handlers/rpc/scheduler.ts) as slots and the socket
   * allow. Heavy is the default so that a new row cannot make the daemon hold unbounded replies by omission.
   */
  readonly weight?: 'light';
  /** The zod shape its arguments are parsed with (the protocol's schema document is made from it). */
  readonly args?: Readonly<Record<string, z.ZodType>>;
  /** Never set: carries `A` and `R` for the type checker. */
  readonly types?: { args: A; result: R };
}

/** The row, marked light (see RpcCommand.weight). */
export function light(command: RpcCommand): RpcCommand {
  return { ...command, weight: 'light' };
}

type Shape = Record<string, z.ZodType>;

export interface CommandSpec<S extends Shape, R> {
  /** Required keys: a plain schema. Optional keys: `.optional()` or `.default(x)`. */
  args: S;
  run(args: z.output<z.ZodObject<S>>, call: RpcCall): R;
}

export function defineCommand<S extends Shape, R>(spec: CommandSpec<S, R>): RpcCommand<z.input<z.ZodObject<S>>, Awaited<R>> {
  return {
    args: spec.args,
    async invoke(raw, call) {
      const args = parseArgs(spec.args, raw);
      return await spec.run(args as z.output<z.ZodObject<S>>, call);
    },
  };
}

function parseArgs(shape: Shape, raw: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, schema] of Object.entries(shape)) {
    const value = Object.hasOwn(raw, key) ? raw[key] : undefined;
    const optional = schema.safeParse(undefined);
    if (optional.success) {
      // Optional: a value that does not fit is treated as absent.
      const parsed = value === undefined || value === null ? undefined : schema.safeParse(value);
      const chosen = parsed?.success ? parsed.data : optional.data;
      if (chosen !== undefined) out[key] = chosen;
      continue;
    }
    if (value === undefined) throw new RpcError(`invalid arg '${key}': missing`);
    const parsed = schema.safeParse(value);
    if (!parsed.success) throw new RpcError(`invalid arg '${key}': ${describeIssue(parsed.error, value)}`);
    out[key] = parsed.data;
  }
  return out;
}

function describeIssue(error: z.ZodError, value: unknown): string {
  const issue = error.issues[0];
  if (issue?.code === 'invalid_type') return `expected ${issue.expected}, got ${jsonType(value)}`;
  // A union of types (`id`: a string or a number): the same words, every type it takes named.
  if (issue?.code === 'invalid_union') {
    const expected = issue.errors.flat().flatMap((inner) => (inner.code === 'invalid_type' && inner.path.length === 0 ? [inner.expected] : []));
    if (expected.length > 0) return `expected ${[...new Set(expected)].join(' or ')}, got ${jsonType(value)}`;
  }
  return issue?.message ?? 'invalid value';
}

/** A JSON value's type as error texts name it: `null`, `array`, else its `typeof` (`object`, `string`, ...). */
export function jsonType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}
