/**
 * The parse pool's worker (./parse-pool.ts): owns the tree-sitter runtime and grammars, so the WASM memory that
 * parsing big files grows (and WASM memory never shrinks) lives in this thread's isolate and goes back to the OS
 * when the pool terminates the idle worker. It runs the same `fileSymbols` and `ast` matcher as the in-process
 * engine, so its answers are exactly the in-process ones. One request at a time: the pool sends the next after
 * the reply.
 */
import { parentPort } from 'node:worker_threads';
import { inProcessAstMatcher } from '../../core/search/symbols/ast-matcher.ts';
import type { AstLineMatch } from '../../core/search/symbols/ast-pattern.ts';
import { fileSymbols } from '../../core/search/symbols/file-symbols.ts';
import type { SymbolDef } from '../../core/search/symbols/symbol-def.ts';
import { TreeSitterParsers } from './tree-sitter-parsers.ts';

/** A file's definitions, or an `ast` pattern's matches in it. */
export type ParseRequestMessage =
  | { id: number; kind: 'symbols'; path: string; text: string }
  | { id: number; kind: 'ast'; pattern: string; path: string; text: string };

export type ParseReplyMessage =
  | { id: number; ok: true; result: SymbolDef[] | AstLineMatch[] }
  | { id: number; ok: false; message: string };

const parsers = new TreeSitterParsers();
const symbolsOf = fileSymbols(parsers);
const astMatches = inProcessAstMatcher(parsers);

parentPort!.on('message', async (request: ParseRequestMessage) => {
  const { id, path, text } = request;
  let reply: ParseReplyMessage;
  try {
    const result = request.kind === 'symbols' ? await symbolsOf(path, text) : await astMatches(request.pattern, path, text);
    reply = { id, ok: true, result };
  } catch (error) {
    reply = { id, ok: false, message: error instanceof Error ? error.message : String(error) };
  }
  parentPort!.postMessage(reply);
});
