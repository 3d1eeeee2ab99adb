/**
 * Standard base64 (RFC 4648 §4) with Web APIs only, both ways.
 *
 * Encoding: Node's Buffer where there is one; elsewhere `btoa`, which takes a "binary string" (one char per
 * byte), built in slices to keep `String.fromCharCode.apply` under engines' argument-count limits.
 *
 * Decoding is strict, unlike `atob` (which skips whitespace) or Node's Buffer (which silently drops any
 * character outside the alphabet): a client's upload either decodes exactly or is refused with where it went
 * wrong, never written as a quietly different file. Padding may be present (then the text is whole quanta)
 * or left out; `=` anywhere but the end, a lone trailing character, and characters outside the standard
 * alphabet (whitespace and the URL-safe `-`/`_` included) are refused. The unused low bits of the last
 * character are ignored, as every decoder does.
 */
const SLICE = 0x8000;

/** Node's Buffer where the runtime has one (feature-detected: this module stays edge-clean). */
const NodeBuffer = (globalThis as { Buffer?: { from(buffer: ArrayBufferLike, offset: number, length: number): { toString(encoding: 'base64'): string } } }).Buffer;

export function encodeBase64(bytes: Uint8Array): string {
  // Node encodes natively in one pass: no binary string as large as the input on the way (a 40 MiB download
  // otherwise costs 40 MiB more at its peak).
  if (NodeBuffer) return NodeBuffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
  return encodeBase64WithBtoa(bytes);
}

/** base64url without padding (RFC 4648 §5): tokens, MACs and cursors that travel in URLs and headers. */
export function encodeBase64Url(bytes: Uint8Array): string {
  return encodeBase64(bytes).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/** The Web-API encoder every runtime without Buffer uses (exported for its tests on Node). */
export function encodeBase64WithBtoa(bytes: Uint8Array): string {
  let binary = '';
  for (let at = 0; at < bytes.byteLength; at += SLICE) {
    binary += String.fromCharCode.apply(null, bytes.subarray(at, at + SLICE) as unknown as number[]);
  }
  return btoa(binary);
}

/** Thrown by `decodeBase64`; the message reads `Invalid base64: <reason>` (the protocol's text: docs/noide-protocol.md#errors). */
export class InvalidBase64Error extends Error {
  override readonly name = 'InvalidBase64Error';
  constructor(readonly reason: string) {
    super(`Invalid base64: ${reason}`);
  }
}

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const INVALID = 0xff;
/** Char code → 6-bit value, INVALID for anything else (codes past 127 are invalid by range). */
const VALUES = new Uint8Array(128).fill(INVALID);
for (let i = 0; i < ALPHABET.length; i++) VALUES[ALPHABET.charCodeAt(i)] = i;

export function decodeBase64(text: string): Uint8Array {
  let end = text.length;
  if (end > 0 && text.charCodeAt(end - 1) === 0x3d) end--;
  if (end > 0 && text.charCodeAt(end - 1) === 0x3d) end--;
  const out = new Uint8Array(Math.floor((end * 3) / 4));
  let written = 0;
  let at = 0;
  for (const whole = end - (end % 4); at < whole; at += 4) {
    const a = value(text, at);
    const b = value(text, at + 1);
    const c = value(text, at + 2);
    const d = value(text, at + 3);
    out[written++] = (a << 2) | (b >> 4);
    out[written++] = ((b & 0x0f) << 4) | (c >> 2);
    out[written++] = ((c & 0x03) << 6) | d;
  }
  // Characters are judged first (the loop above): a stray space says more than the length it causes.
  const rest = end - at;
  for (let i = at; i < end; i++) value(text, i);
  if (end < text.length && text.length % 4 !== 0) {
    throw new InvalidBase64Error(`padded text must be a multiple of 4 characters long (got ${text.length})`);
  }
  if (rest === 1) throw new InvalidBase64Error(`${text.length} characters cannot be whole bytes (one too many)`);
  if (rest >= 2) {
    const a = value(text, at);
    const b = value(text, at + 1);
    out[written++] = (a << 2) | (b >> 4);
    if (rest === 3) out[written++] = ((b & 0x0f) << 4) | (value(text, at + 2) >> 2);
  }
  return out;
}

function value(text: string, at: number): number {
  const code = text.charCodeAt(at);
  const v = code < 128 ? VALUES[code]! : INVALID;
  if (v === INVALID) {
    const shown = code === 0x3d ? "'=' before the end" : `character ${JSON.stringify(text[at])}`;
    throw new InvalidBase64Error(`unexpected ${shown} at offset ${at}`);
  }
  return v;
}
