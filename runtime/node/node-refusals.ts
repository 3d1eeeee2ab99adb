import { STATUS_CODES, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { WorkspaceError } from '../../core/errors/workspace-error.ts';
import { dialectInBase, normalizeBasePath } from '../errors/fetch-boundary.ts';
import { errorPayload } from '../errors/render.ts';
import { refusalHeaders } from './request-target.ts';

/**
 * What node:http refuses by itself, before the app sees a request, answered like every other refusal: JSON in the
 * shape of the dialect the request's path belongs to (`{"error": …}` when there is no path to read), where Node
 * sends a bare status line.
 * - Bytes its parser refuses (headers past 16 KiB, a malformed request line or header, conflicting lengths, a bad
 *   chunk): the same statuses and the same care as Node's own handler — nothing written into a response already
 *   under way, the connection closed after.
 * - An `Expect` other than `100-continue`: 417, as Node.
 */

/** Node's parser error codes with a status of their own (as Node's default handler); everything else is 400. */
const REFUSALS: Readonly<Record<string, { status: number; message: string }>> = {
  HPE_HEADER_OVERFLOW: { status: 431, message: 'request headers too large: at most 16 KiB' },
  HPE_CHUNK_EXTENSIONS_OVERFLOW: { status: 413, message: 'chunk extensions too large' },
  ERR_HTTP_REQUEST_TIMEOUT: { status: 408, message: 'the request did not arrive in time' },
};
const MALFORMED = { status: 400, message: 'malformed HTTP request' };

/**
 * The path of an origin-form request line the refused bytes start with (however long the line: a target past
 * 16 KiB is one of the refusals), enough to tell its dialect.
 */
const REQUEST_LINE = /^[A-Z]{1,16} (\/[^ ?\r\n]*)/;

export function answerNodeRefusals(server: Server, basePath: string | undefined): void {
  const base = normalizeBasePath(basePath); // as the app's routes see it
  const payloadFor = (path: string | undefined, status: number, message: string) =>
    errorPayload(path === undefined ? 'ori' : dialectInBase(base, path), new WorkspaceError('bad-request', message, {}, status));

  server.on('checkExpectation', (req: IncomingMessage, res: ServerResponse) => {
    const payload = payloadFor(req.url?.split('?')[0], 417, 'unsupported Expect header: only 100-continue is');
    const body = JSON.stringify(payload.body);
    res.writeHead(payload.status, refusalHeaders(body));
    res.end(body);
  });

  server.on('clientError', (error: NodeJS.ErrnoException & { rawPacket?: Buffer }, socket: Socket) => {
    // The path, where it can be known: the refused bytes' request line (a head refused in its first chunk), the
    // URL the parser has gathered of a head that spans chunks, or the request being answered when its body broke
    // off. Else (e.g. a head refused in a later chunk of a kept-alive connection) there is no dialect: `{error}`.
    const { _httpMessage: inFlight, parser } = socket as Socket & {
      _httpMessage?: { headersSent: boolean; req?: { url?: string } } | null;
      parser?: { _url?: string } | null;
    };
    if (error.code === 'ECONNRESET' || !socket.writable || inFlight?.headersSent) {
      socket.destroy();
      return;
    }
    const { status, message } = REFUSALS[error.code ?? ''] ?? MALFORMED;
    const gathered = parser?._url ? parser._url : undefined;
    const url = REQUEST_LINE.exec(error.rawPacket?.toString('latin1', 0, 8192) ?? '')?.[1] ?? gathered ?? inFlight?.req?.url;
    const path = url?.split('?')[0];
    const payload = payloadFor(path, status, message);
    const body = JSON.stringify(payload.body);
    socket.end(
      `HTTP/1.1 ${payload.status} ${STATUS_CODES[payload.status] ?? 'Bad Request'}\r\n` +
        'content-type: application/json; charset=utf-8\r\n' +
        `content-length: ${Buffer.byteLength(body)}\r\n` +
        'connection: close\r\n\r\n' +
        body,
      () => socket.destroy(),
    );
  });
}
