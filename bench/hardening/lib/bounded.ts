/**
 * Opens many connections a bounded number at a time: a thousand handshakes at once would measure the accept queue
 * and the client's own event loop rather than the daemon holding the connections, and one slow handshake must not
 * hold up a whole batch (a pool, not batches). Failures are collected, not thrown, so the caller can close what did
 * open and then say exactly what did not.
 */
export interface BoundedOpen {
  opened: number;
  /** One line per connection that could not be opened or verified. */
  failures: string[];
}

export async function openBounded<T>(
  label: string,
  count: number,
  concurrency: number,
  open: (index: number) => Promise<T>,
  keep: (item: T) => void,
): Promise<BoundedOpen> {
  let next = 0;
  let opened = 0;
  const failures: string[] = [];
  const worker = async () => {
    while (next < count) {
      const index = next++;
      try {
        keep(await open(index));
        opened++;
      } catch (error) {
        failures.push(`${label} #${index}: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker));
  return { opened, failures };
}

/** Throws one clear error naming how many of each kind failed, with the first few reasons. */
export function requireAllOpened(results: Record<string, BoundedOpen & { wanted: number }>): void {
  const short = Object.entries(results).filter(([, result]) => result.failures.length > 0);
  if (short.length === 0) return;
  const counts = short.map(([kind, result]) => `${kind} ${result.opened}/${result.wanted}`).join(', ');
  const reasons = short.flatMap(([, result]) => result.failures).slice(0, 8);
  throw new Error(`not every client connected before the load (${counts}):\n  ${reasons.join('\n  ')}`);
}
