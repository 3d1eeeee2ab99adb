/**
 * The parse pool's worker (./parse-pool.ts): owns the tree-sitter runtime and grammars, so the WASM memory that
 * parsing big files grows (and WASM memory never shrinks) lives in this thread's isolate and goes back to the OS
 * when the pool terminates the idle worker. It runs the same `fileSymbols` as an in-process SymbolIndex, so the
 * definitions are exactly the in-process ones. One request at a time: the pool sends the next after the reply.
 */
import { parentPort } from 'node:worker_threads';
import { fileSymbols } from '../../core/search/symbols/file-symbols.ts';
import type { SymbolDef } from '../../core/search/symbols/symbol-def.ts';
import { TreeSitterParsers } from './tree-sitter-parsers.ts';

export interface ParseRequestMessage {
  id: number;
  path: string;
  text: string;
}

export type ParseReplyMessage = { id: number; ok: true; defs: SymbolDef[] } | { id: number; ok: false; message: string };

const symbolsOf = fileSymbols(new TreeSitterParsers());

parentPort!.on('message', async ({ id, path, text }: ParseRequestMessage) => {
  let reply: ParseReplyMessage;
  try {
    reply = { id, ok: true, defs: await symbolsOf(path, text) };
  } catch (error) {
    reply = { id, ok: false, message: error instanceof Error ? error.message : String(error) };
  }
  parentPort!.postMessage(reply);
});
