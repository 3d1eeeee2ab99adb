/**
 * `search_in_files` (docs/noide-protocol.md#search_in_files): the lines under a folder that match a query. Kept behind this one
 * call so the search engine can take its place; edge-clean (FileSystem and Web APIs only).
 *
 * - Walks as the protocol's listings do (core/listing: the §002 skip list, the excluded folder, links never
 *   followed into folders, a link to a file inside the workspace searched at its own path; links out of the
 *   workspace never read), but with neither the listings' depth nor their entry cap: a search that stopped
 *   at 20 000 entries would quietly miss files. What bounds it instead is the time budget and the match cap.
 * - Skips files over `maxFileBytes` (1 000 000) and files holding a NUL byte (binary). Other bytes are decoded
 *   leniently (a Latin-1 file is still searched; reading is harmless, unlike an editor saving mojibake back).
 *   A byte order mark stays in line 1, as `read_file` keeps it, so offsets agree with the editor's text.
 * - Lines split at `\n`, a trailing `\r` dropped; every match is one result (several per line possible),
 *   zero-length matches (`^`, `a*` on "b") are not results. 1-based `lineNumber`; `matchStart`/`matchEnd` are
 *   UTF-16 code units within `lineText`. A line longer than MAX_LINE_TEXT comes back as a window of it that
 *   holds the match (offsets within that window): 500 matches in a minified bundle must not be 500 copies
 *   of a megabyte line.
 * - At most `maxMatches` (500) results, in walk order: breadth-first, each folder's files in listing order,
 *   each file's matches in order. The walk stops at the cap.
 * - Cost: a per-query time budget (`timeBudgetMs`), checked before every line and every file; past it the
 *   search fails (`Search timed out after N s …`) rather than answer a partial list that looks complete. One
 *   line's match cannot be interrupted, which is why regex queries run on RE2 (./search-pattern.ts): its cost
 *   is linear in the line (times the pattern's size), and lines are bounded by the file cap, so no pattern
 *   can hold the event loop for long — a backtracking engine can for hours.
 */
import type { FileSystem } from '../../adapters/fs/file-system.ts';
import { isFsError } from '../../adapters/fs/fs-error.ts';
import { WorkspaceError } from '../errors/workspace-error.ts';
import { isReadableFile, walkListing } from '../listing/walk-listing.ts';
import { compileSearchPattern, type LinePattern, type PatternOptions } from './search-pattern.ts';

export const DEFAULT_MAX_MATCHES = 500;
export const DEFAULT_MAX_FILE_BYTES = 1_000_000;
export const DEFAULT_TIME_BUDGET_MS = 10_000;
/** Longest `lineText` returned whole; longer lines are cut to a window of this many code units. */
export const MAX_LINE_TEXT = 4000;
/** How much of the line before the match such a window keeps. */
const WINDOW_LEAD = 200;
/** Files read ahead of the scan. */
const READ_AHEAD = 4;

export interface SearchMatch {
  /** Absolute path of the file (a link's own location). */
  file: string;
  lineNumber: number;
  lineText: string;
  matchStart: number;
  matchEnd: number;
}

export interface SearchInFilesOptions extends PatternOptions {
  /** Links whose real target leaves this folder are not read (default: the searched folder itself). */
  workspaceRoot?: string;
  /** A folder (absolute real path) never searched: the agents' copies. */
  excluded?: string;
  /** Names never searched (default: the §002 list). */
  skip?: ReadonlySet<string>;
  maxMatches?: number;
  maxFileBytes?: number;
  timeBudgetMs?: number;
  /** When the search began (`Date.now()`; default: now): the budget counts from it, work done first included. */
  startedAt?: number;
  /**
   * Whether a file (absolute path) may hold a match: false skips reading it. The search engine answers this
   * (core/search: `mayHoldMatch`, from its content index or a prefilter on worker threads); the walk, its order
   * and the caps stay this module's.
   */
  mayHoldMatch?: (absolutePath: string) => boolean;
}

/**
 * Searches `root` (an absolute real path: a folder, or a single file) and returns the matches. A blank query
 * is `[]`. Throws `Invalid search: …` for a pattern that does not compile, the FsError of `root` itself
 * (`not-found`, …), and the time-budget failure.
 */
export async function searchInFiles(fs: FileSystem, root: string, options: SearchInFilesOptions): Promise<SearchMatch[]> {
  if (options.query.trim() === '') return [];
  const scan = new Scan(fs, options);
  const top = await fs.stat(root);
  if (top.type !== 'dir') {
    await scan.file(root);
    return scan.matches;
  }
  const place = { fs, root: options.workspaceRoot ?? root, excluded: options.excluded };
  const walk = walkListing(place, root, { maxDepth: Infinity, maxEntries: Infinity, skip: options.skip });
  for await (const folder of walk) {
    scan.checkDeadline();
    const paths = folder.entries.filter(isReadableFile).map((entry) => entry.path);
    await scan.files(options.mayHoldMatch === undefined ? paths : paths.filter(options.mayHoldMatch));
    if (scan.full) break; // ends the walk: nothing more is read
  }
  return scan.matches;
}

