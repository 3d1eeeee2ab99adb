import { z } from 'zod';
import type { RouteAccessKind } from '../routes.ts';

/**
 * The error bodies each dialect renders (runtime/errors/render.ts; docs/architecture.md#errors), as zod schemas
 * for the OpenAPI document's components.
 */
export type ErrorShape = 'PlainError' | 'OrpcError' | 'WorkspaceFilesError';

/** ori, named terminals, Intentic's byte routes, the refusals before a WebSocket upgrade, the catch-all 404. */
const plainError = z.strictObject({ error: z.string() });

/** Every code runtime/errors/render.ts can put in an oRPC body (its ORPC_CODES, and the fallbacks). */
const orpcCodes = [
  'BAD_REQUEST', 'UNAUTHORIZED', 'FORBIDDEN', 'NOT_FOUND', 'METHOD_NOT_SUPPORTED', 'CONFLICT', 'PRECONDITION_FAILED',
  'PAYLOAD_TOO_LARGE', 'UNSUPPORTED_MEDIA_TYPE', 'UNPROCESSABLE_CONTENT', 'TOO_MANY_REQUESTS', 'INTERNAL_SERVER_ERROR',
  'NOT_IMPLEMENTED', 'SERVICE_UNAVAILABLE',
] as const;

/**
 * Intentic's contract calls (docs/intentic.md#errors): exactly these keys — oRPC's OpenAPILink drops a body
 * with any other — and `data.issues` only for input that failed its schema.
 */
const orpcError = z.strictObject({
  defined: z.literal(false),
  code: z.enum(orpcCodes),
  status: z.number().int(),
  message: z.string(),
  data: z
    .strictObject({
      issues: z.array(z.strictObject({ path: z.array(z.string()), message: z.string(), code: z.string() })),
    })
    .optional(),
});

/** workspace-files (docs/workspace-files.md#errors): bad input is the gateway's, everything else the file API's. */
const workspaceFilesError = z.strictObject({
  error: z.strictObject({
    code: z.string().regex(/^(gateway\/bad-request|workspace-file\/[a-z-]+)$/),
    message: z.string(),
    details: z.record(z.string(), z.unknown()),
  }),
});

export const errorSchemas: Record<ErrorShape, z.ZodType> = {
  PlainError: plainError,
  OrpcError: orpcError,
  WorkspaceFilesError: workspaceFilesError,
};

/** The error shape a route answers in, by its access kind; a public route's only refusal is the plain 404. */
export function errorShapeOf(access: RouteAccessKind): ErrorShape {
  switch (access) {
    case 'intentic':
      return 'OrpcError';
    case 'workspace-files':
      return 'WorkspaceFilesError';
    default:
      return 'PlainError';
  }
}

/** The oRPC code for a status, as runtime/errors/render.ts picks it: pinned in each Intentic error response. */
export const orpcCodeOf: Readonly<Record<number, (typeof orpcCodes)[number]>> = {
  400: 'BAD_REQUEST',
  401: 'UNAUTHORIZED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  409: 'CONFLICT',
  412: 'PRECONDITION_FAILED',
  413: 'PAYLOAD_TOO_LARGE',
  415: 'UNSUPPORTED_MEDIA_TYPE',
  429: 'TOO_MANY_REQUESTS',
  500: 'INTERNAL_SERVER_ERROR',
  501: 'NOT_IMPLEMENTED',
};

/** What each status means across the dialects (core/errors/workspace-error.ts's codes). */
export const errorDescriptions: Readonly<Record<number, string>> = {
  400: 'bad input: a query, body or path parameter that fails its schema, a NUL byte, a folder where a file is meant',
  401: 'missing or invalid token',
  403: 'a path outside the workspace (Intentic: 400), a foreign browser origin that would act, permission denied',
  404: 'no such file, folder, terminal, repo or agent',
  409: 'a conflict: already exists, not empty, not a regular file, not a directory',
  412: 'a precondition (If-Match, If-None-Match, a version) failed',
  413: 'over a size cap (docs/architecture.md#limits)',
  415: 'not UTF-8 text',
  416: 'a byte range past the end of the file',
  426: 'needs a WebSocket upgrade',
  429: 'too many at once: the daemon is busy (any route; Retry-After says when to retry), or a cap such as terminals',
  500: 'internal error (a bug; logged, nothing of it answered)',
  501: 'not available on this runtime (its adapter is absent)',
};
