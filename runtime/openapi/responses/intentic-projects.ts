import { z } from 'zod';

/** Intentic's project calls' success bodies (docs/intentic-projects.md), for the OpenAPI document. */
export const setupAnswer = z.strictObject({
  projects: z.array(
    z.strictObject({
      dir: z.string(),
      ecosystem: z.enum(['node', 'python']),
      manager: z.string(),
      command: z.string(),
      evidence: z.string(),
      state: z.enum(['ready', 'installing', 'needs-setup', 'unsupported', 'stale']),
      missing: z.number().int().min(1).optional(),
    }),
  ),
});

export const installAnswer = z.strictObject({ queued: z.array(z.string()) });

export const templatesAnswer = z.strictObject({
  templates: z.array(z.strictObject({ key: z.string(), label: z.string(), description: z.string() })),
});

export const appsAnswer = z.strictObject({
  apps: z.array(
    z.strictObject({
      app: z.string(),
      running: z.boolean(),
      healthy: z.boolean(),
      kind: z.string().optional(),
      previewUrl: z.string().optional(),
    }),
  ),
});

export const graphAnswer = z.strictObject({
  packages: z.array(z.strictObject({ name: z.string(), dir: z.string(), group: z.string() })),
  edges: z.array(z.strictObject({ from: z.string(), to: z.string(), type: z.enum(['prod', 'dev', 'peer']) })),
});

export const modulesAnswer = z.strictObject({
  repos: z.array(
    z.strictObject({ repo: z.string(), modules: z.array(z.strictObject({ dir: z.string(), name: z.string() })) }),
  ),
});

export const healthReportAnswer = z.strictObject({
  repo: z.string(),
  totals: z.strictObject({ files: z.number(), symbols: z.number(), complexity: z.number(), hotspots: z.number() }),
  hotspots: z.array(
    z.strictObject({
      path: z.string(),
      commits: z.number(),
      adds: z.number(),
      dels: z.number(),
      complexity: z.number(),
      score: z.number(),
      latestMs: z.number(),
    }),
  ),
  modules: z.array(z.strictObject({ path: z.string(), exports: z.number() })),
  freshness: z.strictObject({
    state: z.enum(['fresh', 'building', 'stale']),
    ageMs: z.number(),
    progress: z.number().optional(),
    behind: z.number().optional(),
  }),
});

export const classifyAnswer = z.strictObject({
  classifications: z.array(
    z.strictObject({
      path: z.string(),
      bucket: z.enum(['repositories', 'documents', 'media', 'archives', 'other']),
      reason: z.string(),
    }),
  ),
});
