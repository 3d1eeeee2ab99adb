/** Progress lines go to stderr so stdout stays the results. */
export function log(message: string): void {
  process.stderr.write(`[bench] ${message}\n`);
}
