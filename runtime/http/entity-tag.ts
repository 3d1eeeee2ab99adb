const utf8 = new TextEncoder();

/**
 * A strong ETag from a file's version (which changes whenever the content does). Anything but printable
 * ASCII without `"` (RFC 7232 etagc, kept to ASCII for header safety) is percent-escaped, `%` included, so
 * any backend's version string gives a valid tag and distinct versions give distinct tags.
 */
export function entityTag(version: string): string {
  const safe = version.replace(/[^\x21\x23-\x24\x26-\x7e]/gu, (char) =>
    Array.from(utf8.encode(char), (b) => `%${b.toString(16).toUpperCase().padStart(2, '0')}`).join(''),
  );
  return `"${safe}"`;
}
