/**
 * Intentic's published contract for the `/workspace/*` file calls, written from Intentic's documentation (docs/intentic.md), and the client its
 * browser builds from it: an oRPC `OpenAPILink`. Tests drive our routes through this client, so the wire is
 * exactly the one Intentic speaks: GET inputs become query parameters (booleans "true"/"false", numbers as
 * digit strings, nested values in brackets), POST/DELETE inputs a JSON body, and errors decode only from oRPC
 * error bodies `{defined, code, status, message[, data]}`.
 *
 * Output schemas are strict about the keys the seed names, and `intenticClient` checks every success against
 * them (oRPC's client itself does not), so a stray or missing field fails the call.
 */
import { createORPCClient, ORPCError } from '@orpc/client';
import type { ContractRouterClient } from '@orpc/contract';
import { oc } from '@orpc/contract';
import { OpenAPILink } from '@orpc/openapi-client/fetch';
import { z } from 'zod';
import type { WorkspaceApp } from '../../runtime/app.ts';
import { projectContract } from './intentic-project-contract.ts';
import { TEST_TOKEN } from './workspace.ts';

/**
 * The inputs' bounds are the published contract's (min, max, int, enums) and the rule files' where they add
 * some (search, install, health): the client does not check them, the server must. An agent is a conversation
 * id.
 */
const agent = z.string().regex(/^[a-zA-Z0-9][a-zA-Z0-9_-]{0,63}$/).optional();
/** A workspace path: never empty. */
const path = z.string().min(1);

export interface TreeEntry {
  name: string;
  path: string;
  type: 'file' | 'dir';
  size?: number;
  ignored?: boolean;
  link?: { to: string; state?: 'broken' | 'outside' };
  children?: TreeEntry[];
}

export const treeEntry: z.ZodType<TreeEntry> = z.lazy(() =>
  z.strictObject({
    name: z.string(),
    path: z.string(),
    type: z.enum(['file', 'dir']),
    size: z.number().optional(),
    ignored: z.boolean().optional(),
    link: z.strictObject({ to: z.string(), state: z.enum(['broken', 'outside']).optional() }).optional(),
    children: z.array(treeEntry).optional(),
  }),
);

const ok = z.strictObject({ ok: z.literal(true) });

const tagKind = z.enum(['def', 'path', 'fuzzy', 'rerank', 'sem', 'bm25', 'import', 'call', 'type', 'write', 'text', 'heuristic']);
const searchHit = z.strictObject({
  line: z.number().int().min(1),
  text: z.string(),
  spans: z.array(z.strictObject({ start: z.number().int().min(0), end: z.number().int() })),
  tags: z.array(z.strictObject({ kind: tagKind, score: z.number().min(0).max(1).optional() })).min(1),
  context: z.string().optional(),
});
/** docs/intentic-search.md "Answer": optional keys are omitted, never null. */
export const searchAnswer = z.strictObject({
  mode: z.enum(['q', 'find', 'files', 'def', 'refs', 'sym', 'ast']),
  total: z.number().int().min(0),
  files: z.number().int().min(0),
  shown: z.number().int().min(0),
  groups: z.array(z.strictObject({ path: z.string(), score: z.number(), hits: z.array(searchHit), capped: z.literal(true).optional() })),
  freshness: z.strictObject({
    state: z.enum(['fresh', 'building', 'stale']),
    ageMs: z.number().min(0).optional(),
    progress: z.number().min(0).max(1).optional(),
    behind: z.number().int().min(0).optional(),
  }),
  truncated: z.boolean(),
  partial: z.literal(true).optional(),
  cursor: z.string().optional(),
  hint: z.string().optional(),
  note: z.string().optional(),
  related: z.array(z.string()).optional(),
  candidates: z.array(z.string()).optional(),
  features: z.array(z.string()).optional(),
});
const fromTo = z.object({ from: path, to: path });

