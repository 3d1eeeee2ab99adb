/**
 * Counters for a long run: what happened (operations, bytes, documented refusals) and what went wrong (errors by
 * kind, with the first few messages kept as evidence for the report).
 */
const KEPT_MESSAGES = 30;

export class Tally {
  readonly counts = new Map<string, number>();
  readonly errors = new Map<string, number>();
  readonly messages: string[] = [];

  count(key: string, n = 1): void {
    this.counts.set(key, (this.counts.get(key) ?? 0) + n);
  }

  get(key: string): number {
    return this.counts.get(key) ?? 0;
  }

  error(kind: string, detail: unknown): void {
    this.errors.set(kind, (this.errors.get(kind) ?? 0) + 1);
    if (this.messages.length < KEPT_MESSAGES) {
      const text = detail instanceof Error ? detail.message : String(detail);
      this.messages.push(`${kind}: ${text.slice(0, 300)}`);
    }
  }

  errorTotal(prefix = ''): number {
    let total = 0;
    for (const [kind, n] of this.errors) if (kind.startsWith(prefix)) total += n;
    return total;
  }

  /** "kind×n, …" for a figure's note. */
  errorSummary(prefix = ''): string {
    return [...this.errors].filter(([kind]) => kind.startsWith(prefix)).map(([kind, n]) => `${kind}×${n}`).join(', ');
  }
}
