/**
 * Scoped tokens (docs/architecture.md#scoped-tokens): beside the full token, tokens that only read, or only act on
 * one agent's private copy — what a gateway hands an agent it does not fully trust, or a viewer that must not write.
 *
 * `wsa1.<payload>.<mac>`: the payload is base64url JSON `{"s": scope, "e": expiry}` (seconds since the epoch), the
 * MAC an HMAC-SHA-256 over the payload's text with a key derived from a full token. Nothing is stored: any instance
 * holding the full token verifies it, a token outlives no restart that changes the full token (rotating it revokes
 * every scoped token at once), and the expiry travels signed inside it. Edge-clean and synchronous (@noble/hashes):
 * the guard checks it before any handler runs, on every runtime.
 */
import { hmac } from '@noble/hashes/hmac.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { AGENT_ID_PATTERN } from '../agents/workspace-view.ts';
import { decodeBase64, encodeBase64Url } from '../text/base64.ts';
import { constantTimeEqual } from '../text/constant-time.ts';

/** What a scoped token may do; the full token is no scope at all. */
export type TokenScope = { readonly kind: 'read' } | { readonly kind: 'agent'; readonly agent: string };

/** A verified scoped token: its scope and when it stops opening anything (ms since the epoch). */
export interface ScopedGrant {
  readonly scope: TokenScope;
  readonly expiresAt: number;
}

export const SCOPED_TOKEN_PREFIX = 'wsa1.';
/** The longest lifetime a token may be minted with: a year. Longer-lived access is what the full token is for. */
export const MAX_SCOPED_TOKEN_TTL_MS = 365 * 24 * 3600 * 1000;
/** Separates this key from any other use of the full token, and versions the layout. */
const DOMAIN = 'workspace-api/scoped-token/v1';
/** Payload and MAC are short: anything longer is not one of ours, and is refused before any decoding. */
const TOKEN_SHAPE = /^wsa1\.([A-Za-z0-9_-]{8,400})\.([A-Za-z0-9_-]{43})$/;

const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8', { fatal: true });

/** `read` or `agent:<id>` (the id as Intentic's `agent` field allows), as the CLI and docs spell a scope. */
export function parseScope(text: string): TokenScope | undefined {
  if (text === 'read') return { kind: 'read' };
  const agent = /^agent:(.*)$/.exec(text)?.[1];
  if (agent !== undefined && AGENT_ID_PATTERN.test(agent)) return { kind: 'agent', agent };
  return undefined;
}

export function formatScope(scope: TokenScope): string {
  return scope.kind === 'read' ? 'read' : `agent:${scope.agent}`;
}

/** A token of `scope`, valid for `ttlMs` from `now`, verifiable by whoever holds `fullToken`. */
export function mintScopedToken(fullToken: string, scope: TokenScope, ttlMs: number, now = Date.now()): string {
  if (!Number.isSafeInteger(ttlMs) || ttlMs < 1000 || ttlMs > MAX_SCOPED_TOKEN_TTL_MS) {
    throw new RangeError(`a scoped token lives from 1 s to 365 days, not ${ttlMs} ms`);
  }
  if (fullToken.length === 0) throw new RangeError('a scoped token needs the full token to sign with');
  const payload = encodeBase64Url(encoder.encode(JSON.stringify({ s: formatScope(scope), e: Math.ceil((now + ttlMs) / 1000) })));
  return `${SCOPED_TOKEN_PREFIX}${payload}.${encodeBase64Url(mac(fullToken, payload))}`;
}

/**
 * The grant `token` carries if one of `fullTokens` signed it and it has not expired; undefined for anything
 * else (forged, tampered, expired, or not a scoped token at all), so a caller treats all of those alike.
 */
export function verifyScopedToken(token: string, fullTokens: readonly string[], now = Date.now()): ScopedGrant | undefined {
  const match = TOKEN_SHAPE.exec(token);
  if (!match) return undefined;
  const [, payload, signature] = match as unknown as [string, string, string];
  const genuine = fullTokens.some((full) => full.length > 0 && constantTimeEqual(encodeBase64Url(mac(full, payload)), signature));
  if (!genuine) return undefined;
  const claims = readClaims(payload);
  if (!claims || claims.expiresAt <= now) return undefined;
  return claims;
}

function readClaims(payload: string): ScopedGrant | undefined {
  try {
    const json: unknown = JSON.parse(decoder.decode(decodeBase64(payload.replace(/-/g, '+').replace(/_/g, '/'))));
    if (typeof json !== 'object' || json === null) return undefined;
    const { s, e } = json as { s?: unknown; e?: unknown };
    const scope = typeof s === 'string' ? parseScope(s) : undefined;
    if (!scope || typeof e !== 'number' || !Number.isSafeInteger(e)) return undefined;
    return { scope, expiresAt: e * 1000 };
  } catch {
    return undefined; // signed by us, so never expected: still no reason to throw at a request
  }
}

/** Derived keys by full token: one HMAC fewer per request, and a daemon has one or two full tokens. */
const keys = new Map<string, Uint8Array>();

function mac(fullToken: string, payload: string): Uint8Array {
  let key = keys.get(fullToken);
  if (!key) {
    key = hmac(sha256, encoder.encode(fullToken), encoder.encode(DOMAIN));
    if (keys.size > 64) keys.clear(); // a Worker sees one per workspace: bounded, not a cache to tune
    keys.set(fullToken, key);
  }
  return hmac(sha256, key, encoder.encode(payload));
}
