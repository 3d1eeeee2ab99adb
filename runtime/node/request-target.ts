/**
 * The request line's target, checked before a request becomes a fetch Request. node:http passes any target it
 * parsed (`GET http://other.example/x`, `OPTIONS *`) and @whatwg-node/server glues it after the Host header into a
 * URL that does not parse, which its default error handler answers with a 500 and a stack trace. We serve paths
 * only (origin-form): anything else is the client's mistake, a 400 in the `{ "error" }` shape of a target that
 * belongs to no dialect (docs/architecture.md#errors).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

/** Why this request cannot be served, or undefined when its target is a path and its Host makes a URL with it. */
export function badRequestTarget(req: IncomingMessage, fallbackHost: string): string | undefined {
  const target = req.url ?? '';
  // node:http would refuse it itself, with no body (the server turns that check off: ./server.ts).
  if (req.httpVersion === '1.1' && req.headers.host === undefined) return 'an HTTP/1.1 request needs a Host header';
  if (target === '*') return 'the request target * is not served: ask about a path, e.g. OPTIONS /api/files';
  if (!target.startsWith('/')) return 'the request target must be a path (e.g. /api/files), not an absolute URL';
  if (!URL.canParse(`http://${req.headers.host ?? fallbackHost}${target}`)) return 'malformed Host header or request target';
  return undefined;
}

/** The headers of a JSON refusal after which the connection closes. */
export const refusalHeaders = (body: string) => ({
  'content-type': 'application/json; charset=utf-8',
  'content-length': String(Buffer.byteLength(body)),
  connection: 'close',
});

/** Answers 400 `{ "error": reason }` on an ordinary request and closes the connection after it. */
export function refuseRequest(res: ServerResponse, reason: string): void {
  const body = JSON.stringify({ error: reason });
  res.writeHead(400, refusalHeaders(body));
  res.end(body);
}
