/**
 * A failure nobody planned for: a bug, not bad input. The client gets the dialect's error shape with
 * `internal error` and nothing else (no stack, no message of a TypeError: internals are not an answer); the
 * operator gets it once on stderr, as one entry with where it happened and the stack (docs/architecture.md#errors).
 */
export const INTERNAL_ERROR_TEXT = 'internal error';

/** Writes the one log entry for an unexpected error, e.g. `logUnexpectedError('GET /api/file', error)`. */
export function logUnexpectedError(where: string, error: unknown): void {
  const detail = error instanceof Error ? (error.stack ?? `${error.name}: ${error.message}`) : String(error);
  console.error(`workspace-api: unexpected error in ${where}: ${detail}`);
}

/** `METHOD /path` of a request, for the log entry (no query: it may carry a token). */
export function requestLabel(request: Request): string {
  let path: string;
  try {
    path = new URL(request.url).pathname;
  } catch {
    path = request.url.split('?')[0]!.slice(0, 200);
  }
  return `${request.method} ${path}`;
}
