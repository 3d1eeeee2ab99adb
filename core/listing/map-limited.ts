/**
 * `Promise.all(items.map(fn))` with at most `limit` calls in flight: a folder of fifty thousand entries must
 * not start fifty thousand stats at once (each holds a thread-pool slot and a pending promise on Node).
 * Results keep the input order.
 */
export async function mapLimited<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const at = next++;
      results[at] = await fn(items[at]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}
