/**
 * One query's whole ranked set, by mode (docs/intentic-search.md "Modes"). Each mode is its own module under ../modes;
 * this file hands them the engine's parts.
 */
import type { ListedFile } from '../file-list/listed-file.ts';
import { astMode, type AstStage } from '../modes/ast-mode.ts';
import { filesMode } from '../modes/files-mode.ts';
import { findMode, textGroups, type FindStage } from '../modes/find-mode.ts';
import { globMode } from '../modes/glob-mode.ts';
import { proseMode, type ProseStage } from '../modes/prose-mode.ts';
import { qMode, type QStage } from '../modes/q-mode.ts';
import { defMode, refsMode, symMode, type SymbolStage } from '../modes/symbol-modes.ts';
import { classifyQuery, isPhrase } from '../prose/classify-query.ts';
import type { EmbeddingsStage } from '../prose/embeddings.ts';
import { countHits, wholeSet, type RankedGroups, type ResultSet } from '../query/result-set.ts';
import type { SearchRequest } from '../query/search-request.ts';
import type { AstMatcher } from '../symbols/ast-matcher.ts';
import { sourceFilesOf } from '../symbols/source-language.ts';
import { compileFind, rewriteGrepEscapes, type CompiledFind, type FindQuery } from '../text/find-query.ts';
import type { TextScanner } from '../text/scanner.ts';
import type { EngineParts } from './engine-parts.ts';
import { fixedScope, type QueryScope } from './query-scope.ts';
import { searchText, textTargets } from './text-search.ts';

export interface ModeContext {
  engine: EngineParts;
  scanner: TextScanner;
  /** The query's files (./query-scope.ts): the live list's, or a direct walk's while the list is building. */
  scope: QueryScope;
  filter: ((path: string) => boolean) | undefined;
  deadlineMs: number;
  embeddings: EmbeddingsStage | undefined;
  astMatcher: AstMatcher | undefined;
}

export async function runMode(request: SearchRequest, context: ModeContext): Promise<ResultSet<RankedGroups>> {
  // `find` reads its scope as the scanner takes it (a walk still running streams); the other modes take it whole.
  if (request.mode === 'find') return findMode(request.query, request, findStage(context.scope, context));
  const scope = await context.scope.files();
  switch (request.mode) {
    case 'files':
      return filesMode(request.query, scope);
    case 'q':
      return qMode(request.query, qStage(scope, context));
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

/** The text matches of `query` over `scope` (the index's candidates when it is ready, else a scan). */
function textIn(scope: QueryScope | readonly ListedFile[], context: ModeContext, query: FindQuery, compiled: CompiledFind = compileFind(query)) {
  const files = 'files' in scope ? scope : fixedScope(scope);
  return searchText(files, query, compiled, { scanner: context.scanner, index: context.engine.index, deadlineMs: context.deadlineMs });
}

function findStage(scope: QueryScope, context: ModeContext): FindStage {
  return {
    compile: compileFind,
    rewriteEscapes: rewriteGrepEscapes,
    search: (query, compiled) => textIn(scope, context, query, compiled),
    isPhrase,
    prose: (query) => proseMode(query, proseStage(context)),
  };
}

function proseStage(context: ModeContext): ProseStage {
  const { engine, filter } = context;
  return {
    index: engine.prose,
    embeddings: context.embeddings,
    inScope: filter ?? (() => true),
    async readText(path) {
      const file = engine.fileList.get(path);
      return file === undefined ? undefined : engine.readText(file);
    },
  };
}

function qStage(scope: readonly ListedFile[], context: ModeContext): QStage {
  const find = findStage(fixedScope(scope), context);
  return {
    classify: classifyQuery,
    files: (query) => wholeSet(filesMode(query, scope)),
    glob: (query) => globMode(query, scope),
    async text(query, options) {
      const groups = textGroups(await textIn(scope, context, { pattern: query, literal: options.literal, word: options.word, caseSensitive: false }));
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
    wordMatches: (name, caseSensitive) => textIn(scope, context, { pattern: name, literal: true, word: true, caseSensitive }),
    async sourcesHolding(name) {
      const sources = sourceFilesOf(scope);
      const matches = await textIn(sources, context, { pattern: name, literal: true, word: true, caseSensitive: true, binary: true });
      return sources.filter((file) => matches.has(file.path));
    },
  };
}

function astStage(scope: readonly ListedFile[], context: ModeContext): AstStage {
  return {
    match: context.astMatcher,
    async candidates(words) {
      const targets = await textTargets(scope, { required: words.map((word) => [word]), caseSensitive: true }, context.engine.index);
      const wanted = new Set(targets.map((target) => target.path));
      return scope.filter((file) => wanted.has(file.path));
    },
    readText: (file) => context.engine.readText(file),
  };
}
