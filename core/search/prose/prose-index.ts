/**
 * BM25 over identifier-split terms (./tokens.ts) of the workspace's text files, code and docs alike, kept
 * current one document at a time: the prose side of `q` and `find`'s "answered semantically" (docs/intentic-search.md).
 *
 * Scoring is Okapi BM25 with Lucene's always-positive IDF, ln(1 + (N − df + 0.5) / (df + 0.5)), k1 = 1.2 and
 * b = 0.75; each distinct query term counts once. `normalized` (the `bm25` tag) is the score over the query's
 * ceiling Σ idf·(k1 + 1), a score no file reaches: it depends on the file and the query only, never on which
 * other files matched, so a file's tag is the same on every page and under every filter.
 *
 * Memory: the postings live in one packed arena (./posting-arena.ts, 4 bytes an entry). A removed or replaced
 * document only becomes a tombstone (its id leaves the document table; the postings skip it and `df` counts
 * live entries at query time), so an update costs its own terms and nothing more; once tombstone entries
 * outnumber live ones the postings are rebuilt without them. A document's text is kept, for its best lines at
 * query time without a read, while the kept texts total at most `maxTextBytes`; past that a document is indexed
 * without it and its result has `lines: []` and `textless: true` (the caller reads the file and asks
 * `linesOf`). `approxBytes` estimates the heap the index holds (calibrated in bench/search-prose.bench.ts); a
 * document that would take it past `maxBytes`, or the count past `maxDocs`, is refused, counted in
 * `stats().refused`, and stays refused until its version changes or it is removed.
 */
import { MAX_DOC_ID, PostingArena } from './posting-arena.ts';
import { proseLines, type ProseHitLine, type ProseLines } from './prose-lines.ts';
import { forEachTerm, queryTerms } from './tokens.ts';

export type { ProseHitLine, ProseLines } from './prose-lines.ts';

export interface ProseDoc {
  path: string;
  version: string;
  text: string;
}

/** A text's terms as the index counts them (`proseTerms`). */
export interface ProseTerms {
  /** Term occurrences: BM25's document length. */
  readonly length: number;
  /** Each distinct term and its frequency in the text. */
  readonly counts: ReadonlyMap<string, number>;
}

/** A document whose terms were counted already; without `text` it is indexed textless. */
export interface CountedProseDoc {
  path: string;
  version: string;
  terms: ProseTerms;
  text?: string;
}

export interface ProseResult {
  path: string;
  /** Raw BM25. */
  score: number;
  /** 0..1, for the `bm25` tag. */
  normalized: number;
  /** The file's best lines, in line order, at most 50. */
  lines: ProseHitLine[];
  /** More than 50 lines held a query term (the group's `capped`). */
  capped?: true;
  /** The index kept no text of this file: `lines` is empty, `linesOf(query, text)` gives them. */
  textless?: true;
}

export interface ProseSearchOptions {
  limit: number;
  filter?: (path: string) => boolean;
}

export interface ProseStats {
  docs: number;
  /** Term occurrences in the live documents (the sum of their lengths). */
  tokens: number;
  approxBytes: number;
  /** Distinct terms (those only in removed documents included until the next compaction). */
  terms: number;
  /** Documents refused for the caps. */
  refused: number;
}

export interface ProseIndex {
  add(doc: ProseDoc): void;
  /**
   * `add`, its terms counted already (`proseTerms`, perhaps by an earlier run: a store keeps them so a restarted
   * engine neither reads nor tokenizes an unchanged file, core/search/file-facts-store.ts). The same document is
   * indexed as `add` indexes it, textless when `text` is absent.
   */
  addCounted(doc: CountedProseDoc): void;
  /** Whether the index keeps `path`'s text (so a store keeping its terms keeps the text too). */
  keepsText(path: string): boolean;
  remove(path: string): void;
  /** Whether `path` at `version` is current here: indexed, or refused at that version. */
  has(path: string, version: string): boolean;
  search(query: string, options: ProseSearchOptions): ProseResult[];
  /** The best lines of `text` for `query`, weighted by this index (for a `textless` result). */
  linesOf(query: string, text: string): ProseLines;
  stats(): ProseStats;
}

