/**
 * The optional `sem` stage: re-scores the top prose candidates by embedding similarity, over an OpenAI-compatible
 * `POST {url}/v1/embeddings` (`{ model, input: string[] }` → `{ data: [{ embedding, index }] }`), what Ollama and
 * llama.cpp's server answer. Embedding a whole kernel per workspace is not the design: the engine hands only
 * its top SEMANTIC_CANDIDATES BM25 files, one chunk each (./semantic-chunks.ts), so a query costs one request
 * of at most BATCH_SIZE inputs when nothing is cached, and only the query when the files are.
 *
 * - The global `fetch` (edge-clean; msw intercepts it in tests). `url` is the server's base; a base already
 *   ending in `/v1` is not given a second one. `apiKey` goes as `Authorization: Bearer`.
 * - Inputs in batches of `batchSize` (default 64), one request at a time (a local server embeds one batch at a
 *   time anyway); the query rides in the first batch.
 * - One deadline, `timeoutMs`, for the whole call: a slow endpoint costs a query at most that.
 * - Cached by the SHA-256 of model and text (most-recently-used `cacheEntries`, default 4096), so an unchanged
 *   file is embedded once, whatever its path or the query.
 * - Any failure (network, timeout, non-2xx, a body that is not the shape above, vectors of differing length)
 *   turns the stage off for that query: `scores` is empty and `off` says why, in the words the engine puts in
 *   `features` (e.g. `sem: embeddings endpoint timed out after 2000 ms`). Never a throw.
 * - Scores are cosine similarities, negatives clamped to 0 (unrelated texts), in 0..1.
 */
import { z } from 'zod';
import { sendableHeaderValue } from '../../text/header-value.ts';

export interface EmbeddingsConfig {
  url: string;
  model: string;
  apiKey?: string;
  timeoutMs: number;
  batchSize?: number;
  cacheEntries?: number;
}

export interface SemanticChunk {
  key: string;
  text: string;
}

export interface SemanticScores {
  /** Chunk key → cosine similarity to the query, 0..1; empty when the stage is off. */
  scores: Map<string, number>;
  /** Why the stage is off for this query, as a `features` entry; absent when it ran. */
  off?: string;
}

export interface EmbeddingsStage {
  semanticScores(query: string, chunks: readonly SemanticChunk[]): Promise<SemanticScores>;
}

export const DEFAULT_BATCH_SIZE = 64;
export const DEFAULT_CACHE_ENTRIES = 4096;
/** How many of the best BM25 files the engine re-scores per query. */
export const SEMANTIC_CANDIDATES = 50;
/** The `features` entry when no endpoint is configured. */
export const SEM_NOT_CONFIGURED = 'sem: no embeddings endpoint configured';

const Answer = z.object({
  data: z.array(z.object({ embedding: z.array(z.number()).min(1), index: z.number().int().min(0) })),
});

class StageOff extends Error {}

