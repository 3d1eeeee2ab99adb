/** A word for `sh`: single-quoted, a `'` inside as `'\''`, so the shell reads it back byte for byte. */
export function shellQuote(value: string): string {
  return `'${value.replaceAll("'", `'\\''`)}'`;
}
