/**
 * Per-file symbols, cached by (path, version) and filled in the background over the live file list's
 * non-ignored source files. Answers `def` (definitions), `sym` (symbols) and `context` (enclosing).
 *
 * Parsing is the slow part (a few MB/s of WASM work: minutes on a kernel-sized tree), so nothing waits for the
 * background pass: `definitions` and `symbols` take the candidate files a caller already knows (e.g. those whose
 * text holds the name) and parse whichever of them is not cached yet; without candidates they answer from the
 * cache, and once the pass is over they parse what changed since. The pass runs in slices of a few
 * milliseconds between which the event loop runs, so queries and sockets are served meanwhile.
 *
 * Memory is bounded by a cap on files and on symbols kept: once the pass reaches it, it stops (`status` says
 * `capped`), and later on-demand parses evict the oldest entries.
 */
import { MAX_SEARCHED_FILE_BYTES } from '../answer.ts';
import type { ListedFile } from '../file-list/listed-file.ts';
import type { FileFactsStore } from '../file-facts-store.ts';
import { fileSymbols, type SymbolsOf } from './file-symbols.ts';
import { isSourcePath } from './source-language.ts';
import type { SymbolDef } from './symbol-def.ts';
import type { ParserAdapter } from './syntax-tree.ts';
import { compareCodeUnits } from '../../text/code-units.ts';

export interface SymbolIndexOptions {
  /** The live file list (every call returns the current one). */
  files(): readonly ListedFile[] | Promise<readonly ListedFile[]>;
  /** A file's bytes, by root-relative path. */
  read(path: string): Promise<Uint8Array | string>;
  /** The parsers (./syntax-tree.ts); or give `symbolsOf` directly (e.g. one that parses in worker threads). */
  parsers?: ParserAdapter;
  symbolsOf?: SymbolsOf;
  /** Most files whose symbols are kept (default 200 000). */
  maxFiles?: number;
  /**
   * Most symbols kept, over all files (default 250 000: measured at ~430 B each for C, ~950 B for JavaScript
   * with its longer signatures, so ~100–230 MiB of heap at the cap).
   */
  maxSymbols?: number;
  /** Files larger than this are not parsed (default 1 MiB, as text search). */
  maxFileBytes?: number;
  /** How long one background slice may run before yielding to the event loop (default 8 ms). */
  sliceMs?: number;
  /**
   * Each file's definitions between runs: a file found there at its version is neither read nor parsed again
   * (../file-facts-store.ts). What it holds is not bounded by `maxSymbols`: the cache in memory is.
   */
  store?: FileFactsStore<readonly SymbolDef[]>;
}

export interface FileSymbols {
  path: string;
  defs: readonly SymbolDef[];
}

export interface SymbolIndexStatus {
  state: 'building' | 'ready';
  /** Files done over files to do, 0..1. */
  progress: number;
  files: number;
  symbols: number;
  /** The pass stopped at the memory cap: the rest is parsed on demand. */
  capped?: true;
}

interface Entry {
  version: string;
  defs: readonly SymbolDef[];
}

const DEFAULT_MAX_FILES = 200_000;
const DEFAULT_MAX_SYMBOLS = 250_000;

export class SymbolIndex {
  readonly #options: SymbolIndexOptions;
  readonly #symbolsOf: SymbolsOf;
  readonly #maxFiles: number;
  readonly #maxSymbols: number;
  readonly #maxFileBytes: number;
  readonly #cache = new Map<string, Entry>();
  readonly #inFlight = new Map<string, Promise<readonly SymbolDef[]>>();
  readonly #byPath = new WeakMap<readonly ListedFile[], Map<string, ListedFile>>();
  readonly #decoder = new TextDecoder();
  #symbolCount = 0;
  #state: 'idle' | 'building' | 'ready' = 'idle';
  #done = 0;
  #total = 0;
  #capped = false;
  #stopped = false;
  #pass: Promise<void> | undefined;

  constructor(options: SymbolIndexOptions) {
    const symbolsOf = options.symbolsOf ?? (options.parsers && fileSymbols(options.parsers));
    if (!symbolsOf) throw new TypeError('SymbolIndex needs `parsers` or `symbolsOf`');
    this.#options = options;
    this.#symbolsOf = symbolsOf;
    this.#maxFiles = options.maxFiles ?? DEFAULT_MAX_FILES;
    this.#maxSymbols = options.maxSymbols ?? DEFAULT_MAX_SYMBOLS;
    this.#maxFileBytes = options.maxFileBytes ?? MAX_SEARCHED_FILE_BYTES;
  }

  /** Starts the background pass (once); the promise settles when it ends. */
  start(): Promise<void> {
    this.#pass ??= this.#build();
    return this.#pass;
  }

  /** Stops the background pass after the file it is on. */
  stop(): void {
    this.#stopped = true;
  }

