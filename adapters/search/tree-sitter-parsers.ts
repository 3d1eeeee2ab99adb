/**
 * The tree-sitter ParserAdapter for Node: web-tree-sitter's runtime and the grammar WASM files that
 * `@vscode/tree-sitter-wasm` ships (the builds VS Code uses; no native code). The runtime is initialised once
 * and each grammar loaded the first time a file of its language is parsed, so a daemon that never sees Rust
 * never pays for the Rust grammar.
 *
 * Parsing is synchronous WASM work on the calling thread; `maxParseMs` bounds one parse (tree-sitter polls a
 * progress callback and gives up when it answers true), so a pathological file cannot hold the thread.
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { LanguageId, ParserAdapter, SyntaxTree } from '../../core/search/symbols/syntax-tree.ts';

const require = createRequire(import.meta.url);

// The package is UMD (CommonJS under Node); only the members used here are typed.
interface WasmParser {
  setLanguage(language: unknown): WasmParser;
  parse(text: string, oldTree?: null, options?: { progressCallback?: () => boolean }): SyntaxTree | null;
  reset(): void;
}
interface TreeSitterModule {
  Parser: { init(options: { locateFile: (file: string) => string }): Promise<void>; new (): WasmParser };
  Language: { load(path: string): Promise<unknown> };
}

const GRAMMAR_FILES: Record<LanguageId, string> = {
  typescript: 'tree-sitter-typescript.wasm',
  tsx: 'tree-sitter-tsx.wasm',
  javascript: 'tree-sitter-javascript.wasm',
  python: 'tree-sitter-python.wasm',
  go: 'tree-sitter-go.wasm',
  rust: 'tree-sitter-rust.wasm',
  cpp: 'tree-sitter-cpp.wasm',
  java: 'tree-sitter-java.wasm',
};

export interface TreeSitterParsersOptions {
  /** The folder holding tree-sitter.js and the grammar .wasm files (default: the installed package's). */
  wasmDir?: string;
  /** A parse taking longer than this is abandoned and answers undefined (default 2000 ms). */
  maxParseMs?: number;
}

export class TreeSitterParsers implements ParserAdapter {
  readonly #wasmDir: string;
  readonly #maxParseMs: number;
  #runtime: Promise<TreeSitterModule> | undefined;
  readonly #parsers = new Map<LanguageId, Promise<WasmParser | undefined>>();

  constructor(options: TreeSitterParsersOptions = {}) {
    this.#wasmDir = options.wasmDir ?? dirname(require.resolve('@vscode/tree-sitter-wasm'));
    this.#maxParseMs = options.maxParseMs ?? 2000;
  }

  async parse(language: LanguageId, text: string): Promise<SyntaxTree | undefined> {
    const parser = await this.#parser(language);
    if (parser === undefined) return undefined;
    const deadline = performance.now() + this.#maxParseMs;
    try {
      const tree = parser.parse(text, null, { progressCallback: () => performance.now() > deadline });
      return tree ?? undefined;
    } catch {
      return undefined;
    } finally {
      // A cancelled parse would otherwise resume where it stopped on the next call, with the next file's text.
      parser.reset();
    }
  }

  #parser(language: LanguageId): Promise<WasmParser | undefined> {
    let parser = this.#parsers.get(language);
    if (parser === undefined) {
      parser = this.#load(language);
      this.#parsers.set(language, parser);
    }
    return parser;
  }

  async #load(language: LanguageId): Promise<WasmParser | undefined> {
    const file = GRAMMAR_FILES[language];
    if (file === undefined) return undefined;
    const runtime = await this.#loadRuntime();
    const grammar = await runtime.Language.load(join(this.#wasmDir, file));
    return new runtime.Parser().setLanguage(grammar);
  }

  #loadRuntime(): Promise<TreeSitterModule> {
    this.#runtime ??= (async () => {
      const runtime = require(join(this.#wasmDir, 'tree-sitter.js')) as TreeSitterModule;
      await runtime.Parser.init({ locateFile: (file) => join(this.#wasmDir, file) });
      return runtime;
    })();
    return this.#runtime;
  }
}
