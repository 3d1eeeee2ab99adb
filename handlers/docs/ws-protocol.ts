import { jsonResponse } from '../../runtime/errors/render.ts';
import { protocolDocument } from '../rpc/protocol/protocol-document.ts';

/**
 * `GET /ws/protocol.json` (docs/noide-protocol.md#the-protocol-document): JSON Schema for the `/ws` protocol's
 * frames, every command's arguments and result, and its events. Public, like `/openapi.json`: it describes the
 * protocol every client already speaks, and nothing of this workspace.
 */
export function wsProtocolDocument(): Response {
  return jsonResponse(protocolDocument());
}
