import { Response as PonyfillResponse } from '@whatwg-node/fetch';
import { NodeFileRangeStream } from '../../adapters/fs/node-file-range-stream.ts';

/**
 * The Response the Node server builds (runtime/http/response.ts says why it is @whatwg-node's). That one
 * wraps a stream body in a fresh Node stream each time `body` is read, so a file body would lose what it is
 * the moment a wrapper rebuilds the response from `response.body` (CORS does). A file body is kept as the
 * very stream it was built from, as the web-standard Response does, so the server can still send it straight
 * from the file (./send-file-body.ts).
 */
export class NodeResponse extends (PonyfillResponse as typeof Response) {
  readonly #file: NodeFileRangeStream | undefined;

  constructor(body?: BodyInit | null, init?: ResponseInit) {
    super(body, init);
    this.#file = body instanceof NodeFileRangeStream ? body : undefined;
  }

  override get body(): Response['body'] {
    // The file's chunks are plain ArrayBuffer-backed arrays; the cast only narrows the declared type.
    return (this.#file as Response['body'] | undefined) ?? super.body;
  }

  /** The file this response's body is, if it is one. */
  get fileBody(): NodeFileRangeStream | undefined {
    return this.#file;
  }
}
