/**
 * Which entry names may be extracted at all, decided on the name alone (zip-slip): a name is a relative
 * path of plain segments. Refused: an absolute name (`/etc/x`), a drive letter (`C:x`), a backslash (a
 * separator on Windows, so `..\x` climbs there; the zip format says `/`), a `..` segment anywhere (even one
 * that would stay inside: no tool agrees on how to fold them, so none is trusted), a NUL, and a segment or
 * path longer than Linux allows, which would only fail once the files are moved into place.
 * Where the path really lands (links already in the destination) is decided later, on real paths.
 */
const MAX_SEGMENT_BYTES = 255;
const MAX_PATH_BYTES = 4096;
const encoder = new TextEncoder();

/**
 * The entry's path relative to the destination, segments joined with `/` (empty and `.` segments dropped,
 * so `./` names the destination itself: ""), or undefined when the name is refused.
 */
export function safeEntryPath(name: string): string | undefined {
  if (name === '' || name.startsWith('/') || /^[A-Za-z]:/.test(name)) return undefined;
  if (name.includes('\\') || name.includes('\0')) return undefined;
  const kept: string[] = [];
  for (const segment of name.split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') return undefined;
    if (encoder.encode(segment).byteLength > MAX_SEGMENT_BYTES) return undefined;
    kept.push(segment);
  }
  const path = kept.join('/');
  return encoder.encode(path).byteLength > MAX_PATH_BYTES ? undefined : path;
}
