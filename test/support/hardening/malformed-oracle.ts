/**
 * What every answer to a malformed request must be (docs/architecture.md#errors): below 500, and a refusal (4xx)
 * in the error shape of the dialect it came from (runtime/errors/render.ts). Each check returns the violation in
 * words, or undefined: the callers count them (the soak's figures) or fail on the first (the suite).
 */
import type { ErrorShape } from './malformed-requests.ts';

/** oRPC's codes by status, as Intentic's client knows them (runtime/errors/render.ts ORPC_CODES). */
const ORPC_CODES: Readonly<Record<number, string>> = {
  400: 'BAD_REQUEST',
  401: 'UNAUTHORIZED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  405: 'METHOD_NOT_SUPPORTED',
  409: 'CONFLICT',
  412: 'PRECONDITION_FAILED',
  413: 'PAYLOAD_TOO_LARGE',
  415: 'UNSUPPORTED_MEDIA_TYPE',
  422: 'UNPROCESSABLE_CONTENT',
  429: 'TOO_MANY_REQUESTS',
};

export interface Answer {
  status: number;
  contentType: string | null;
  /**
   * The body as text; undefined for a HEAD answer (none sent), a success whose body was not read, or a refusal
   * with no body at all — what Node's own parser sends (400, 431) for bytes that never became a request, which
   * the daemon now answers in JSON itself (runtime/node/node-refusals.ts): counted, and the count must be 0.
   */
  body: string | undefined;
}

/** Kinds of violation, each its own figure. */
export type ViolationKind = '5xx' | 'shape';

export interface Violation {
  kind: ViolationKind;
  detail: string;
}

/** A refusal with no body and no type: Node's parser's own answer, which the daemon replaces (must not happen). */
export function isParserRefusal(answer: Answer): boolean {
  return answer.status >= 400 && answer.body === undefined && answer.contentType === null;
}

/** The answer's violation, if any: a 5xx, or a 4xx with a body not in `shape`. */
export function answerViolation(shape: ErrorShape, answer: Answer): Violation | undefined {
  if (answer.status >= 500) return { kind: '5xx', detail: `status ${answer.status}: ${answer.body?.slice(0, 300) ?? ''}` };
  if (answer.status < 400 || answer.body === undefined) return undefined;
  const problem = shapeProblem(shape, answer);
  return problem === undefined ? undefined : { kind: 'shape', detail: `status ${answer.status} not in the ${shape} shape (${problem}): ${answer.body.slice(0, 300)}` };
}

/**
 * What the daemon answers for bytes that never became a request whose path it could read (runtime/node/
 * node-refusals.ts): `{error}` in any dialect, with one of these messages (copied, not imported: the expectation).
 */
const PATHLESS_REFUSALS = ['malformed HTTP request', 'request headers too large: at most 16 KiB', 'chunk extensions too large'];

function shapeProblem(shape: ErrorShape, { status, contentType, body }: Answer): string | undefined {
  if (!contentType?.startsWith('application/json')) return `content type ${contentType}`;
  let json: unknown;
  try {
    json = JSON.parse(body!);
  } catch {
    return 'not JSON';
  }
  if (!isObject(json)) return 'not an object';
  if (onlyKeys(json, ['error']) && PATHLESS_REFUSALS.includes(json.error as string) && [400, 413, 431].includes(status)) return undefined;
  switch (shape) {
    case 'plain':
      return onlyKeys(json, ['error']) && typeof json.error === 'string' ? undefined : 'not {error: string}';
    case 'orpc': {
      if (!onlyKeys(json, ['defined', 'code', 'status', 'message', 'data'])) return 'keys beyond an oRPC error body';
      if (json.defined !== false || json.status !== status || typeof json.message !== 'string') return 'defined/status/message';
      if (json.code !== (ORPC_CODES[status] ?? 'BAD_REQUEST')) return `code ${String(json.code)} for ${status}`;
      if (json.data !== undefined && !(isObject(json.data) && Array.isArray(json.data.issues))) return 'data without issues';
      return undefined;
    }
    case 'workspace-files': {
      const error = json.error;
      if (!onlyKeys(json, ['error']) || !isObject(error)) return 'not {error: {…}}';
      if (typeof error.code !== 'string' || !/^(gateway|workspace-file)\//.test(error.code)) return `code ${String(error.code)}`;
      return typeof error.message === 'string' && isObject(error.details) ? undefined : 'message/details';
    }
  }
}

/** A `/ws` reply's violation: the protocol's shape (docs/noide-protocol.md#frames), and never `internal error`. */
export function rpcReplyViolation(text: string): Violation | undefined {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { kind: 'shape', detail: `a reply that is not JSON: ${text.slice(0, 200)}` };
  }
  if (!isObject(json)) return { kind: 'shape', detail: `a reply that is not an object: ${text.slice(0, 200)}` };
  if (typeof json.event === 'string') return undefined;
  if (json.ok === true) return undefined;
  if (json.ok !== false || typeof json.error !== 'string') return { kind: 'shape', detail: `not {id, ok: false, error}: ${text.slice(0, 200)}` };
  // `internal error` is the protocol's 500: a bug behind a malformed request (runtime/errors/unexpected-error.ts).
  if (json.error === 'internal error') return { kind: '5xx', detail: `internal error: ${text.slice(0, 200)}` };
  return undefined;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function onlyKeys(value: Record<string, unknown>, allowed: string[]): boolean {
  return Object.keys(value).every((key) => allowed.includes(key));
}
