/**
 * `Content-Disposition: attachment` for a download (RFC 6266) that keeps any file name: the exact name goes in
 * `filename*` (RFC 8187, formerly 5987: UTF-8, percent-encoded), which every current browser prefers, and an
 * ASCII approximation in plain `filename` for the clients that do not read `filename*`.
 */
const utf8 = new TextEncoder();

/** RFC 8187 attr-char: the bytes `filename*` may carry unencoded. */
const ATTR_CHAR = /^[A-Za-z0-9!#$&+\-.^_`|~]$/;

export function attachmentDisposition(filename: string): string {
  return `attachment; filename="${asciiFallback(filename)}"; filename*=UTF-8''${encodeExtValue(filename)}`;
}

/**
 * The plain `filename`: accents dropped (é → e), anything else outside printable ASCII — other scripts,
 * control characters such as a newline, which must never reach a header — becomes `_`; `"` and `\` are
 * escaped as quoted-string quoted-pairs (RFC 9110 §5.6.4), as Express's `res.attachment()` writes them.
 */
function asciiFallback(filename: string): string {
  return filename
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .replace(/[^\x20-\x7e]/gu, '_')
    .replace(/["\\]/g, '\\$&');
}

/** Every UTF-8 byte that is not an attr-char as `%XX`; a lone surrogate is encoded as U+FFFD, as TextEncoder does. */
function encodeExtValue(filename: string): string {
  let out = '';
  for (const byte of utf8.encode(filename)) {
    const char = String.fromCharCode(byte);
    out += ATTR_CHAR.test(char) ? char : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}
