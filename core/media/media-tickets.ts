/**
 * Media tickets (docs/intentic.md#media `POST /workspace/media-ticket`): a short-lived pass a `<video>` or `<audio>` element
 * hands to `GET /workspace/media`, which cannot carry an auth header. A ticket is an HMAC-SHA-256 signature
 * over one resolved file — its real path and the agent whose view resolved it — and its expiry; only the
 * expiry travels in the ticket itself (`<expiresAt>.<signature>`), so a ticket names no path and is useless
 * for any other file, agent or moment. The request that presents it names the path and agent again, and the
 * server recomputes the signature over what that request resolves to.
 *
 * The key is random per instance unless one is configured: tickets then die with the process (a restarted
 * daemon answers 401 and the client mints a new one). Edge-clean: crypto.subtle only; its `verify` compares
 * signatures in constant time.
 */
import { encodeBase64Url } from '../text/base64.ts';

/** The file a ticket is bound to: the real path its view resolved, and that view's agent (none: shared). */
export interface TicketSubject {
  readonly file: string;
  readonly agent: string | undefined;
}

export interface MintedTicket {
  ticket: string;
  /** Milliseconds since the epoch. */
  expiresAt: number;
}

/** Why a ticket was refused; `invalid` covers forged, tampered and minted for another file or agent alike. */
export type TicketCheck = { ok: true } | { ok: false; reason: 'malformed' | 'invalid' | 'expired' };

export interface MediaTickets {
  mint(subject: TicketSubject): Promise<MintedTicket>;
  verify(ticket: string, subject: TicketSubject): Promise<TicketCheck>;
}

export interface MediaTicketOptions {
  /** How long a ticket lives (ms). */
  ttlMs: number;
  /** The HMAC key, at least 32 bytes; default a random one for this instance. */
  key?: Uint8Array;
  /** The clock (ms since the epoch); injectable for tests. */
  now?: () => number;
}

/** HMAC-SHA-256's own output size: shorter keys weaken it, longer ones add nothing. */
export const MIN_KEY_BYTES = 32;
/** How far a lifetime check tolerates the clock stepping back (see verify). */
const CLOCK_STEP_SLACK_MS = 60_000;
/** Tells these MACs apart from any other use of the same key, and versions the signed layout. */
const DOMAIN = 'workspace-api/media-ticket/v1';
/** Decimal ms (up to 16 digits: the year 318857), a dot, 32 bytes of signature in base64url without padding. */
const TICKET_SHAPE = /^([1-9][0-9]{0,15})\.([A-Za-z0-9_-]{43})$/;

const encoder = new TextEncoder();

export function createMediaTickets(options: MediaTicketOptions): MediaTickets {
  const { ttlMs, now = Date.now } = options;
  if (!Number.isSafeInteger(ttlMs) || ttlMs <= 0) throw new RangeError(`media tickets: invalid lifetime ${ttlMs}`);
  if (options.key && options.key.byteLength < MIN_KEY_BYTES) {
    throw new RangeError(`media tickets: the key must be at least ${MIN_KEY_BYTES} bytes`);
  }
  const rawKey = options.key ? Uint8Array.from(options.key) : crypto.getRandomValues(new Uint8Array(MIN_KEY_BYTES));
  let imported: Promise<CryptoKey> | undefined;
  // Imported on first use (inside a request on Workers), once.
  const key = () =>
    (imported ??= crypto.subtle.importKey('raw', rawKey, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign', 'verify']));

  return {
    async mint(subject) {
      const expiresAt = Math.floor(now()) + ttlMs;
      const signature = new Uint8Array(await crypto.subtle.sign('HMAC', await key(), signedBytes(expiresAt, subject)));
      return { ticket: `${expiresAt}.${encodeBase64Url(signature)}`, expiresAt };
    },
    async verify(ticket, subject) {
      const match = TICKET_SHAPE.exec(ticket);
      const signature = match ? fromBase64Url(match[2]!) : undefined;
      if (!match || !signature) return { ok: false, reason: 'malformed' };
      const expiresAt = Number(match[1]);
      const genuine = await crypto.subtle.verify('HMAC', await key(), signature, signedBytes(expiresAt, subject));
      if (!genuine) return { ok: false, reason: 'invalid' };
      const current = now();
      if (current >= expiresAt) return { ok: false, reason: 'expired' };
      // Only possible with the key: a ticket minted under a longer lifetime (a configured key kept across a
      // restart with a shorter --media-ticket-ttl) does not outlive the lifetime in force now. The slack keeps
      // a clock stepped back a little (NTP) from refusing the tickets it has just minted.
      if (expiresAt - current > ttlMs + CLOCK_STEP_SLACK_MS) return { ok: false, reason: 'invalid' };
      return { ok: true };
    },
  };
}

/** The MAC input: a JSON array, so no choice of path (which may hold any byte but NUL) can shift a field. */
function signedBytes(expiresAt: number, subject: TicketSubject): Uint8Array<ArrayBuffer> {
  return encoder.encode(JSON.stringify([DOMAIN, expiresAt, subject.agent ?? null, subject.file]));
}


/** Undefined unless `text` is the canonical encoding of its bytes (43 characters carry 258 bits: 2 must be 0). */
function fromBase64Url(text: string): Uint8Array<ArrayBuffer> | undefined {
  const binary = atob(text.replace(/-/g, '+').replace(/_/g, '/') + '='.repeat((4 - (text.length % 4)) % 4));
  const bytes = Uint8Array.from(binary, (char) => char.charCodeAt(0));
  return encodeBase64Url(bytes) === text ? bytes : undefined;
}
