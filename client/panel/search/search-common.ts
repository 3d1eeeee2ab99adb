/** Small pieces quick open and the search view share. */

/** A request we aborted ourselves (a newer query replaced it): not an error to show. */
export function isAbort(error: unknown): boolean {
  return error instanceof DOMException && error.name === 'AbortError';
}

/**
 * `text` with each span (UTF-16 offsets, in order) wrapped in `<mark>`. Spans out of range, empty, or overlapping
 * the one before are clamped or skipped, so a surprising answer still draws the line itself.
 */
export function highlighted(text: string, spans: readonly { start: number; end: number }[]): Node[] {
  const nodes: Node[] = [];
  let at = 0;
  for (const span of spans) {
    const start = Math.max(at, Math.min(span.start, text.length));
    const end = Math.min(span.end, text.length);
    if (end <= start) continue;
    if (start > at) nodes.push(document.createTextNode(text.slice(at, start)));
    const mark = document.createElement('mark');
    mark.textContent = text.slice(start, end);
    nodes.push(mark);
    at = end;
  }
  if (at < text.length) nodes.push(document.createTextNode(text.slice(at)));
  return nodes;
}