  status(): SymbolIndexStatus {
    const progress = this.#state === 'ready' ? 1 : this.#total === 0 ? 0 : Math.min(1, this.#done / this.#total);
    const status: SymbolIndexStatus = {
      state: this.#state === 'ready' ? 'ready' : 'building',
      progress,
      files: this.#cache.size,
      symbols: this.#symbolCount,
    };
    if (this.#capped) status.capped = true;
    return status;
  }

  /**
   * Definitions named exactly `name` (case-sensitive): exported first, then by path (code-unit order), then line.
   * Over `candidates` when given (each parsed now if not cached), else over the whole current file list.
   */
  async definitions(name: string, candidates?: readonly ListedFile[]): Promise<{ path: string; def: SymbolDef }[]> {
    const found: { path: string; def: SymbolDef }[] = [];
    for await (const { path, defs } of this.symbols(candidates)) {
      for (const def of defs) if (def.name === name) found.push({ path, def });
    }
    return found.sort((a, b) =>
      Number(b.def.exported) - Number(a.def.exported) || compareCodeUnits(a.path, b.path) || a.def.line - b.def.line,
    );
  }

  /**
   * Every file's symbols (files without any are skipped), for `sym`'s fuzzy and glob matching. Over
   * `candidates` when given, else over the current file list: while the pass is building, files it has not
   * reached are left out.
   */
  async *symbols(candidates?: readonly ListedFile[]): AsyncIterable<FileSymbols> {
    const files = candidates ?? (await this.#options.files()).filter((file) => !file.ignored);
    // Past the cap, parsing every uncached file on each query would thrash the cache: only candidates are.
    const complete = candidates !== undefined || (this.#state === 'ready' && !this.#capped);
    for (const file of files) {
      if (!this.#indexable(file)) continue;
      const cached = this.#cache.get(file.path);
      let defs: readonly SymbolDef[] | undefined;
      if (cached?.version === file.version) defs = cached.defs;
      else if (complete || cached !== undefined) defs = await this.#symbolsOfFile(file);
      if (defs !== undefined && defs.length > 0) yield { path: file.path, defs };
    }
  }

  /** The innermost symbol whose lines hold `line` (1-based), for a hit's `context`; undefined outside any. */
  async enclosing(file: ListedFile | string, line: number, options: { notDefinedAt?: boolean } = {}): Promise<SymbolDef | undefined> {
    const listed = typeof file === 'string' ? await this.#listed(file) : file;
    if (listed === undefined || !this.#indexable(listed)) return undefined;
    const cached = this.#cache.get(listed.path);
    const defs = cached?.version === listed.version ? cached.defs : await this.#symbolsOfFile(listed);
    let innermost: SymbolDef | undefined;
    for (const def of defs) {
      if (def.line > line || def.endLine < line) continue;
      // A symbol defined on the line itself is what the line is, not what it sits in.
      if (options.notDefinedAt && def.line === line) continue;
      if (!innermost || def.endLine - def.line <= innermost.endLine - innermost.line) innermost = def;
    }
    return innermost;
  }

  #indexable(file: ListedFile): boolean {
    return file.size <= this.#maxFileBytes && isSourcePath(file.path);
  }

  async #listed(path: string): Promise<ListedFile | undefined> {
    const files = await this.#options.files();
    let byPath = this.#byPath.get(files);
    if (!byPath) {
      byPath = new Map(files.map((file) => [file.path, file]));
      this.#byPath.set(files, byPath);
    }
    return byPath.get(path);
  }

  /** Parses `file` now (one parse per file at a time) and caches the result. */
  #symbolsOfFile(file: ListedFile, background = false): Promise<readonly SymbolDef[]> {
    const key = `${file.path}\0${file.version}`;
    let pending = this.#inFlight.get(key);
    if (!pending) {
      pending = this.#parse(file, background).finally(() => this.#inFlight.delete(key));
      this.#inFlight.set(key, pending);
    }
    return pending;
  }

  async #parse(file: ListedFile, background: boolean): Promise<readonly SymbolDef[]> {
    // A store that fails is one that holds nothing: the file is parsed, as without one.
    const stored = await this.#options.store?.get(file.path, file.version).catch(() => undefined);
    if (stored !== undefined) {
      this.#store(file, stored, background);
      return stored;
    }
    let bytes: Uint8Array | string;
    try {
      bytes = await this.#options.read(file.path);
    } catch {
      return []; // gone between listing and reading: the next file list will not have it
    }
    const text = typeof bytes === 'string' ? bytes : this.#decoder.decode(bytes);
    const defs = await this.#symbolsOf(file.path, text);
    this.#store(file, defs, background);
    await this.#options.store?.put(file.path, file.version, defs).catch(() => {});
    return defs;
  }

  #store(file: ListedFile, defs: readonly SymbolDef[], background: boolean): void {
    const previous = this.#cache.get(file.path);
    if (previous) {
      this.#symbolCount -= previous.defs.length;
      this.#cache.delete(file.path);
    }
    const full = () => this.#cache.size >= this.#maxFiles || this.#symbolCount + defs.length > this.#maxSymbols;
    if (full() && background) {
      this.#capped = true;
      return;
    }
    // On demand, the oldest entries make room (Map order is insertion order).
    for (const [path, entry] of this.#cache) {
      if (!full()) break;
      this.#cache.delete(path);
      this.#symbolCount -= entry.defs.length;
      this.#capped = true;
    }
    if (full()) return;
    this.#cache.set(file.path, { version: file.version, defs });
    this.#symbolCount += defs.length;
  }

  async #build(): Promise<void> {
    this.#state = 'building';
    const files = (await this.#options.files()).filter((file) => !file.ignored && this.#indexable(file));
    this.#total = files.length;
    const sliceMs = this.#options.sliceMs ?? 8;
    let sliceEnd = Date.now() + sliceMs;
    for (const file of files) {
      if (this.#stopped || this.#capped) break;
      if (this.#cache.get(file.path)?.version !== file.version) await this.#symbolsOfFile(file, true);
      this.#done++;
      if (Date.now() >= sliceEnd) {
        await new Promise((resolve) => setTimeout(resolve, 0));
        sliceEnd = Date.now() + sliceMs;
      }
    }
    if (!this.#stopped) this.#state = 'ready';
  }
}
