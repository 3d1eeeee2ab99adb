/**
 * What a text hit shows of its line (docs/intentic-search.md "Answer", `text`): the line itself, or for a line over
 * MAX_LINE_CHARS (UTF-16 code units) the MAX_LINE_CHARS-unit window starting WINDOW_LEAD units before the
 * first match, clamped to the line's start. Spans the window cuts are dropped, the rest shifted into it. The
 * window is cut by code units, exactly as the rule says (a surrogate pair at its very edge can be split).
 */
import type { Span } from '../answer.ts';

export const MAX_LINE_CHARS = 200;
export const WINDOW_LEAD = 40;

/** `spans`: the line's matches, in order, at least one. */
export function textWindow(line: string, spans: Span[]): { text: string; spans: Span[] } {
  if (line.length <= MAX_LINE_CHARS) return { text: line, spans };
  const from = Math.max(0, spans[0]!.start - WINDOW_LEAD);
  const to = from + MAX_LINE_CHARS;
  return {
    text: line.slice(from, to),
    spans: spans.filter((span) => span.start >= from && span.end <= to).map((span) => ({ start: span.start - from, end: span.end - from })),
  };
}