export function createEmbeddingsStage(config: EmbeddingsConfig): EmbeddingsStage {
  const endpoint = `${config.url.replace(/\/+$/, '').replace(/\/v1$/, '')}/v1/embeddings`;
  const batchSize = Math.max(1, config.batchSize ?? DEFAULT_BATCH_SIZE);
  const cacheEntries = config.cacheEntries ?? DEFAULT_CACHE_ENTRIES;
  /** Content hash → vector; a Map iterates in insertion order, so re-inserting on use makes it an LRU. */
  const cache = new Map<string, Float32Array>();

  function remember(hash: string, vector: Float32Array): void {
    cache.delete(hash);
    cache.set(hash, vector);
    while (cache.size > cacheEntries) cache.delete(cache.keys().next().value!);
  }

  async function request(input: string[], signal: AbortSignal): Promise<Float32Array[]> {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (config.apiKey !== undefined) headers.authorization = `Bearer ${config.apiKey}`;
    // fetch refuses a header value with a line break in it, in a message that quotes the value: the key.
    if (headers.authorization !== undefined && !sendableHeaderValue(headers.authorization)) {
      throw new StageOff('sem: the embeddings key cannot be sent in a header (it holds a line break or a character past U+00FF)');
    }
    let response: Response;
    try {
      response = await fetch(endpoint, { method: 'POST', headers, body: JSON.stringify({ model: config.model, input }), signal });
    } catch (error) {
      if (signal.aborted) throw new StageOff(`sem: embeddings endpoint timed out after ${config.timeoutMs} ms`);
      throw new StageOff(`sem: embeddings endpoint unreachable (${(error as Error).message})`);
    }
    let body: unknown;
    try {
      if (!response.ok) throw new StageOff(`sem: embeddings endpoint answered HTTP ${response.status}`);
      body = await response.json();
    } catch (error) {
      if (error instanceof StageOff) throw error;
      if (signal.aborted) throw new StageOff(`sem: embeddings endpoint timed out after ${config.timeoutMs} ms`);
      throw new StageOff('sem: embeddings endpoint answered malformed JSON');
    } finally {
      // An error body is not read: release the connection (not awaited, a stalled body must not hold us).
      if (!response.bodyUsed) void response.body?.cancel().catch(() => {});
    }
    const parsed = Answer.safeParse(body);
    if (!parsed.success) throw new StageOff('sem: embeddings endpoint answered an unexpected shape');
    const vectors: (Float32Array | undefined)[] = new Array(input.length);
    for (const { embedding, index } of parsed.data.data) {
      if (index >= input.length || vectors[index] !== undefined) throw new StageOff('sem: embeddings endpoint answered an unexpected shape');
      vectors[index] = Float32Array.from(embedding);
    }
    for (let i = 0; i < input.length; i++) {
      if (vectors[i] === undefined) throw new StageOff('sem: embeddings endpoint answered an unexpected shape');
    }
    return vectors as Float32Array[];
  }

  async function semanticScores(query: string, chunks: readonly SemanticChunk[]): Promise<SemanticScores> {
    const signal = AbortSignal.timeout(config.timeoutMs);
    try {
      const queryHash = await contentHash(config.model, query);
      const chunkHashes = await Promise.all(chunks.map((chunk) => contentHash(config.model, chunk.text)));
      // Each text to embed once: the query first, then chunks not cached, duplicates folded. Cached vectors
      // are taken now: a concurrent query finishing meanwhile may evict them.
      const vectors = new Map<string, Float32Array>();
      const wanted = new Map<string, string>();
      for (const [hash, text] of [[queryHash, query], ...chunkHashes.map((hash, i) => [hash, chunks[i]!.text])] as [string, string][]) {
        const cached = cache.get(hash);
        if (cached !== undefined) vectors.set(hash, cached);
        else if (!wanted.has(hash)) wanted.set(hash, text);
      }
      const pending = [...wanted];
      for (let start = 0; start < pending.length; start += batchSize) {
        const batch = pending.slice(start, start + batchSize);
        const answered = await request(batch.map(([, text]) => text), signal);
        batch.forEach(([hash], i) => vectors.set(hash, answered[i]!));
      }
      const vectorOf = (hash: string) => vectors.get(hash)!;
      const queryVector = vectorOf(queryHash);
      const scores = new Map<string, number>();
      chunks.forEach((chunk, i) => {
        const vector = vectorOf(chunkHashes[i]!);
        if (vector.length !== queryVector.length) throw new StageOff('sem: embeddings endpoint answered vectors of differing length');
        scores.set(chunk.key, Math.max(0, cosine(queryVector, vector)));
      });
      // Cached (and marked used) only once the whole call succeeded: a failed call leaves nothing half-done.
      for (const [hash, vector] of vectors) remember(hash, vector);
      return { scores };
    } catch (error) {
      if (error instanceof StageOff) return { scores: new Map(), off: error.message };
      throw error;
    }
  }

  return { semanticScores };
}

async function contentHash(model: string, text: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(`${model}\u0000${text}`));
  let hex = '';
  for (const byte of new Uint8Array(digest)) hex += byte.toString(16).padStart(2, '0');
  return hex;
}

function cosine(a: Float32Array, b: Float32Array): number {
  let dot = 0;
  let normA = 0;
  let normB = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i]! * b[i]!;
    normA += a[i]! * a[i]!;
    normB += b[i]! * b[i]!;
  }
  return normA === 0 || normB === 0 ? 0 : dot / Math.sqrt(normA * normB);
}

