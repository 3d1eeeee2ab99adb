import { jsonResponse } from '../runtime/errors/render.ts';

/** `GET /healthz` — liveness for gateways and orchestrators; needs no token and reveals nothing. */
export function health(): Response {
  return jsonResponse({ ok: true });
}
