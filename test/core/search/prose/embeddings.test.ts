import { delay, http, HttpResponse } from 'msw';
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createEmbeddingsStage, type EmbeddingsConfig } from '../../../../core/search/prose/embeddings.ts';
import { MAX_CHUNK_CHARS, semanticChunks } from '../../../../core/search/prose/semantic-chunks.ts';

const BASE = 'http://embeddings.test';
const ENDPOINT = `${BASE}/v1/embeddings`;

/** Fixed vectors by input text: the query points along x; the chunks at known angles to it. */
const VECTORS: Record<string, number[]> = {
  'usb reset': [1, 0, 0],
  'same direction': [2, 0, 0],
  'at sixty degrees': [0.5, Math.sqrt(3) / 2, 0],
  orthogonal: [0, 0, 5],
  opposite: [-1, 0, 0],
  extra: [1, 1, 0],
};

interface Seen {
  url: string;
  headers: Record<string, string>;
  body: unknown;
}
let seen: Seen[] = [];

const server = setupServer();
beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
afterEach(() => {
  server.resetHandlers();
  seen = [];
});
afterAll(() => server.close());

/** An OpenAI-compatible endpoint answering VECTORS, in reverse order (clients must use `index`). */
function serveVectors(url = ENDPOINT): void {
  server.use(
    http.post(url, async ({ request }) => {
      const body = (await request.json()) as { model: string; input: string[] };
      seen.push({ url: request.url, headers: Object.fromEntries(request.headers), body });
      const data = body.input.map((text, index) => ({ object: 'embedding', embedding: VECTORS[text]!, index }));
      return HttpResponse.json({ object: 'list', data: data.reverse(), model: body.model });
    }),
  );
}

const config: EmbeddingsConfig = { url: BASE, model: 'nomic-embed-text', timeoutMs: 2000 };
const chunks = (...texts: string[]) => texts.map((text) => ({ key: `${text}.c`, text }));

