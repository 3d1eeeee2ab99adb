import { z } from 'zod';
import type { WorkspaceContext } from '../../runtime/context.ts';
import { jsonResponse } from '../../runtime/errors/render.ts';
import { WorkspaceError } from '../../runtime/errors/workspace-error.ts';
import { parseQuery } from '../../runtime/validation.ts';

const Query = z.object({ path: z.string({ error: 'missing path' }).min(1, 'missing path') });

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** `GET /api/file?path=` — a UTF-8 text file: 413 above the cap, 415 for anything that is not text. */
export async function readFile(request: Request, ctx: WorkspaceContext): Promise<Response> {
  const { path } = parseQuery(request, Query);
  const file = await ctx.resolve(path);
  const stat = await ctx.fs.stat(file);
  if (stat.type === 'dir') throw new WorkspaceError('bad-request', 'path is a directory');
  if (stat.type !== 'file') throw new WorkspaceError('bad-request', 'not a regular file');
  const cap = ctx.limits.maxTextFileBytes;
  if (stat.size > cap) throw new WorkspaceError('too-large', `file is larger than ${cap} bytes`, { size: stat.size, limit: cap });

  // Read one byte past the cap: the file may have grown since stat, and we must not serve a cut file as whole.
  const bytes = await ctx.fs.read(file, { offset: 0, length: cap + 1 });
  if (bytes.byteLength > cap) throw new WorkspaceError('too-large', `file is larger than ${cap} bytes`, { limit: cap });
  return jsonResponse({ path: file, content: decodeText(bytes) });
}

/** Valid UTF-8 without NUL bytes is text; anything else is 415 (seed 000). */
function decodeText(bytes: Uint8Array): string {
  if (bytes.includes(0)) throw new WorkspaceError('not-text', 'file is not valid UTF-8 text');
  try {
    return utf8.decode(bytes);
  } catch {
    throw new WorkspaceError('not-text', 'file is not valid UTF-8 text');
  }
}
