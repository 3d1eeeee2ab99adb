/**
 * Where every Response the app builds comes from. Web standard by default (Workers, tests, any host), but a
 * runtime may install a faster implementation of the same API: on Node 20 the built-in Response costs about
 * 20 µs to construct and @whatwg-node/server can only read it back through a web stream, while the
 * @whatwg-node/fetch Response it is built around hands string and byte bodies straight to the socket
 * (measured here: 10k vs 35k trivial responses per second). runtime/node/server.ts installs that one.
 */
export type ResponseConstructor = new (body?: BodyInit | null, init?: ResponseInit) => Response;

let ResponseImplementation: ResponseConstructor = globalThis.Response;

/** Installs `implementation`; returns the one it replaces (so a runtime that is done can put it back). */
export function setResponseImplementation(implementation: ResponseConstructor): ResponseConstructor {
  const previous = ResponseImplementation;
  ResponseImplementation = implementation;
  return previous;
}

export function createResponse(body?: BodyInit | null, init?: ResponseInit): Response {
  return new ResponseImplementation(body, init);
}
