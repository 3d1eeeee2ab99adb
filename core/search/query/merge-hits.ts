/**
 * Merging the hits two stages found in one file (`q` fuses text, definitions, paths and prose): one hit per line,
 * spans united in order, tags united in TAG_ORDER with one tag per kind (the higher score kept).
 */
import { TAG_ORDER, type Hit, type Span, type Tag } from '../answer.ts';

const TAG_RANK = new Map(TAG_ORDER.map((kind, index) => [kind, index]));

export function mergeTags(a: readonly Tag[], b: readonly Tag[]): Tag[] {
  const byKind = new Map<Tag['kind'], Tag>();
  for (const tag of [...a, ...b]) {
    const seen = byKind.get(tag.kind);
    if (seen === undefined || (tag.score ?? 0) > (seen.score ?? 0)) byKind.set(tag.kind, tag);
  }
  return [...byKind.values()].sort((x, y) => TAG_RANK.get(x.kind)! - TAG_RANK.get(y.kind)!);
}

function mergeSpans(a: readonly Span[], b: readonly Span[]): Span[] {
  if (b.length === 0) return [...a];
  if (a.length === 0) return [...b];
  const all = [...a, ...b].sort((x, y) => x.start - y.start || x.end - y.end);
  const out: Span[] = [];
  for (const span of all) {
    const last = out[out.length - 1];
    if (last !== undefined && span.start < last.end) last.end = Math.max(last.end, span.end);
    else if (last === undefined || span.start !== last.start || span.end !== last.end) out.push({ ...span });
  }
  return out;
}

/**
 * The hits of both lists, one per line in line order. Where both have a line, the text of the one with spans
 * wins (a text match's window is what its spans point into), and spans are kept only from hits of that same text.
 */
export function mergeHits(a: readonly Hit[], b: readonly Hit[]): Hit[] {
  const byLine = new Map<number, Hit>();
  for (const hit of a) byLine.set(hit.line, { ...hit, tags: [...hit.tags], spans: [...hit.spans] });
  for (const hit of b) {
    const seen = byLine.get(hit.line);
    if (seen === undefined) {
      byLine.set(hit.line, { ...hit, tags: [...hit.tags], spans: [...hit.spans] });
      continue;
    }
    const tags = mergeTags(seen.tags, hit.tags);
    if (seen.text === hit.text) {
      seen.spans = mergeSpans(seen.spans, hit.spans);
    } else if (seen.spans.length === 0 && hit.spans.length > 0) {
      seen.text = hit.text;
      seen.spans = [...hit.spans];
    }
    seen.tags = tags;
    if (seen.context === undefined && hit.context !== undefined) seen.context = hit.context;
  }
  return [...byLine.values()].sort((x, y) => x.line - y.line);
}
