/**
 * Bytes → standard base64 (RFC 4648 §4, padded) with Web APIs only. `btoa` takes a "binary string" (one char
 * per byte); building it in slices keeps `String.fromCharCode.apply` under engines' argument-count limits.
 */
const SLICE = 0x8000;

export function encodeBase64(bytes: Uint8Array): string {
  let binary = '';
  for (let at = 0; at < bytes.byteLength; at += SLICE) {
    binary += String.fromCharCode.apply(null, bytes.subarray(at, at + SLICE) as unknown as number[]);
  }
  return btoa(binary);
}
