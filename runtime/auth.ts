/**
 * Token auth (docs/architecture.md#security-defaults). A request is authenticated by `Authorization: Bearer T`, the Intentic
 * `x-intentic-control: T` header, or — on safe methods only (GET/HEAD: WebSocket upgrades, media links,
 * the URL printed at start-up) — `?token=T`. Query tokens never authorise a write, so a link cannot
 * trigger one.
 *
 * Besides the full token, scoped tokens minted from it (`workspace-api token --scope read|agent:ID`) are accepted
 * the same ways; what each scope may call is the route table's to say (runtime/routes.ts).
 */
import { verifyScopedToken, type ScopedGrant } from '../core/auth/scoped-token.ts';
import { encodeBase64Url } from '../core/text/base64.ts';
import { constantTimeEqual } from '../core/text/constant-time.ts';

export type AuthConfig =
  | {
      token: string;
      /** More tokens that open the same API (the Worker's per-workspace token beside the deployment's). */
      alsoAccept?: readonly string[];
    }
  | { disabled: true };

/**
 * Who a request is: `full` (the token, an accepted one, or no auth at all), a scoped token's grant
 * (core/auth/scoped-token.ts, signed with an accepted token), or undefined when nothing it presents opens the API.
 */
export type Principal = { readonly kind: 'full' } | { readonly kind: 'scoped'; readonly grant: ScopedGrant };

const FULL: Principal = { kind: 'full' };

export function authenticate(request: Request, auth: AuthConfig, now = Date.now()): Principal | undefined {
  if ('disabled' in auth) return FULL;
  const accepted = [auth.token, ...(auth.alsoAccept ?? [])];
  for (const candidate of presentedTokens(request)) {
    if (accepted.some((token) => constantTimeEqual(candidate, token))) return FULL;
    const grant = verifyScopedToken(candidate, accepted, now);
    if (grant) return { kind: 'scoped', grant };
  }
  return undefined;
}

function presentedTokens(request: Request): string[] {
  const tokens: string[] = [];
  const authorization = request.headers.get('authorization');
  const bearer = authorization?.match(/^Bearer\s+(\S+)\s*$/i)?.[1];
  if (bearer) tokens.push(bearer);
  const control = request.headers.get('x-intentic-control');
  if (control) tokens.push(control);
  if (request.method === 'GET' || request.method === 'HEAD') {
    const query = new URL(request.url).searchParams.get('token');
    if (query) tokens.push(query);
  }
  return tokens;
}

/** A 32-byte random token, base64url: what the server prints when none is configured. */
export function generateToken(): string {
  return encodeBase64Url(crypto.getRandomValues(new Uint8Array(32)));
}
