/**
 * Pieces of bytes (a stream's chunks, the parts of a page) as one array. Edge-clean (no Buffer.concat), so the
 * backends, the core and the runtime's body reader share it.
 */
export function concatBytes(parts: readonly Uint8Array[]): Uint8Array {
  // One part is already the whole: no copy.
  if (parts.length === 1) return parts[0]!;
  let length = 0;
  for (const part of parts) length += part.byteLength;
  const out = new Uint8Array(length);
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.byteLength;
  }
  return out;
}
