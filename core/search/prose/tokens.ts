/**
 * The terms BM25 (./prose-index.ts) and rank fusion (./fuse-ranks.ts) see: one tokenizer for code and prose, so
 * a query "get user by id" meets the identifier `getUserById`, and `HTTP_SERVER_PORT` meets "http server port".
 *
 * - A word is a run of letters, marks, digits and `_` in any script; every other character separates words.
 * - A word splits into parts at `_`, at a lower-to-upper change (`getUser` → get|User), before the last capital of
 *   a capital run followed by a lower-case letter (`HTTPServer` → HTTP|Server: an acronym stays whole), and
 *   between letters and digits (`parseJSON2` → parse|JSON|2, `ext4` → ext|4, `0x1F` → 0|x|1|F). Letters without
 *   case (CJK, Arabic …) stay together as in a lower-case run. Parts are lower-cased.
 * - No whole-identifier token: on a kernel sample (Documentation/*.rst|txt + 5 000 .c files, 114 MB) it made the
 *   term dictionary 5.6× larger (102k → 570k terms) and the postings 62% more (2.45M → 4.0M) for no gain on
 *   prose queries; an exact identifier is what `q`'s `def` and whole-word text stages are for, and rank fusion
 *   puts their files first.
 * - Stop words are dropped where they stand alone as a word, in queries and documents alike; inside an
 *   identifier they are kept (`getUserById` → get user by id, but "user by id" → user id). Alone they carry
 *   nothing, and in code they are half the postings of a file (`if`, `for`, `do`).
 * - Parts longer than MAX_TERM_LENGTH (hashes, base64 blobs) are dropped: never a query term, all memory.
 */

/** English function words: what a prose query is padded with and a term's rank never depends on. */
export const STOP_WORDS: ReadonlySet<string> = new Set([
  'a', 'an', 'and', 'are', 'as', 'at', 'be', 'been', 'but', 'by', 'can', 'could', 'did', 'do', 'does', 'for',
  'from', 'had', 'has', 'have', 'how', 'i', 'if', 'in', 'into', 'is', 'it', 'its', 'me', 'my', 'of', 'on', 'or',
  'our', 'should', 'so', 'than', 'that', 'the', 'their', 'them', 'then', 'there', 'these', 'they', 'this',
  'those', 'to', 'was', 'we', 'were', 'what', 'when', 'where', 'which', 'who', 'why', 'will', 'with', 'would',
  'you', 'your',
]);

export const MAX_TERM_LENGTH = 40;

/**
 * Which tokenizer counted a document's terms: bump it whenever the terms of some text change (this file's rules,
 * STOP_WORDS, MAX_TERM_LENGTH), so terms kept between runs (core/search/file-facts-store.ts) are counted afresh.
 */
export const TERMS_FORMAT = 1;

const WORD = /[\p{L}\p{M}\p{N}_]+/gu;
/** A word already one lower-case ASCII part: most words of prose and much of code, split no further. */
const PLAIN = /^[a-z]+$/;
/**
 * The parts of a word, in order (`_` matches no alternative, so it separates): a capital run before
 * Capital+lower, a lower-case run with an optional leading capital, a capital run, a digit run. Marks stay
 * with the letter they follow.
 */
const PART =
  /(?:\p{Lu}\p{M}*)+(?=\p{Lu}\p{M}*[\p{Ll}\p{Lo}\p{Lm}])|(?:[\p{Lu}\p{Lt}]\p{M}*)?(?:[\p{Ll}\p{Lo}\p{Lm}]\p{M}*)+|(?:[\p{Lu}\p{Lt}]\p{M}*)+|(?:\p{N}\p{M}*)+/gu;

/** Calls `onTerm` with each term of `text`, in order, repeats included (a document's term frequencies). */
export function forEachTerm(text: string, onTerm: (term: string) => void): void {
  for (const [word] of text.matchAll(WORD)) {
    if (PLAIN.test(word)) {
      if (word.length <= MAX_TERM_LENGTH && !STOP_WORDS.has(word)) onTerm(word);
      continue;
    }
    const parts = word.match(PART);
    if (parts === null) continue;
    const alone = parts.length === 1;
    for (const part of parts) {
      if (part.length > MAX_TERM_LENGTH) continue;
      const term = part.toLowerCase();
      if (alone && STOP_WORDS.has(term)) continue;
      onTerm(term);
    }
  }
}

/** The terms of `text`, in order, repeats included. */
export function tokenize(text: string): string[] {
  const terms: string[] = [];
  forEachTerm(text, (term) => terms.push(term));
  return terms;
}

/** A query's distinct terms, in first-seen order: a term asked twice weighs as much as asked once. */
export function queryTerms(query: string): string[] {
  return [...new Set(tokenize(query))];
}

/**
 * The words of a path for rank fusion's path boost (docs/intentic-search.md `q`: "a path word starts with a query word"):
 * the path split on `/ . _ -` and at case changes, as the tokenizer splits an identifier (letters and digits
 * apart too), lower-cased, stop words kept (`to/` is a folder name, not padding).
 */
export function pathWords(path: string): string[] {
  const words: string[] = [];
  for (const [word] of path.matchAll(WORD)) {
    for (const part of word.match(PART) ?? []) words.push(part.toLowerCase());
  }
  return words;
}
