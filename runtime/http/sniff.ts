/**
 * Content sniffing exactly as Go's `net/http.DetectContentType` does it (net/http/internal/sniff.go): the
 * WHATWG mime-sniffing signatures, in Go's order, over at most the first 512 bytes, with Go's final
 * "text/plain; charset=utf-8" versus "application/octet-stream" binary-byte check. Pure; no I/O.
 */

/** The algorithm looks at no more than this many bytes (Go: `sniffLen`). */
export const SNIFF_LEN = 512;

const HTML = 'text/html; charset=utf-8';

/** One signature: returns the MIME type for `data`, or undefined when it does not match. */
type Signature = (data: Uint8Array, firstNonWS: number) => string | undefined;

/** A byte string written with `\xNN` escapes (every char code is one byte, all < 256). */
function bytes(text: string): Uint8Array {
  return Uint8Array.from(text, (char) => char.charCodeAt(0));
}

/** Go's `exactSig`: `data` starts with `sig` (leading whitespace is not skipped). */
function exact(sig: string, contentType: string): Signature {
  const pattern = bytes(sig);
  return (data) => {
    if (data.length < pattern.length) return undefined;
    for (let i = 0; i < pattern.length; i++) if (data[i] !== pattern[i]) return undefined;
    return contentType;
  };
}

/** Go's `maskedSig`: `data[i] & mask[i] === pat[i]` for every i, optionally after leading whitespace. */
function masked(mask: string, pat: string, contentType: string, skipWS = false): Signature {
  const maskBytes = bytes(mask);
  const patBytes = bytes(pat);
  if (maskBytes.length !== patBytes.length) throw new Error('sniff: mask and pattern differ in length');
  return (data, firstNonWS) => {
    const view = skipWS ? data.subarray(firstNonWS) : data;
    if (view.length < patBytes.length) return undefined;
    for (let i = 0; i < patBytes.length; i++) if ((view[i]! & maskBytes[i]!) !== patBytes[i]) return undefined;
    return contentType;
  };
}

/** Go's `htmlSig`: case-insensitive tag after leading whitespace, then a tag-terminating byte (space or `>`). */
function html(tag: string): Signature {
  const pattern = bytes(tag);
  return (data, firstNonWS) => {
    const view = data.subarray(firstNonWS);
    if (view.length < pattern.length + 1) return undefined;
    for (let i = 0; i < pattern.length; i++) {
      const b = pattern[i]!;
      let db = view[i]!;
      if (b >= 0x41 && b <= 0x5a) db &= 0xdf; // fold ASCII lower case onto upper case
      if (b !== db) return undefined;
    }
    const next = view[pattern.length];
    return next === 0x20 || next === 0x3e ? HTML : undefined;
  };
}

/** Go's `mp4Sig` (https://mimesniff.spec.whatwg.org/#signature-for-mp4). */
const mp4: Signature = (data) => {
  if (data.length < 12) return undefined;
  const boxSize = ((data[0]! << 24) | (data[1]! << 16) | (data[2]! << 8) | data[3]!) >>> 0;
  if (data.length < boxSize || boxSize % 4 !== 0) return undefined;
  if (data[4] !== 0x66 || data[5] !== 0x74 || data[6] !== 0x79 || data[7] !== 0x70) return undefined; // "ftyp"
  for (let st = 8; st < boxSize; st += 4) {
    if (st === 12) continue; // the major brand's version number
    if (data[st] === 0x6d && data[st + 1] === 0x70 && data[st + 2] === 0x34) return 'video/mp4'; // "mp4"
  }
  return undefined;
};

/** Go's `textSig`, which must come last: no binary control byte after the leading whitespace. */
const text: Signature = (data, firstNonWS) => {
  for (let i = firstNonWS; i < data.length; i++) {
    const b = data[i]!;
    if (b <= 0x08 || b === 0x0b || (b >= 0x0e && b <= 0x1a) || (b >= 0x1c && b <= 0x1f)) return undefined;
  }
  return 'text/plain; charset=utf-8';
};

const NUL34 = '\x00'.repeat(34);

