import { jsonResponse } from '../../runtime/errors/render.ts';

/** The body ServeContent's own errors (412, 416) get on Intentic's byte routes: `{ "error": message }`. */
export function bytesRouteError(status: number, message: string): Response {
  return jsonResponse({ error: message }, status);
}