class Scan {
  readonly matches: SearchMatch[] = [];
  private readonly pattern: LinePattern;
  private readonly maxMatches: number;
  private readonly maxFileBytes: number;
  private readonly deadline: number;
  private readonly budgetMs: number;
  private readonly decoder = new TextDecoder('utf-8', { ignoreBOM: true });

  constructor(
    private readonly fs: FileSystem,
    options: SearchInFilesOptions,
  ) {
    this.pattern = compileSearchPattern(options);
    this.maxMatches = options.maxMatches ?? DEFAULT_MAX_MATCHES;
    this.maxFileBytes = options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES;
    this.budgetMs = options.timeBudgetMs ?? DEFAULT_TIME_BUDGET_MS;
    this.deadline = (options.startedAt ?? Date.now()) + this.budgetMs;
  }

  get full(): boolean {
    return this.matches.length >= this.maxMatches;
  }

  checkDeadline(): void {
    if (Date.now() <= this.deadline) return;
    const seconds = Math.round(this.budgetMs / 100) / 10;
    throw new WorkspaceError(
      'too-large',
      `Search timed out after ${seconds} s (${this.matches.length} matches so far): search a smaller folder or a simpler pattern`,
      { timeBudgetMs: this.budgetMs },
    );
  }

  /** Scans `paths` in order, reading a few ahead. */
  async files(paths: string[]): Promise<void> {
    const reads: Promise<Uint8Array | undefined>[] = [];
    const start = (at: number) => {
      if (at < paths.length && reads[at] === undefined) reads[at] = this.readSearchable(paths[at]!);
    };
    try {
      for (let at = 0; at < paths.length && !this.full; at++) {
        for (let ahead = at; ahead < at + READ_AHEAD; ahead++) start(ahead);
        this.checkDeadline();
        const bytes = await reads[at]!;
        if (bytes) this.text(paths[at]!, bytes);
      }
    } finally {
      for (const read of reads) read?.catch(() => {}); // reads ahead of an early stop finish unobserved
    }
  }

  async file(path: string): Promise<void> {
    const bytes = await this.readSearchable(path);
    if (bytes) this.text(path, bytes);
  }

  /**
   * The file's bytes, or undefined when it is skipped: too big, not a regular file (the backends' `read`
   * refuses those), or gone. No stat first: `read` checks the file itself, and reading one byte past the cap
   * tells a file over it apart — a stat per file costs more over a source tree than the rare big file's
   * wasted read.
   */
  private async readSearchable(path: string): Promise<Uint8Array | undefined> {
    try {
      const bytes = await this.fs.read(path, { offset: 0, length: this.maxFileBytes + 1 });
      return bytes.byteLength > this.maxFileBytes ? undefined : bytes;
    } catch (error) {
      if (isFsError(error)) return undefined;
      throw error;
    }
  }

  private text(file: string, bytes: Uint8Array): void {
    const text = this.decoder.decode(bytes);
    // A NUL byte decodes to U+0000 and nothing else does; V8 scans a string for it ~10x faster than
    // Uint8Array#includes scans the bytes, so binary files are found after decoding.
    if (text.includes('\0')) return;
    if (this.pattern.mayMatch && !this.pattern.mayMatch(text)) return;
    let lineNumber = 0;
    for (let lineStart = 0; lineStart < text.length || lineNumber === 0; ) {
      this.checkDeadline();
      const newline = text.indexOf('\n', lineStart);
      const lineEnd = newline < 0 ? text.length : newline;
      lineNumber++;
      const line = text.charCodeAt(lineEnd - 1) === 0x0d && lineEnd > lineStart ? text.slice(lineStart, lineEnd - 1) : text.slice(lineStart, lineEnd);
      this.line(file, lineNumber, line);
      if (this.full || newline < 0) return;
      lineStart = newline + 1;
    }
  }

  private line(file: string, lineNumber: number, line: string): void {
    for (let from = 0, match = this.pattern.next(line, 0); match !== null; match = this.pattern.next(line, from)) {
      const { start, end } = match;
      if (end === start) {
        // Step past an empty match by a whole code point.
        from = start + (isHighSurrogate(line.charCodeAt(start)) && isLowSurrogate(line.charCodeAt(start + 1)) ? 2 : 1);
        if (from > line.length) return;
        continue;
      }
      this.matches.push({ file, lineNumber, ...lineWindow(line, start, end) });
      if (this.full) return;
      from = end;
    }
  }
}

/** The line, or for a long one a window of MAX_LINE_TEXT code units holding the match's start. */
function lineWindow(line: string, start: number, end: number): { lineText: string; matchStart: number; matchEnd: number } {
  if (line.length <= MAX_LINE_TEXT) return { lineText: line, matchStart: start, matchEnd: end };
  let from = Math.max(0, start - WINDOW_LEAD);
  if (from > 0 && isLowSurrogate(line.charCodeAt(from)) && isHighSurrogate(line.charCodeAt(from - 1))) from--;
  let to = Math.min(line.length, from + MAX_LINE_TEXT);
  if (to < line.length && isLowSurrogate(line.charCodeAt(to)) && isHighSurrogate(line.charCodeAt(to - 1))) to--;
  return { lineText: line.slice(from, to), matchStart: start - from, matchEnd: Math.min(end, to) - from };
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}
