import { jsonResponse } from '../../runtime/errors/render.ts';
import { buildOpenApiDocument } from '../../runtime/openapi/openapi-document.ts';

let document: Record<string, unknown> | undefined;

/**
 * `GET /openapi.json` (docs/architecture.md#openapi) — the OpenAPI 3.1 document of every HTTP route. Public,
 * like `/healthz`: it describes the API every client already has, and nothing of this workspace. Built on the
 * first request (it is the same for every app) and kept.
 */
export function openapiDocument(): Response {
  document ??= buildOpenApiDocument();
  return jsonResponse(document);
}
