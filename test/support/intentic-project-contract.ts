/**
 * Intentic's project calls (docs/intentic-projects.md, shapes from Intentic's contract): setup, install, templates, apps
 * (add, list, start, stop), graph, modules, tests, health, classify. Part of intenticContract
 * (./intentic-contract.ts), so tests drive them through the same OpenAPILink client; outputs are strict.
 */
import { oc } from '@orpc/contract';
import { z } from 'zod';

const ok = z.strictObject({ ok: z.literal(true) });
const repo = z.string().min(1);

export const projectContract = {
  setup: oc
    .route({ method: 'GET', path: '/workspace/setup' })
    .input(z.object({}))
    .output(
      z.strictObject({
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
      }),
    ),
  install: oc
    .route({ method: 'POST', path: '/workspace/setup/install' })
    .input(z.object({ dirs: z.array(z.string().max(500)).min(1).max(50) }))
    .output(z.strictObject({ queued: z.array(z.string()) })),
  templates: oc
    .route({ method: 'GET', path: '/workspace/templates' })
    .input(z.object({}))
    .output(z.strictObject({ templates: z.array(z.strictObject({ key: z.string(), label: z.string(), description: z.string() })) })),
  addApps: oc
    .route({ method: 'POST', path: '/workspace/repos/{repo}/apps' })
    .input(z.object({ repo, apps: z.array(z.object({ template: z.string(), name: z.string() })) }))
    .output(ok),
  appsList: oc
    .route({ method: 'GET', path: '/workspace/repos/{repo}/apps' })
    .input(z.object({ repo }))
    .output(
      z.strictObject({
        apps: z.array(
          z.strictObject({
            app: z.string(),
            running: z.boolean(),
            healthy: z.boolean(),
            kind: z.string().optional(),
            previewUrl: z.string().optional(),
          }),
        ),
      }),
    ),
  startApp: oc.route({ method: 'POST', path: '/workspace/repos/{repo}/apps/{app}/start' }).input(z.object({ repo, app: z.string() })).output(ok),
  stopApp: oc.route({ method: 'POST', path: '/workspace/repos/{repo}/apps/{app}/stop' }).input(z.object({ repo, app: z.string() })).output(ok),
  packageGraph: oc
    .route({ method: 'GET', path: '/workspace/repos/{repo}/graph' })
    .input(z.object({ repo }))
    .output(
      z.strictObject({
        packages: z.array(z.strictObject({ name: z.string(), dir: z.string(), group: z.string() })),
        edges: z.array(z.strictObject({ from: z.string(), to: z.string(), type: z.enum(['prod', 'dev', 'peer']) })),
      }),
    ),
  modules: oc
    .route({ method: 'GET', path: '/workspace/modules' })
    .input(z.object({}))
    .output(
      z.strictObject({
        repos: z.array(z.strictObject({ repo: z.string(), modules: z.array(z.strictObject({ dir: z.string(), name: z.string() })) })),
      }),
    ),
  runTests: oc
    .route({ method: 'POST', path: '/workspace/repos/{repo}/tests' })
    .input(z.object({ repo, session: z.string(), dirs: z.array(z.string()).min(1) }))
    .output(ok),
  health: oc
    .route({ method: 'GET', path: '/workspace/health' })
    .input(z.object({ repo, since: z.string().max(16).optional(), limit: z.number().int().positive().max(200).optional() }))
    .output(
      z.strictObject({
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
      }),
    ),
  classify: oc
    .route({ method: 'GET', path: '/workspace/classify' })
    .input(z.object({}))
    .output(
      z.strictObject({
        classifications: z.array(
          z.strictObject({
            path: z.string(),
            bucket: z.enum(['repositories', 'documents', 'media', 'archives', 'other']),
            reason: z.string(),
          }),
        ),
      }),
    ),
};
