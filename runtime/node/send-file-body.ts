import type { IncomingMessage, ServerResponse } from 'node:http';
import { sendNodeResponse } from '@whatwg-node/server';
import { jsonResponse } from '../errors/render.ts';
import { INTERNAL_ERROR_TEXT, logUnexpectedError } from '../errors/unexpected-error.ts';
import { NodeResponse } from './node-response.ts';
import { sendFileRange } from './send-file-range.ts';

/** What the listener needs of @whatwg-node/server's adapter: the app's answer, not yet sent. */
interface RequestAdapter {
  handleNodeRequestAndResponse(req: IncomingMessage, res: ServerResponse): Response | Promise<Response>;
}

/**
 * The node:http request listener: @whatwg-node/server turns the request into a Request and the app answers
 * it; a response whose body is a file range still unread (GET /api/raw, /workspace/raw, /workspace/media)
 * is sent straight from the file, everything else as @whatwg-node/server sends it.
 *
 * Why: through the web-stream body every chunk crossed a ReadableStream and a Node stream made from it, in a
 * fresh buffer each; streaming 1 GiB cost about 2.5x the CPU of a bare `fs.createReadStream(file).pipe(res)`
 * and ran at a third to a half of its speed (bench/README.md, `raw stream 1 GiB`). The app, the Workers build
 * and in-process `app.fetch` callers still see a plain ReadableStream.
 */
export function nodeRequestListener(adapter: RequestAdapter): (req: IncomingMessage, res: ServerResponse) => Promise<void> {
  return async (req, res) => {
    let response: Response;
    try {
      response = await adapter.handleNodeRequestAndResponse(req, res);
    } catch (error) {
      logUnexpectedError(`${req.method ?? 'GET'} ${pathOf(req)}`, error);
      response = jsonResponse({ error: INTERNAL_ERROR_TEXT }, 500);
    }
    try {
      // `true`: one writeHead with the headers, @whatwg-node/server's own default.
      if (!sendFileBody(response, res)) await sendNodeResponse(response, res, req, true);
    } catch (error) {
      logUnexpectedError(`sending ${req.method ?? 'GET'} ${pathOf(req)}`, error);
      res.destroy();
    }
  };
}

/** The request's path for a log entry, without its query: `?token=` may be in it. */
function pathOf(req: IncomingMessage): string {
  return (req.url ?? '/').split('?')[0]!;
}

/**
 * Sends `response` with its body read from the file straight into the socket (./send-file-range.ts), if its
 * body is an unread file range; false (nothing sent) otherwise. Status and headers are the response's own.
 */
export function sendFileBody(response: Response, res: ServerResponse): boolean {
  if (!(response instanceof NodeResponse)) return false;
  const file = response.fileBody?.takeFile();
  if (!file) return false;
  const { handle, start, end, chunkBytes } = file;
  try {
    res.setHeaders(response.headers);
    res.writeHead(response.status, response.statusText);
  } catch (error) {
    void handle.close().catch(() => {}); // taken, so ours to close
    throw error;
  }
  void sendFileRange(handle, start, end, chunkBytes, res);
  return true;
}
