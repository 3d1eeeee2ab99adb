import { z } from 'zod';
import type { SearchMode } from '../../core/search/answer.ts';
import { MAX_GROUPS_PER_PAGE } from '../../core/search/answer.ts';
import type { WorkspaceContext } from '../../runtime/context.ts';
import { jsonResponse } from '../../runtime/errors/render.ts';
import { WorkspaceError } from '../../core/errors/workspace-error.ts';
import { parseQuery } from '../../runtime/validation.ts';

const MODES = ['q', 'find', 'files', 'def', 'refs', 'sym', 'ast'] as const satisfies readonly SearchMode[];
const TRUE = new Set(['true', '1', 'yes', 'on', 'y', 'enabled']);
const FALSE = new Set(['false', '0', 'no', 'off', 'n', 'disabled']);

/** docs/intentic-search.md's string booleans: those words in any case, nothing else. */
const stringBoolean = z
  .string()
  .transform((value, context) => {
    const word = value.toLowerCase();
    if (TRUE.has(word)) return true;
    if (FALSE.has(word)) return false;
    context.addIssue({ code: 'custom', message: `expected one of true 1 yes on y enabled / false 0 no off n disabled, got '${value}'` });
    return z.NEVER;
  })
  .optional();

export const searchQuery = z.object({
  query: z
    .string({ error: 'missing query' })
    // UTF-16 code units, as JavaScript counts: an emoji is 2, a lone `é` is 1 (too short).
    .refine((query) => query.length >= 2, 'query must be at least 2 characters')
    .refine((query) => query.length <= 512, 'query must be at most 512 characters'),
  mode: z.enum(MODES).optional(),
  includeIgnored: stringBoolean,
  literal: stringBoolean,
  word: stringBoolean,
  caseSensitive: stringBoolean,
  include: z.string().max(512, 'include must be at most 512 characters').optional(),
  // Files per page: an integer ≥ 1 ("0", "-1", "1.5", "abc" and "" are not); no schema maximum, 300 is the cap.
  limit: z
    .string()
    .regex(/^\s*\+?\d+\s*$/, 'limit must be an integer ≥ 1')
    .transform(Number)
    .refine((limit) => limit >= 1, 'limit must be an integer ≥ 1')
    .optional(),
  after: z.string().optional(),
});

/**
 * `GET /workspace/search` (Intentic; the rules are docs/intentic-search.md): ranked, grouped hits
 * from the one search engine (core/search). Invalid input is BAD_REQUEST before any work, a cursor this server
 * did not issue for this query included; unknown parameters are ignored.
 */
export async function workspaceSearch(request: Request, ctx: WorkspaceContext): Promise<Response> {
  const input = parseQuery(request, searchQuery);
  if (ctx.search === undefined) throw new WorkspaceError('not-implemented', 'search is not available on this runtime');
  const answer = await ctx.search.search({
    query: input.query,
    mode: input.mode ?? 'q',
    includeIgnored: input.includeIgnored ?? false,
    literal: input.literal ?? false,
    word: input.word ?? false,
    caseSensitive: input.caseSensitive ?? false,
    ...(input.include === undefined ? {} : { include: input.include }),
    limit: Math.min(input.limit ?? MAX_GROUPS_PER_PAGE, MAX_GROUPS_PER_PAGE),
    ...(input.after === undefined ? {} : { after: input.after }),
  });
  return jsonResponse(answer);
}
