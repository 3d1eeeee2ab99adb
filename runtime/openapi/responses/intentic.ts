import { z } from 'zod';
import { okAnswer } from './terminals.ts';

/**
 * Intentic's success bodies for its file calls (docs/intentic.md, docs/intentic-search.md), for the OpenAPI
 * document. Strict objects, as Intentic's contract is: optional keys are omitted, never null.
 */
export interface TreeEntryShape {
  name: string;
  path: string;
  type: 'file' | 'dir';
  size?: number;
  ignored?: true;
  link?: { to: string; state?: 'broken' | 'outside' };
  children?: TreeEntryShape[];
}

/** core/tree/tree-entry.ts; named, so the document holds it once and refers to it (it is recursive). */
export const treeEntry: z.ZodType<TreeEntryShape> = z
  .lazy(() =>
    z.strictObject({
      name: z.string(),
      path: z.string().describe('root-relative, with /'),
      type: z.enum(['file', 'dir']),
      size: z.number().int().min(0).optional(),
      ignored: z.literal(true).optional(),
      link: z.strictObject({ to: z.string(), state: z.enum(['broken', 'outside']).optional() }).optional(),
      children: z.array(treeEntry).optional(),
    }),
  )
  .meta({ id: 'TreeEntry' });

export const treeAnswer = z.strictObject({ root: z.string(), tree: z.array(treeEntry), hidden: z.number().int().min(0) });

export const childrenAnswer = z.strictObject({ entries: z.array(treeEntry), hidden: z.number().int().min(0) });

export const fileAnswer = z.union([
  z.strictObject({
    present: z.literal(true),
    path: z.string(),
    content: z.string(),
    size: z.number().int().min(0),
    offset: z.number().int().min(0),
    bytes: z.number().int().min(0),
    shared: z.boolean(),
  }),
  z.strictObject({ present: z.literal(false), path: z.string() }),
]);

export const resolveAnswer = z.strictObject({ path: z.string().optional() });

export const mediaTicketAnswer = z.strictObject({ ticket: z.string(), expiresAt: z.number() });

export const reposAnswer = z.strictObject({ repos: z.array(z.string()) });

export const cloneAnswer = z.strictObject({ name: z.string(), path: z.string() });

export const syncAnswer = z.strictObject({
  repos: z.array(
    z.union([
      z.strictObject({ repo: z.string(), status: z.enum(['no-remote', 'current', 'skipped']) }),
      z.strictObject({ repo: z.string(), status: z.literal('dirty'), behind: z.number() }),
      z.strictObject({ repo: z.string(), status: z.literal('diverged'), ahead: z.number(), behind: z.number() }),
      z.strictObject({ repo: z.string(), status: z.literal('updated'), behind: z.number(), head: z.string() }),
      z.strictObject({ repo: z.string(), status: z.literal('error'), message: z.string() }),
    ]),
  ),
});

const freshness = z.strictObject({
  state: z.enum(['fresh', 'building', 'stale']),
  ageMs: z.number().min(0).optional(),
  progress: z.number().min(0).max(1).optional(),
  behind: z.number().int().min(0).optional(),
});

const tagKind = z.enum(['def', 'path', 'fuzzy', 'rerank', 'sem', 'bm25', 'import', 'call', 'type', 'write', 'text', 'heuristic']);

const searchHit = z.strictObject({
  line: z.number().int().min(1),
  text: z.string(),
  spans: z.array(z.strictObject({ start: z.number().int().min(0), end: z.number().int() })),
  tags: z.array(z.strictObject({ kind: tagKind, score: z.number().min(0).max(1).optional() })).min(1),
  context: z.string().optional(),
});

/** docs/intentic-search.md#answer. */
export const searchAnswer = z.strictObject({
  mode: z.enum(['q', 'find', 'files', 'def', 'refs', 'sym', 'ast']),
  total: z.number().int().min(0),
  files: z.number().int().min(0),
  shown: z.number().int().min(0),
  groups: z.array(
    z.strictObject({ path: z.string(), score: z.number(), hits: z.array(searchHit), capped: z.literal(true).optional() }),
  ),
  freshness,
  truncated: z.boolean(),
  partial: z.literal(true).optional(),
  cursor: z.string().optional(),
  hint: z.string().optional(),
  note: z.string().optional(),
  related: z.array(z.string()).optional(),
  candidates: z.array(z.string()).optional(),
  features: z.array(z.string()).optional(),
});

export { okAnswer };
