import { z } from 'zod';

/**
 * ori's success bodies (docs/ori.md), for the OpenAPI document: what handlers/api/* render. Strict objects: a
 * key the page does not name is a documentation bug, and the document's tests validate real answers with them.
 */
export const listFilesAnswer = z.strictObject({
  path: z.string().describe('the folder listed, as an absolute path'),
  entries: z.array(
    z.strictObject({ name: z.string(), path: z.string(), isDir: z.boolean(), size: z.number().int().min(0) }),
  ),
});

export const searchFilesAnswer = z.strictObject({
  root: z.string(),
  files: z.array(z.strictObject({ name: z.string(), path: z.string(), relPath: z.string() })),
});

export const readFileAnswer = z.strictObject({ path: z.string(), content: z.string() });

export const writeFileAnswer = z.strictObject({ path: z.string(), status: z.literal('saved') });

export const skillsAnswer = z.strictObject({
  skills: z.array(
    z.strictObject({
      name: z.string(),
      description: z.string(),
      path: z.string(),
      source: z.enum(['project', 'user']),
    }),
  ),
});

/** `GET /healthz`. */
export const healthAnswer = z.strictObject({ ok: z.literal(true) });

/** What the upgrade routes answer a plain GET (426), as ori's errors are. */
export const plainErrorBody = z.strictObject({ error: z.string() });
