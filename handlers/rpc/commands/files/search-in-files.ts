import { z } from 'zod';
import { isFsError } from '../../../../adapters/fs/fs-error.ts';
import { DEFAULT_TIME_BUDGET_MS, searchInFiles as searchEngine } from '../../../../core/content-search/search-in-files.ts';
import { defineCommand } from '../../command.ts';
import { listingScope, topFolderError } from './listing-scope.ts';

/**
 * `search_in_files {path, query, caseSensitive?, wholeWord?, regex?}` → SearchMatch[] (`file` absolute,
 * 1-based `lineNumber`, `matchStart`/`matchEnd` in UTF-16 code units within `lineText`). The engine is
 * core/content-search (its rules: skip list, walk order, 1 000 000-byte and NUL skips, 500 matches, time budget),
 * with the search engine ruling files out (its content index once ready, a prefilter on worker threads before):
 * those are not read. A blank query is `[]`; a pattern that does not compile is
 * `Invalid search: …`. `path` may name a single file.
 */
export const searchInFiles = defineCommand({
  args: {
    path: z.string(),
    query: z.string(),
    caseSensitive: z.boolean().optional(),
    wholeWord: z.boolean().optional(),
    regex: z.boolean().optional(),
  },
  async run({ path, query, caseSensitive = false, wholeWord = false, regex = false }, { ctx }) {
    const { place, top } = await listingScope(ctx, path);
    // The engine's answer (its index, or a prefilter while that builds) is part of the search: it spends the budget.
    const startedAt = Date.now();
    // Settled when this search ends: a prefilter that walked the disk keeps the list's first walk waiting until then.
    let searchEnded!: () => void;
    const searched = new Promise<void>((done) => (searchEnded = done));
    try {
      const mayHoldMatch =
        query.trim() !== ''
          ? await ctx.search?.mayHoldMatch(
              { pattern: query, literal: !regex, caseSensitive, word: wholeWord },
              { under: top, deadlineMs: startedAt + DEFAULT_TIME_BUDGET_MS, searched },
            )
          : undefined;
      return await searchEngine(place.fs, top, {
        ...(mayHoldMatch === undefined ? {} : { mayHoldMatch }),
        startedAt,
        query,
        caseSensitive,
        wholeWord,
        regex,
        workspaceRoot: place.root,
        excluded: place.excluded,
      });
    } catch (error) {
      throw isFsError(error) ? topFolderError(error, path) : error;
    } finally {
      searchEnded();
    }
  },
});