export const intenticContract = {
  workspace: {
    ...projectContract,
    tree: oc
      .route({ method: 'GET', path: '/workspace/tree' })
      .input(z.object({ agent }))
      .output(z.strictObject({ root: z.string(), tree: z.array(treeEntry), hidden: z.number() })),
    children: oc
      .route({ method: 'GET', path: '/workspace/children' })
      .input(z.object({ agent, path }))
      .output(z.strictObject({ entries: z.array(treeEntry), hidden: z.number() })),
    file: oc
      .route({ method: 'GET', path: '/workspace/file' })
      .input(z.object({ agent, path, offset: z.number().int().optional(), limit: z.number().int().min(1).optional() }))
      .output(
        z.union([
          z.strictObject({
            present: z.literal(true),
            path: z.string(),
            content: z.string(),
            size: z.number(),
            offset: z.number(),
            bytes: z.number(),
            shared: z.boolean(),
          }),
          z.strictObject({ present: z.literal(false), path: z.string() }),
        ]),
      ),
    resolve: oc
      .route({ method: 'GET', path: '/workspace/resolve' })
      .input(z.object({ agent, path: z.string().min(1).max(512) }))
      .output(z.strictObject({ path: z.string().optional() })),
    mediaTicket: oc
      .route({ method: 'POST', path: '/workspace/media-ticket' })
      .input(z.object({ agent, path }))
      .output(z.strictObject({ ticket: z.string(), expiresAt: z.number() })),
    mkdir: oc.route({ method: 'POST', path: '/workspace/dir' }).input(z.object({ agent, path })).output(ok),
    delete: oc.route({ method: 'DELETE', path: '/workspace/entry' }).input(z.object({ agent, path })).output(ok),
    move: oc.route({ method: 'POST', path: '/workspace/move' }).input(fromTo.extend({ agent })).output(ok),
    copy: oc.route({ method: 'POST', path: '/workspace/copy' }).input(fromTo.extend({ agent })).output(ok),
    repos: oc
      .route({ method: 'GET', path: '/workspace/repos' })
      .input(z.object({}))
      .output(z.strictObject({ repos: z.array(z.string()) })),
    sync: oc
      .route({ method: 'POST', path: '/workspace/sync' })
      .input(z.object({}).optional())
      .output(
        z.strictObject({
          repos: z.array(
            z.union([
              z.strictObject({ repo: z.string(), status: z.enum(['no-remote', 'current', 'skipped']) }),
              z.strictObject({ repo: z.string(), status: z.literal('dirty'), behind: z.number() }),
              z.strictObject({ repo: z.string(), status: z.literal('diverged'), ahead: z.number(), behind: z.number() }),
              z.strictObject({ repo: z.string(), status: z.literal('updated'), behind: z.number(), head: z.string() }),
              z.strictObject({ repo: z.string(), status: z.literal('error'), message: z.string() }),
            ]),
          ),
        }),
      ),
    clone: oc
      .route({ method: 'POST', path: '/workspace/repos' })
      .input(z.object({ name: z.string(), cloneUrl: z.string(), branch: z.string().optional() }))
      .output(z.strictObject({ name: z.string(), path: z.string() })),
    // docs/intentic-search.md: every input is a string on the wire (the contract's own types), as Intentic sends.
    search: oc
      .route({ method: 'GET', path: '/workspace/search' })
      .input(
        z.object({
          query: z.string().min(2).max(512),
          mode: z.enum(['q', 'find', 'files', 'def', 'refs', 'sym', 'ast']).optional(),
          includeIgnored: z.string().optional(),
          literal: z.string().optional(),
          word: z.string().optional(),
          caseSensitive: z.string().optional(),
          include: z.string().max(512).optional(),
          // A number on the wire as digits; a string here so tests can send what a number cannot say ("1.5x").
          limit: z.union([z.number().int().positive(), z.string()]).optional(),
          after: z.string().optional(),
        }),
      )
      .output(searchAnswer),
    // Ours (docs/intentic.md#agents): agent copies, same wire and error bodies.
    createAgent: oc.route({ method: 'POST', path: '/workspace/agents' }).input(z.object({ agent: z.string() })).output(ok),
    deleteAgent: oc
      .route({ method: 'DELETE', path: '/workspace/agents/{agent}' })
      .input(z.object({ agent: z.string() }))
      .output(ok),
  },
};

export type IntenticClient = ContractRouterClient<typeof intenticContract>;

export interface IntenticClientOptions {
  /** Sent as `x-intentic-control`, as Intentic's browser does (default TEST_TOKEN; null sends none). */
  token?: string | null;
  /** The mount point in front of `/workspace` (e.g. a gateway's `/sandbox/abc`). */
  baseUrl?: string;
  /** More headers on every call, as a browser adds them (e.g. the page's `origin`). */
  headers?: Record<string, string>;
}

/** Intentic's client over the in-process app (or any fetch, e.g. a real server's URL via global fetch). */
export function intenticClient(
  target: WorkspaceApp | { url: string },
  options: IntenticClientOptions = {},
): IntenticClient {
  const token = options.token === undefined ? TEST_TOKEN : options.token;
  const url = 'url' in target ? target.url + (options.baseUrl ?? '') : `http://localhost${options.baseUrl ?? ''}`;
  const link = new OpenAPILink(intenticContract, {
    url,
    headers: () => ({ ...options.headers, ...(token === null ? {} : { 'x-intentic-control': token }) }),
    fetch: 'url' in target ? (request, init) => fetch(request, init) : (request) => target.fetch(request as Request),
    // The OpenAPILink decodes a success without looking at the output schema: check it here, so the strict
    // schemas above really fail a test on a stray or missing key (errors pass through untouched).
    interceptors: [async ({ next, path }) => checkOutput(path, await next())],
  });
  return createORPCClient(link);
}

/** The output as received, after checking it against the contract's output schema for `path`. */
function checkOutput(path: readonly string[], output: unknown): unknown {
  let procedure: unknown = intenticContract;
  for (const key of path) procedure = (procedure as Record<string, unknown> | undefined)?.[key];
  const schema = (procedure as { '~orpc'?: { outputSchema?: z.ZodType } } | undefined)?.['~orpc']?.outputSchema;
  if (!schema) throw new Error(`no output schema in the Intentic contract for ${path.join('.')}`);
  const parsed = schema.safeParse(output);
  if (!parsed.success) {
    throw new Error(`output of ${path.join('.')} does not match the contract: ${z.prettifyError(parsed.error)}\n${JSON.stringify(output)}`);
  }
  return output;
}

/** The oRPC error a call failed with (fails the test if it did not fail, or failed with something else). */
export async function orpcError(call: Promise<unknown>): Promise<ORPCError<string, unknown>> {
  try {
    await call;
  } catch (error) {
    if (error instanceof ORPCError) return error;
    throw error;
  }
  throw new Error('expected the call to fail with an ORPCError');
}

/** The oRPC error a call failed with, as the three fields tests compare: `{code, status, message}`. */
export async function orpcFailure(call: Promise<unknown>): Promise<{ code: string; status: number; message: string }> {
  const error = await orpcError(call);
  return { code: error.code, status: error.status, message: error.message };
}

/** What a call fails with when a field the contract declares non-empty is `""`: the schema's BAD_REQUEST. */
export function emptyFieldFailure(where: 'body' | 'query', key: string) {
  const message = `${key} is empty`;
  return {
    code: 'BAD_REQUEST',
    status: 400,
    message: `invalid ${where}: ${key}: ${message}`,
    data: { issues: [{ path: [key], message, code: 'too_small' }] },
  };
}