export interface ProseIndexOptions {
  maxDocs?: number;
  maxBytes?: number;
  /** Kept texts in all, in bytes as V8 holds them; 0 keeps none. */
  maxTextBytes?: number;
  k1?: number;
  b?: number;
}

export const DEFAULT_MAX_PROSE_DOCS = 200_000;
export const DEFAULT_MAX_PROSE_BYTES = 128 * 1024 * 1024;
export const DEFAULT_MAX_PROSE_TEXT_BYTES = 32 * 1024 * 1024;

/**
 * Heap estimates beyond the arena's own bytes (Node 20, no pointer compression), fitted in
 * bench/search-prose.bench.ts: a term its key string header and Map entry; a document its record, its Map entry
 * and its two typed-array slots.
 */
const BYTES_PER_TERM = 72;
const BYTES_PER_DOC = 200;

interface DocEntry {
  path: string;
  version: string;
  text: string | undefined;
  /** Term occurrences: BM25's document length. */
  length: number;
  /** Distinct terms: its entries in the postings. */
  distinct: number;
  /** Its record and strings (text included when kept). */
  bytes: number;
}

export function createProseIndex(options: ProseIndexOptions = {}): ProseIndex {
  const maxDocs = Math.min(options.maxDocs ?? DEFAULT_MAX_PROSE_DOCS, MAX_DOC_ID + 1);
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_PROSE_BYTES;
  const maxTextBytes = options.maxTextBytes ?? DEFAULT_MAX_PROSE_TEXT_BYTES;
  const k1 = options.k1 ?? 1.2;
  const b = options.b ?? 0.75;

  let docs: (DocEntry | undefined)[] = [];
  let arena = new PostingArena();
  let termIds = new Map<string, number>();
  let termBytes = 0;
  const byPath = new Map<string, number>();
  const refused = new Map<string, string>();
  let liveDocs = 0;
  let totalLength = 0;
  let docBytes = 0;
  let textBytes = 0;
  let livePairs = 0;
  let deadPairs = 0;

  const approxBytes = () => arena.byteLength + termBytes + docBytes + 8 * docs.length;

  function remove(path: string): void {
    refused.delete(path);
    const id = byPath.get(path);
    if (id === undefined) return;
    const doc = docs[id]!;
    byPath.delete(path);
    docs[id] = undefined;
    liveDocs--;
    totalLength -= doc.length;
    docBytes -= doc.bytes;
    if (doc.text !== undefined) textBytes -= heapBytesOf(doc.text);
    livePairs -= doc.distinct;
    deadPairs += doc.distinct;
    if (deadPairs > 4096 && deadPairs > livePairs) compact();
  }

  function addCounted(doc: CountedProseDoc): void {
    remove(doc.path);
    const { counts, length } = doc.terms;
    const text = doc.text === undefined ? 0 : heapBytesOf(doc.text);
    const keepText = doc.text !== undefined && textBytes + text <= maxTextBytes;
    const own = BYTES_PER_DOC + 2 * (doc.path.length + doc.version.length) + (keepText ? text : 0);
    let newTerms = 0;
    for (const term of counts.keys()) if (!termIds.has(term)) newTerms += BYTES_PER_TERM + term.length;
    // 6 bytes an entry: 4 and the blocks' slack, about half full on average at the tail.
    if (liveDocs + 1 > maxDocs || docs.length > MAX_DOC_ID || approxBytes() + own + newTerms + 6 * counts.size > maxBytes) {
      refused.set(doc.path, doc.version);
      return;
    }
    const id = docs.length;
    docs.push({ path: doc.path, version: doc.version, text: keepText ? doc.text : undefined, length, distinct: counts.size, bytes: own });
    byPath.set(doc.path, id);
    for (const [term, tf] of counts) {
      let termId = termIds.get(term);
      if (termId === undefined) {
        termIds.set(term, (termId = arena.addTerm()));
        termBytes += BYTES_PER_TERM + term.length;
      }
      arena.push(termId, id, tf);
    }
    liveDocs++;
    totalLength += length;
    docBytes += own;
    if (keepText) textBytes += text;
    livePairs += counts.size;
  }

  /**
   * Rebuilds the postings from the live entries and renumbers the documents in their order (ids stay in push
   * order, so every posting stays sorted by id); terms only removed documents held go.
   */
  function compact(): void {
    const renumbered = new Int32Array(docs.length).fill(-1);
    const next: DocEntry[] = [];
    docs.forEach((doc, id) => {
      if (doc === undefined) return;
      renumbered[id] = next.length;
      byPath.set(doc.path, next.length);
      next.push(doc);
    });
    const nextArena = new PostingArena();
    const nextIds = new Map<string, number>();
    termBytes = 0;
    for (const [term, oldId] of termIds) {
      let newId = -1;
      arena.forEach(oldId, (doc, tf) => {
        const id = renumbered[doc]!;
        if (id === -1) return;
        if (newId === -1) {
          nextIds.set(term, (newId = nextArena.addTerm()));
          termBytes += BYTES_PER_TERM + term.length;
        }
        nextArena.push(newId, id, tf);
      });
    }
    docs = next;
    arena = nextArena;
    termIds = nextIds;
    deadPairs = 0;
  }

  /** Each distinct query term and its IDF over the live documents (0 for a term no live document holds). */
  function weightsOf(query: string): Map<string, number> {
    const weights = new Map<string, number>();
    for (const term of queryTerms(query)) {
      const termId = termIds.get(term);
      let df = 0;
      if (termId !== undefined) arena.forEach(termId, (doc) => void (docs[doc] !== undefined && df++));
      weights.set(term, df === 0 ? 0 : Math.log(1 + (liveDocs - df + 0.5) / (df + 0.5)));
    }
    return weights;
  }

  function search(query: string, { limit, filter }: ProseSearchOptions): ProseResult[] {
    const weights = weightsOf(query);
    let ceiling = 0;
    for (const weight of weights.values()) ceiling += weight * (k1 + 1);
    if (ceiling === 0 || limit < 1) return [];
    const avgLength = totalLength / liveDocs;
    const scores = new Float64Array(docs.length);
    const touched: number[] = [];
    for (const [term, weight] of weights) {
      if (weight === 0) continue;
      arena.forEach(termIds.get(term)!, (id, tf) => {
        const doc = docs[id];
        if (doc === undefined) return;
        if (scores[id] === 0) touched.push(id);
        scores[id]! += (weight * tf * (k1 + 1)) / (tf + k1 * (1 - b + (b * doc.length) / avgLength));
      });
    }
    const ranked: { doc: DocEntry; score: number }[] = [];
    for (const id of touched) {
      const doc = docs[id]!;
      if (filter === undefined || filter(doc.path)) ranked.push({ doc, score: scores[id]! });
    }
    ranked.sort((x, y) => y.score - x.score || (x.doc.path < y.doc.path ? -1 : x.doc.path > y.doc.path ? 1 : 0));
    return ranked.slice(0, limit).map(({ doc, score }) => {
      const result: ProseResult = { path: doc.path, score, normalized: score / ceiling, lines: [] };
      if (doc.text === undefined) result.textless = true;
      else {
        const best = proseLines(doc.text, weights);
        result.lines = best.lines;
        if (best.capped) result.capped = true;
      }
      return result;
    });
  }

  return {
    add: (doc) => addCounted({ path: doc.path, version: doc.version, text: doc.text, terms: proseTerms(doc.text) }),
    addCounted,
    keepsText(path) {
      const id = byPath.get(path);
      return id !== undefined && docs[id]!.text !== undefined;
    },
    remove,
    has(path, version) {
      const id = byPath.get(path);
      return id !== undefined ? docs[id]!.version === version : refused.get(path) === version;
    },
    search,
    linesOf: (query, text) => proseLines(text, weightsOf(query)),
    stats: () => ({ docs: liveDocs, tokens: totalLength, approxBytes: approxBytes(), terms: termIds.size, refused: refused.size }),
  };
}

/** `text`'s terms and their frequencies, as the index counts them (./tokens.ts). */
export function proseTerms(text: string): ProseTerms {
  const counts = new Map<string, number>();
  let length = 0;
  forEachTerm(text, (term) => {
    counts.set(term, (counts.get(term) ?? 0) + 1);
    length++;
  });
  return { length, counts };
}

/** V8 keeps a string of Latin-1 code units one byte each, any other two. */
function heapBytesOf(text: string): number {
  return /[^\u0000-\u00ff]/.test(text) ? 2 * text.length : text.length;
}
