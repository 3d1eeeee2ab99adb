/**
 * Whether `value` can travel as an HTTP header value. fetch refuses one with a line break or a character past U+00FF
 * in a message that quotes the value — for an API key, the key itself — so a caller checks first and says why in
 * its own words.
 */
export function sendableHeaderValue(value: string): boolean {
  try {
    new Headers({ authorization: value });
    return true;
  } catch {
    return false;
  }
}
