import { z } from 'zod';
import { createHealthEngine, type HealthEngine } from '../../core/health/health-engine.ts';
import { sinceWindowMs } from '../../core/health/health-window.ts';
import type { ChangeFeed } from '../../core/changes/change-feed.ts';
import { resolveRepoScope } from '../../core/projects/repo-scope.ts';
import type { WorkspaceContext } from '../../runtime/context.ts';
import { jsonResponse } from '../../runtime/errors/render.ts';
import { parseQuery } from '../../runtime/validation.ts';

const LIMIT = /^\d+$/;

export const healthQuery = z.object({
  repo: z.string({ error: 'missing repo' }).min(1, 'repo is empty'),
  // At most 16 characters, as the contract declares, whatever its digits say.
  since: z
    .string()
    .max(16, 'since must be at most 16 characters')
    .refine((since) => sinceWindowMs(since) !== undefined, {
      error: (issue) => `invalid since "${String(issue.input)}": expected <number><h|d|w|m> (e.g. 30d)`,
    })
    .optional(),
  limit: z
    .string()
    .refine((limit) => LIMIT.test(limit) && Number(limit) >= 1 && Number(limit) <= 200, {
      error: (issue) => `invalid limit "${String(issue.input)}": expected an integer from 1 to 200`,
    })
    .transform(Number)
    .optional(),
});

/** One engine per app (its change feed): the per-file figures it caches outlive a request. */
const engines = new WeakMap<ChangeFeed, HealthEngine>();

function engineFor(ctx: WorkspaceContext): HealthEngine {
  let engine = engines.get(ctx.changes);
  if (!engine) {
    engine = createHealthEngine({
      fs: ctx.fs,
      root: ctx.root,
      git: ctx.git,
      parsers: ctx.parsers,
      figuresOf: ctx.healthFigures,
      changesAreSeen: ctx.changesAreSeen,
      store: ctx.healthStore,
      changes: ctx.changes,
      exclude: async () => {
        await ctx.agents.view(undefined); // resolves the agents folder to its real path
        return [ctx.agents.dir];
      },
    });
    engines.set(ctx.changes, engine);
  }
  return engine;
}

/**
 * `GET /workspace/health {repo, since?, limit?}` (Intentic, docs/intentic-projects.md#health) → `{repo, totals, hotspots, modules,
 * freshness}`: churn from git, complexity and symbols from the search engine's parsers, modules by PageRank over
 * resolved imports (core/health/health-engine.ts has the rules of docs/intentic-projects.md#health).
 */
export async function workspaceHealth(request: Request, ctx: WorkspaceContext): Promise<Response> {
  const input = parseQuery(request, healthQuery);
  const scope = await resolveRepoScope(ctx.fs, ctx.root, input.repo);
  const report = await engineFor(ctx).report({
    scope,
    windowMs: input.since === undefined ? undefined : sinceWindowMs(input.since),
    limit: input.limit ?? 20,
  });
  return jsonResponse(report);
}
