/**
 * One query's whole ranked set, by mode (001-search.md "Modes"). Each mode is its own module under ../modes;
 * this file hands them the engine's parts.
 */
import type { EmbeddingsStage } from '../prose/embeddings.ts';
import { proseMode, type ProseStage } from '../modes/prose-mode.ts';
import type { ParserAdapter } from '../symbols/syntax-tree.ts';
import { filesMode } from '../modes/files-mode.ts';
import { findMode, type FindStage } from '../modes/find-mode.ts';
import type { ResultSet } from '../query/result-set.ts';
import type { SearchRequest } from '../query/search-request.ts';
import { compileFind, rewriteGrepEscapes } from '../text/find-query.ts';
import type { TextScanner } from '../text/scanner.ts';
import { isPhrase } from '../prose/classify-query.ts';
import { scopeFiles, type EngineParts } from './engine-parts.ts';
import { searchText } from './text-search.ts';
import { classifyQuery } from '../prose/classify-query.ts';
import { qMode, type QStage } from '../modes/q-mode.ts';
import { textGroups } from '../modes/find-mode.ts';
import { globMode } from '../modes/glob-mode.ts';
import { countHits } from '../query/result-set.ts';
import type { ListedFile } from '../file-list/listed-file.ts';
import { defMode, refsMode, symMode, type SymbolStage } from '../modes/symbol-modes.ts';
import { astMode, type AstStage } from '../modes/ast-mode.ts';
import { textTargets } from './text-search.ts';

export interface ModeContext {
  engine: EngineParts;
  scanner: TextScanner;
  filter: ((path: string) => boolean) | undefined;
  deadlineMs: number;
  embeddings: EmbeddingsStage | undefined;
  parsers: ParserAdapter | undefined;
}

export async function runMode(request: SearchRequest, context: ModeContext): Promise<ResultSet> {
  const scope = await scopeFiles(context.engine.fileList, request.includeIgnored, context.filter);
  switch (request.mode) {
    case 'files':
      return filesMode(request.query, scope);
    case 'find':
      return findMode(request.query, request, findStage(scope, context));
    case 'q':
      return qMode(request.query, qStage(scope, request, context));
    case 'def':
      return defMode(request.query, symbolStage(scope, context));
    case 'sym':
      return symMode(request.query, symbolStage(scope, context));
    case 'refs':
      return refsMode(request.query, symbolStage(scope, context));
    case 'ast':
      return astMode(request.query, astStage(scope, context));
  }
}

function findStage(scope: Parameters<typeof searchText>[0], context: ModeContext): FindStage {
  return {
    compile: compileFind,
    rewriteEscapes: rewriteGrepEscapes,
    search: (query, compiled) =>
      searchText(scope, query, compiled, { scanner: context.scanner, index: context.engine.index, deadlineMs: context.deadlineMs }),
    isPhrase,
    prose: (query) => proseMode(query, proseStage(context)),
  };
}

function proseStage(context: ModeContext): ProseStage {
  const { engine, filter } = context;
  const decoder = new TextDecoder('utf-8', { ignoreBOM: true });
  return {
    index: engine.prose,
    embeddings: context.embeddings,
    inScope: filter ?? (() => true),
    async readText(path) {
      const file = engine.fileList.get(path);
      const bytes = file === undefined ? undefined : await engine.read(file);
      return bytes === undefined ? undefined : decoder.decode(bytes);
    },
  };
}

function qStage(scope: readonly ListedFile[], request: SearchRequest, context: ModeContext): QStage {
  const find = findStage(scope, context);
  return {
    classify: classifyQuery,
    files: (query) => filesMode(query, scope),
    glob: (query) => globMode(query, scope),
    async text(query, options) {
      const asked = { pattern: query, literal: options.literal, word: options.word, caseSensitive: false };
      const compiled = find.compile(asked);
      const groups = textGroups(await find.search(asked, compiled));
      const { total, partial } = countHits(groups);
      return { mode: 'q', groups, total, partial };
    },
    async definitions(name) {
      const set = await defMode(name, symbolStage(scope, context));
      // Only exact definitions count for q (def's own fallback to fuzzy symbols is not one).
      return set.note === undefined ? set : { mode: 'q', groups: [], total: 0, partial: false };
    },
    prose: find.prose,
  };
}

function symbolStage(scope: readonly ListedFile[], context: ModeContext): SymbolStage {
  return {
    symbols: context.engine.symbols,
    scope,
    wordMatches(name, caseSensitive) {
      const query = { pattern: name, literal: true, word: true, caseSensitive };
      return searchText(scope, query, compileFind(query), { scanner: context.scanner, index: context.engine.index, deadlineMs: context.deadlineMs });
    },
  };
}

function astStage(scope: readonly ListedFile[], context: ModeContext): AstStage {
  const decoder = new TextDecoder('utf-8', { ignoreBOM: true });
  return {
    parsers: context.parsers,
    async candidates(words) {
      const targets = await textTargets(scope, { required: words.map((word) => [word]), caseSensitive: true }, context.engine.index);
      const wanted = new Set(targets.map((target) => target.path));
      return scope.filter((file) => wanted.has(file.path));
    },
    async readText(file) {
      const bytes = await context.engine.read(file);
      return bytes === undefined ? undefined : decoder.decode(bytes);
    },
  };
}
