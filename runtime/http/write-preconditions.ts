/**
 * RFC 9110 §13 preconditions for a write (PUT): `If-Match`, `If-None-Match`, `If-Unmodified-Since`,
 * evaluated on the target's current state. An existing file is judged exactly as serveContent judges it
 * (Go's checkPreconditions: strong comparison for If-Match, weak for If-None-Match); a missing one has no
 * representation, so no `If-Match` (not even `*`) holds and every `If-None-Match` does.
 */
import { checkPreconditions } from './serve-content.ts';

export interface CurrentRepresentation {
  etag: string;
  modtime: number;
}

/** True when the request carries any precondition a write must honour. */
export function hasWritePreconditions(request: Request): boolean {
  return ['if-match', 'if-none-match', 'if-unmodified-since'].some((name) => !!request.headers.get(name));
}

/** Why the write must not happen (the text of a 412), or undefined when every precondition holds. */
export function failedWritePrecondition(
  request: Request,
  current: CurrentRepresentation | undefined,
): string | undefined {
  const ifMatch = request.headers.get('if-match');
  if (!current) return ifMatch ? 'precondition failed: the file does not exist' : undefined;
  if (checkPreconditions(request, current.etag, current.modtime).done === false) return undefined;
  const ifNoneMatch = request.headers.get('if-none-match');
  if (ifNoneMatch && !ifMatch && !request.headers.get('if-unmodified-since')) {
    return ifNoneMatch.trim() === '*' ? 'precondition failed: the file exists' : 'precondition failed: the file matches If-None-Match';
  }
  return 'precondition failed: the file has changed';
}