describe('semanticScores', () => {
  it('posts { model, input } with the query first and answers the clamped cosine of each chunk', async () => {
    serveVectors();
    const stage = createEmbeddingsStage({ ...config, apiKey: 'sk-test' });
    const result = await stage.semanticScores('usb reset', chunks('same direction', 'at sixty degrees', 'orthogonal', 'opposite'));
    expect(seen).toHaveLength(1);
    expect(seen[0]!.url).toBe(ENDPOINT);
    expect(seen[0]!.headers).toMatchObject({ 'content-type': 'application/json', authorization: 'Bearer sk-test' });
    expect(seen[0]!.body).toEqual({
      model: 'nomic-embed-text',
      input: ['usb reset', 'same direction', 'at sixty degrees', 'orthogonal', 'opposite'],
    });
    expect(result.off).toBeUndefined();
    expect([...result.scores]).toEqual([
      ['same direction.c', 1],
      ['at sixty degrees.c', expect.closeTo(0.5, 6)],
      ['orthogonal.c', 0],
      ['opposite.c', 0],
    ]);
  });

  it('sends no Authorization without an apiKey, and does not double a base that ends in /v1', async () => {
    serveVectors();
    const stage = createEmbeddingsStage({ ...config, url: `${BASE}/v1/` });
    await stage.semanticScores('usb reset', chunks('extra'));
    expect(seen.map((s) => s.url)).toEqual([ENDPOINT]);
    expect(seen[0]!.headers.authorization).toBeUndefined();
  });

  it('batches the inputs, one request after another, and embeds a repeated text once', async () => {
    serveVectors();
    const stage = createEmbeddingsStage({ ...config, batchSize: 2 });
    const result = await stage.semanticScores('usb reset', [
      ...chunks('same direction', 'at sixty degrees', 'orthogonal', 'opposite'),
      { key: 'copy.c', text: 'orthogonal' },
    ]);
    expect(seen.map((s) => (s.body as { input: string[] }).input)).toEqual([
      ['usb reset', 'same direction'],
      ['at sixty degrees', 'orthogonal'],
      ['opposite'],
    ]);
    expect(result.scores.size).toBe(5);
    expect(result.scores.get('copy.c')).toBe(0);
  });

  it('answers from the cache by content: nothing is sent again, only new texts are', async () => {
    serveVectors();
    const stage = createEmbeddingsStage(config);
    const first = await stage.semanticScores('usb reset', chunks('same direction', 'at sixty degrees'));
    const again = await stage.semanticScores('usb reset', [
      { key: 'renamed.c', text: 'same direction' },
      ...chunks('at sixty degrees'),
    ]);
    expect(seen).toHaveLength(1);
    expect([...again.scores.values()]).toEqual([...first.scores.values()]);
    expect(again.scores.get('renamed.c')).toBe(1);
    await stage.semanticScores('usb reset', chunks('same direction', 'extra'));
    expect(seen.map((s) => (s.body as { input: string[] }).input)).toEqual([
      ['usb reset', 'same direction', 'at sixty degrees'],
      ['extra'],
    ]);
  });

  it('keeps the cache per model', async () => {
    serveVectors();
    await createEmbeddingsStage(config).semanticScores('usb reset', chunks('extra'));
    const other = createEmbeddingsStage({ ...config, model: 'other' });
    await other.semanticScores('usb reset', chunks('extra'));
    await other.semanticScores('usb reset', chunks('extra'));
    expect(seen.map((s) => (s.body as { model: string }).model)).toEqual(['nomic-embed-text', 'other']);
  });

  describe('turns the stage off for the query, never throwing, and caches nothing of a failed call', () => {
    it('on a timeout, within the deadline', async () => {
      server.use(http.post(ENDPOINT, async () => (await delay(5000), HttpResponse.json({ data: [] }))));
      const started = performance.now();
      const result = await createEmbeddingsStage({ ...config, timeoutMs: 100 }).semanticScores('usb reset', chunks('extra'));
      expect(result).toEqual({ scores: new Map(), off: 'sem: embeddings endpoint timed out after 100 ms' });
      expect(performance.now() - started).toBeLessThan(3000);
    });

    it('on a deadline passing between batches', async () => {
      let calls = 0;
      server.use(
        http.post(ENDPOINT, async ({ request }) => {
          const { input } = (await request.json()) as { input: string[] };
          if (calls++ > 0) await delay(5000);
          return HttpResponse.json({ data: input.map((text, index) => ({ embedding: VECTORS[text]!, index })) });
        }),
      );
      const stage = createEmbeddingsStage({ ...config, timeoutMs: 150, batchSize: 1 });
      expect(await stage.semanticScores('usb reset', chunks('extra'))).toEqual({
        scores: new Map(),
        off: 'sem: embeddings endpoint timed out after 150 ms',
      });
    });

    it('on HTTP 500, then tries again on the next query with every input', async () => {
      server.use(http.post(ENDPOINT, () => HttpResponse.json({ error: 'model not loaded' }, { status: 500 }), { once: true }));
      const stage = createEmbeddingsStage(config);
      expect(await stage.semanticScores('usb reset', chunks('extra'))).toEqual({
        scores: new Map(),
        off: 'sem: embeddings endpoint answered HTTP 500',
      });
      serveVectors();
      const next = await stage.semanticScores('usb reset', chunks('extra'));
      expect(next.off).toBeUndefined();
      expect(seen.map((s) => (s.body as { input: string[] }).input)).toEqual([['usb reset', 'extra']]);
    });

    it.each([
      ['malformed JSON', () => new HttpResponse('{"data": [', { headers: { 'content-type': 'application/json' } }), 'sem: embeddings endpoint answered malformed JSON'],
      ['no data', () => HttpResponse.json({ object: 'list' }), 'sem: embeddings endpoint answered an unexpected shape'],
      ['a missing index', () => HttpResponse.json({ data: [{ embedding: [1, 0, 0], index: 0 }] }), 'sem: embeddings endpoint answered an unexpected shape'],
      [
        'an index out of range',
        () => HttpResponse.json({ data: [{ embedding: [1, 0, 0], index: 0 }, { embedding: [1, 0, 0], index: 7 }] }),
        'sem: embeddings endpoint answered an unexpected shape',
      ],
      ['non-numbers', () => HttpResponse.json({ data: [{ embedding: ['x'], index: 0 }, { embedding: [1], index: 1 }] }), 'sem: embeddings endpoint answered an unexpected shape'],
      [
        'vectors of differing length',
        () => HttpResponse.json({ data: [{ embedding: [1, 0, 0], index: 0 }, { embedding: [1, 0], index: 1 }] }),
        'sem: embeddings endpoint answered vectors of differing length',
      ],
      ['a network error', () => HttpResponse.error(), 'sem: embeddings endpoint unreachable (Failed to fetch)'],
    ])('on %s', async (_, respond, off) => {
      server.use(http.post(ENDPOINT, respond));
      expect(await createEmbeddingsStage(config).semanticScores('usb reset', chunks('extra'))).toEqual({ scores: new Map(), off });
    });
  });
});

describe('semanticChunks', () => {
  it('is one chunk per file for the top candidates: its path and its best lines, trimmed, capped in length', () => {
    const result = (path: string, lines: string[]) => ({
      path,
      score: 1,
      normalized: 0.5,
      lines: lines.map((text, i) => ({ line: i + 1, text, score: 1 })),
    });
    const long = 'w'.repeat(MAX_CHUNK_CHARS);
    expect(semanticChunks([result('a.md', ['  Reset a device.', '\tthen wait']), result('b.c', [long]), result('c.c', [])], 2)).toEqual([
      { key: 'a.md', text: 'a.md\nReset a device.\nthen wait' },
      { key: 'b.c', text: `b.c\n${long}`.slice(0, MAX_CHUNK_CHARS) },
    ]);
  });
});
