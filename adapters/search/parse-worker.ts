/**
 * The parse pool's worker (./parse-pool.ts): owns the tree-sitter runtime and grammars, so the WASM memory that
 * parsing big files grows (and WASM memory never shrinks) lives in this thread's isolate and goes back to the OS
 * when the pool terminates the idle worker. It runs the same `fileSymbols`, `ast` matcher and health figures as
 * the in-process code, so its answers are exactly the in-process ones. One request at a time: the pool sends the
 * next after the reply.
 */
import { setPriority } from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import { fileFigures, type FileFigures } from '../../core/health/file-figures.ts';
import { inProcessAstMatcher } from '../../core/search/symbols/ast-matcher.ts';
import type { AstLineMatch } from '../../core/search/symbols/ast-pattern.ts';
import { fileSymbols } from '../../core/search/symbols/file-symbols.ts';
import type { SymbolDef } from '../../core/search/symbols/symbol-def.ts';
import { TreeSitterParsers } from './tree-sitter-parsers.ts';

export interface ParseWorkerData {
  /** This thread's nice value (Linux keeps one per thread: the daemon's main thread is left as it is). */
  nice: number;
  /** One parse's bound (TreeSitterParsers' `maxParseMs`; default its own). */
  maxParseMs?: number;
}

/** A file's definitions, an `ast` pattern's matches in it, or its health figures (`bytes` undefined: too big). */
export type ParseRequestMessage =
  | { id: number; kind: 'symbols'; path: string; text: string }
  | { id: number; kind: 'ast'; pattern: string; path: string; text: string }
  | { id: number; kind: 'figures'; path: string; bytes: Uint8Array | undefined };

export type ParseReplyMessage =
  | { id: number; ok: true; result: SymbolDef[] | AstLineMatch[] | FileFigures }
  | { id: number; ok: false; message: string };

const { nice, maxParseMs } = (workerData ?? { nice: 0 }) as ParseWorkerData;
if (nice > 0) {
  try {
    setPriority(nice); // pid 0: on Linux this thread only
  } catch {
    // not permitted, or no such notion here: run at the daemon's priority
  }
}

const parsers = new TreeSitterParsers(maxParseMs === undefined ? {} : { maxParseMs });
const symbolsOf = fileSymbols(parsers);
const astMatches = inProcessAstMatcher(parsers);

async function answer(request: ParseRequestMessage): Promise<SymbolDef[] | AstLineMatch[] | FileFigures> {
  switch (request.kind) {
    case 'symbols':
      return symbolsOf(request.path, request.text);
    case 'ast':
      return astMatches(request.pattern, request.path, request.text);
    case 'figures':
      return fileFigures(request.path, request.bytes, parsers);
  }
}

parentPort!.on('message', async (request: ParseRequestMessage) => {
  let reply: ParseReplyMessage;
  try {
    reply = { id: request.id, ok: true, result: await answer(request) };
  } catch (error) {
    reply = { id: request.id, ok: false, message: error instanceof Error ? error.message : String(error) };
  }
  parentPort!.postMessage(reply);
});
