import { encodeBase64Url } from '../../core/text/base64.ts';

/**
 * Per-workspace tokens (docs/architecture.md#cloudflare-workers): with `WORKSPACE_TOKEN_SECRET` set, a gateway can
 * hand one user the token of one workspace, `base64url(HMAC-SHA256(secret, id))`, which opens that workspace and no
 * other; the deployment's `WORKSPACE_TOKEN` still opens every one. Verifiable without state: nothing is stored.
 */
export async function workspaceToken(secret: string, id: string): Promise<string> {
  const encoder = new TextEncoder();
  const key = await crypto.subtle.importKey('raw', encoder.encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  return encodeBase64Url(new Uint8Array(await crypto.subtle.sign('HMAC', key, encoder.encode(id))));
}
