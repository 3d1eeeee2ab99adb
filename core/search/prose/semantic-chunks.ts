/**
 * What the `sem` stage embeds for a prose candidate: one chunk per file, its path and its best lines (the lines
 * BM25 picked, in line order), at most MAX_CHUNK_CHARS. One chunk per file keeps a query's request to one batch
 * (SEMANTIC_CANDIDATES + the query ≤ 64 inputs) and says what the file is about where the query touched it; the
 * path carries meaning too (`drivers/usb/core/hub.c`). Keyed by path; an unchanged file's chunk is the same
 * text, so its vector comes from the cache.
 */
import { SEMANTIC_CANDIDATES, type SemanticChunk } from './embeddings.ts';
import type { ProseResult } from './prose-index.ts';

/** Small enough for any embedding model's context (≈ 500 tokens), large enough for 50 lines of prose. */
export const MAX_CHUNK_CHARS = 2000;

export function semanticChunks(results: readonly ProseResult[], candidates = SEMANTIC_CANDIDATES): SemanticChunk[] {
  return results.slice(0, candidates).map((result) => {
    let text = [result.path, ...result.lines.map((line) => line.text.trim())].join('\n');
    if (text.length > MAX_CHUNK_CHARS) {
      text = text.slice(0, MAX_CHUNK_CHARS);
      const last = text.charCodeAt(text.length - 1);
      if (last >= 0xd800 && last <= 0xdbff) text = text.slice(0, -1);
    }
    return { key: result.path, text };
  });
}
