import { z } from 'zod';
import { concatBytes } from '../adapters/fs/concat-bytes.ts';
import { WorkspaceError } from '../core/errors/workspace-error.ts';

/** Renders zod issues as one readable line: "limit: Too big: expected number to be <=500". */
function describe(error: z.ZodError): string {
  return error.issues
    .map((issue) => (issue.path.length > 0 ? `${issue.path.join('.')}: ${issue.message}` : issue.message))
    .join('; ');
}

/**
 * A 400 naming every zod issue in its message, with the issues themselves (path, message, code) in
 * `details.issues`: Intentic's oRPC error body carries them as `data.issues`.
 */
function invalidInput(where: 'query' | 'body' | 'path', error: z.ZodError): WorkspaceError {
  const issues = error.issues.map((issue) => ({ path: issue.path.map(String), message: issue.message, code: issue.code }));
  return new WorkspaceError('bad-request', `invalid ${where}: ${describe(error)}`, { issues });
}

/** Parses the query string with a zod object schema. A repeated parameter is a 400, never silently merged. */
export function parseQuery<S extends z.ZodType>(request: Request, schema: S): z.output<S> {
  const params = new URL(request.url).searchParams;
  const raw: Record<string, string> = {};
  for (const [key, value] of params) {
    if (key in raw) throw new WorkspaceError('bad-request', `invalid query: '${key}' is given more than once`);
    raw[key] = value;
  }
  const parsed = schema.safeParse(raw);
  if (!parsed.success) throw invalidInput('query', parsed.error);
  return parsed.data;
}

/**
 * A route's last path segment, percent-decoded: the `{agent}` / `{name}` a client sends as one encoded
 * segment (oRPC does). `what` names it in the 400 for bad percent-encoding.
 */
export function lastPathSegment(request: Request, what: string): string {
  const encoded = new URL(request.url).pathname.split('/').pop() ?? '';
  try {
    return decodeURIComponent(encoded);
  } catch {
    throw new WorkspaceError('bad-request', `invalid path: ${what} is not valid percent-encoding`);
  }
}

/**
 * Parses path parameters (e.g. the `{agent}` of `/workspace/agents/{agent}`), already percent-decoded, with a
 * zod object schema.
 */
export function parsePathParams<S extends z.ZodType>(params: Record<string, string>, schema: S): z.output<S> {
  const parsed = schema.safeParse(params);
  if (!parsed.success) throw invalidInput('path', parsed.error);
  return parsed.data;
}

/**
 * Reads a JSON body under a byte cap and validates it. The cap is enforced while streaming, so a client
 * cannot make us buffer more than `maxBytes` by lying about (or omitting) Content-Length.
 */
export async function parseJsonBody<S extends z.ZodType>(
  request: Request,
  schema: S,
  maxBytes: number,
): Promise<z.output<S>> {
  const text = await readBodyText(request, maxBytes);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new WorkspaceError('bad-request', 'invalid JSON body');
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success) throw invalidInput('body', parsed.error);
  return parsed.data;
}

export async function readBodyBytes(request: Request, maxBytes: number): Promise<Uint8Array> {
  const declared = Number(request.headers.get('content-length') ?? NaN);
  if (declared > maxBytes) throw tooLarge(maxBytes);
  if (!request.body) return new Uint8Array(0);
  const chunks: Uint8Array[] = [];
  let total = 0;
  const reader = request.body.getReader();
  for (;;) {
    let next: ReadableStreamReadResult<Uint8Array>;
    try {
      next = await reader.read();
    } catch {
      // The stream fails only when the client does: it hung up (or half-closed) before sending the body it announced.
      throw new WorkspaceError('bad-request', 'the request body ended before it was complete');
    }
    const { done, value } = next;
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel().catch(() => {});
      throw tooLarge(maxBytes);
    }
    chunks.push(value);
  }
  return concatBytes(chunks);
}

async function readBodyText(request: Request, maxBytes: number): Promise<string> {
  const bytes = await readBodyBytes(request, maxBytes);
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new WorkspaceError('bad-request', 'body is not valid UTF-8');
  }
}

function tooLarge(maxBytes: number): WorkspaceError {
  return new WorkspaceError('too-large', `request body exceeds ${maxBytes} bytes`, { limit: maxBytes });
}
