import type { RequestEnv } from './app/app-options.ts';
import { jsonResponse } from './errors/render.ts';
import { INTERNAL_ERROR_TEXT, logUnexpectedError, requestLabel } from './errors/unexpected-error.ts';
import type { SocketOpenHandler, Upgrader } from './websocket.ts';

/** Largest WebSocket message when the handler names none: terminal input is keystrokes and pastes. */
const DEFAULT_MAX_MESSAGE_BYTES = 1024 * 1024;

/**
 * The upgrader cannot return a real 101: the WHATWG Response constructor rejects statuses below 200. It returns
 * this placeholder instead, and the upgrade is accepted by a per-request flag (did a handler call the upgrader?)
 * plus the final status, so the decision survives any wrapper that rebuilds the Response (CORS).
 */
const ACCEPTED_UPGRADE_STATUS = 200;

/** What a route accepted: its handler for the open socket, and the largest message it takes. */
export interface AcceptedUpgrade {
  onOpen: SocketOpenHandler;
  maxMessageBytes: number;
}

/** A route's decision: the upgrade accepted, or the app's own answer (a refusal, in the route's dialect) to send. */
export type UpgradeDecision = ({ kind: 'accepted' } & AcceptedUpgrade) | { kind: 'answer'; response: Response };

/**
 * Runs a WebSocket upgrade request through the app with an upgrader (./websocket.ts) and says what it decided. A
 * tagged answer, not `instanceof Response`: on Node the app's responses come from another implementation
 * (runtime/http/response.ts). Every runtime that performs upgrades decides
 * them here: the Node server (runtime/node/node-websockets.ts) and a Durable Object (runtime/worker/hibernating-sockets.ts).
 */
export async function routeUpgrade(
  request: Request,
  fetch: (request: Request, env: RequestEnv) => Promise<Response>,
): Promise<UpgradeDecision> {
  let accepted: AcceptedUpgrade | undefined;
  const upgrade: Upgrader = (onOpen, options) => {
    accepted = { onOpen, maxMessageBytes: options?.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES };
    return new Response(null, { status: ACCEPTED_UPGRADE_STATUS });
  };
  let response: Response;
  try {
    response = await fetch(request, { upgrade });
  } catch (error) {
    logUnexpectedError(`upgrade ${requestLabel(request)}`, error);
    return { kind: 'answer', response: jsonResponse({ error: INTERNAL_ERROR_TEXT }, 500) };
  }
  return accepted !== undefined && response.status === ACCEPTED_UPGRADE_STATUS ? { kind: 'accepted', ...accepted } : { kind: 'answer', response };
}
