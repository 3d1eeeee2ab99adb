import { z } from 'zod';
import { isFsError } from '../../adapters/fs/fs-error.ts';
import { realContentPath } from '../../adapters/fs/real-paths.ts';
import type { WorkspaceContext } from '../../runtime/context.ts';
import { jsonResponse } from '../../runtime/errors/render.ts';
import { WorkspaceError } from '../../core/errors/workspace-error.ts';
import { parseQuery } from '../../runtime/validation.ts';
import { caughtUp } from '../../core/search/file-list/caught-up.ts';
import { findFiles } from '../../core/file-search/find-files.ts';

/** docs/ori.md#search: 50 hits unless asked; never more than 500 (a larger `limit` is clamped, not refused). */
export const DEFAULT_SEARCH_LIMIT = 50;
export const MAX_SEARCH_LIMIT = 500;

const LIMIT_MESSAGE = 'must be a whole number of at least 1';

export const searchFilesQuery = z.object({
  q: z.string().optional(),
  // Digits only: "1.5", "-1", "1e3", " 5" and "" are refused rather than guessed at.
  limit: z
    .string()
    .regex(/^[0-9]+$/, LIMIT_MESSAGE)
    .transform(Number)
    .refine((n) => n >= 1, LIMIT_MESSAGE)
    .transform((n) => Math.min(n, MAX_SEARCH_LIMIT))
    .optional(),
});

/**
 * `GET /api/files/search?q=&limit=` — files under the workspace root whose root-relative path contains `q`
 * (case-insensitive), ranked as ori says. The walk and the ranking live in ./file-search.ts; the walk is over
 * the search engine's live file list once it is ready (the Node daemon starts it at start-up), else the disk.
 */
export async function searchFiles(request: Request, ctx: WorkspaceContext): Promise<Response> {
  const query = parseQuery(request, searchFilesQuery);
  const list = ctx.search?.readyFileList();
  if (list !== undefined) await caughtUp(list);
  let hits;
  try {
    hits = await findFiles(ctx.fs, ctx.root, {
      query: query.q ?? '',
      limit: query.limit ?? DEFAULT_SEARCH_LIMIT,
      maxEntries: ctx.limits.maxSearchEntries,
      // Confined: a symlinked file is listed only if the other endpoints would serve it.
      confineTo: ctx.unrestricted ? undefined : ctx.root,
      // The agents' copies are "never listed or searched" (docs/intentic.md#agents).
      exclude: await realContentPath(ctx.fs, ctx.agents.dir),
      // Once the search engine's live file list is ready, the walk runs over it in memory (same order, budget).
      ...(list === undefined ? {} : { list }),
    });
  } catch (error) {
    // Only the root's own failures get here; everything below it is skipped by the walk.
    if (isFsError(error, 'not-found')) throw new WorkspaceError('not-found', 'workspace root does not exist');
    if (isFsError(error, 'not-directory')) throw new WorkspaceError('not-found', 'workspace root is not a directory');
    throw error;
  }
  const prefix = ctx.root === '/' ? '/' : ctx.root + '/';
  return jsonResponse({
    root: ctx.root,
    files: hits.map(({ name, relPath }) => ({ name, path: prefix + relPath, relPath })),
  });
}