/** Go's `sniffSignatures`, in Go's order (the order decides ties). */
const SIGNATURES: readonly Signature[] = [
  html('<!DOCTYPE HTML'),
  html('<HTML'),
  html('<HEAD'),
  html('<SCRIPT'),
  html('<IFRAME'),
  html('<H1'),
  html('<DIV'),
  html('<FONT'),
  html('<TABLE'),
  html('<A'),
  html('<STYLE'),
  html('<TITLE'),
  html('<B'),
  html('<BODY'),
  html('<BR'),
  html('<P'),
  html('<!--'),
  masked('\xFF\xFF\xFF\xFF\xFF', '<?xml', 'text/xml; charset=utf-8', true),
  exact('%PDF-', 'application/pdf'),
  exact('%!PS-Adobe-', 'application/postscript'),

  // UTF byte order marks.
  masked('\xFF\xFF\x00\x00', '\xFE\xFF\x00\x00', 'text/plain; charset=utf-16be'),
  masked('\xFF\xFF\x00\x00', '\xFF\xFE\x00\x00', 'text/plain; charset=utf-16le'),
  masked('\xFF\xFF\xFF\x00', '\xEF\xBB\xBF\x00', 'text/plain; charset=utf-8'),

  // Images.
  exact('\x00\x00\x01\x00', 'image/x-icon'),
  exact('\x00\x00\x02\x00', 'image/x-icon'), // cursor
  exact('BM', 'image/bmp'),
  exact('GIF87a', 'image/gif'),
  exact('GIF89a', 'image/gif'),
  masked('\xFF\xFF\xFF\xFF\x00\x00\x00\x00\xFF\xFF\xFF\xFF\xFF\xFF', 'RIFF\x00\x00\x00\x00WEBPVP', 'image/webp'),
  exact('\x89PNG\x0D\x0A\x1A\x0A', 'image/png'),
  exact('\xFF\xD8\xFF', 'image/jpeg'),

  // Audio and video, in the spec's order.
  masked('\xFF\xFF\xFF\xFF\x00\x00\x00\x00\xFF\xFF\xFF\xFF', 'FORM\x00\x00\x00\x00AIFF', 'audio/aiff'),
  masked('\xFF\xFF\xFF', 'ID3', 'audio/mpeg'),
  masked('\xFF\xFF\xFF\xFF\xFF', 'OggS\x00', 'application/ogg'),
  masked('\xFF\xFF\xFF\xFF\xFF\xFF\xFF\xFF', 'MThd\x00\x00\x00\x06', 'audio/midi'),
  masked('\xFF\xFF\xFF\xFF\x00\x00\x00\x00\xFF\xFF\xFF\xFF', 'RIFF\x00\x00\x00\x00AVI ', 'video/avi'),
  masked('\xFF\xFF\xFF\xFF\x00\x00\x00\x00\xFF\xFF\xFF\xFF', 'RIFF\x00\x00\x00\x00WAVE', 'audio/wave'),
  mp4,
  exact('\x1A\x45\xDF\xA3', 'video/webm'),

  // Fonts.
  masked(NUL34 + '\xFF\xFF', NUL34 + 'LP', 'application/vnd.ms-fontobject'),
  exact('\x00\x01\x00\x00', 'font/ttf'),
  exact('OTTO', 'font/otf'),
  exact('ttcf', 'font/collection'),
  exact('wOFF', 'font/woff'),
  exact('wOF2', 'font/woff2'),

  // Archives (RAR as RAR Labs defines it, as Go does).
  exact('\x1F\x8B\x08', 'application/x-gzip'),
  exact('PK\x03\x04', 'application/zip'),
  exact('Rar!\x1A\x07\x00', 'application/x-rar-compressed'),
  exact('Rar!\x1A\x07\x01\x00', 'application/x-rar-compressed'),

  exact('\x00\x61\x73\x6D', 'application/wasm'),

  text,
];

/** Go's `isWS`: the mime-sniffing spec's whitespace bytes. */
function isWS(b: number): boolean {
  return b === 0x09 || b === 0x0a || b === 0x0c || b === 0x0d || b === 0x20;
}

/**
 * `http.DetectContentType`: always a valid MIME type; "application/octet-stream" when nothing more
 * specific matches. Only the first 512 bytes are considered.
 */
export function detectContentType(input: Uint8Array): string {
  const data = input.length > SNIFF_LEN ? input.subarray(0, SNIFF_LEN) : input;
  let firstNonWS = 0;
  while (firstNonWS < data.length && isWS(data[firstNonWS]!)) firstNonWS++;
  for (const signature of SIGNATURES) {
    const contentType = signature(data, firstNonWS);
    if (contentType !== undefined) return contentType;
  }
  return 'application/octet-stream';
}
