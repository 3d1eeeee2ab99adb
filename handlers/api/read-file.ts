import { z } from 'zod';
import { isFsError } from '../../adapters/fs/fs-error.ts';
import type { WorkspaceContext } from '../../runtime/context.ts';
import { jsonResponse } from '../../runtime/errors/render.ts';
import { WorkspaceError } from '../../core/errors/workspace-error.ts';
import { entityTag } from '../../runtime/http/entity-tag.ts';
import { parseQuery } from '../../runtime/validation.ts';

export const readFileQuery = z.object({ path: z.string({ error: 'missing path' }).min(1, 'missing path') });

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * `GET /api/file?path=` — a UTF-8 text file: 413 above the cap, 415 for anything that is not text. Its
 * version comes back as the `ETag` header (the tag `/api/raw` sends), for `PUT /api/file`'s `If-Match`.
 */
export async function readFile(request: Request, ctx: WorkspaceContext): Promise<Response> {
  const { path } = parseQuery(request, readFileQuery);
  const file = await ctx.resolve(path);
  const cap = ctx.limits.maxTextFileBytes;
  // The version comes with the bytes, from the same open file (readWithStat: on this hot path a separate
  // stat cost a fifth of the request). A replaced file cannot pair new bytes with an old tag, and an in-place
  // write during the read leaves the tag older than the content (a needless 412 later), never newer (which
  // would let a PUT based on the old text overwrite the new one). The read refuses folders and non-regular
  // files, and reading one byte past the cap tells "too large" apart without holding more than cap + 1 bytes.
  let version: string;
  let bytes: Uint8Array;
  try {
    ({ bytes, stat: { version } } = await ctx.fs.readWithStat(file, { offset: 0, length: cap + 1 }));
  } catch (error) {
    if (isFsError(error, 'is-directory')) throw new WorkspaceError('bad-request', 'path is a directory');
    if (isFsError(error, 'invalid')) throw new WorkspaceError('bad-request', 'not a regular file');
    throw error;
  }
  if (bytes.byteLength > cap) throw new WorkspaceError('too-large', `file is larger than ${cap} bytes`, { limit: cap });
  return jsonResponse({ path: file, content: decodeText(bytes) }, 200, { etag: entityTag(version) });
}

/** Valid UTF-8 without NUL bytes is text; anything else is 415 (docs/ori.md#read). */
function decodeText(bytes: Uint8Array): string {
  if (bytes.includes(0)) throw new WorkspaceError('not-text', 'file is not valid UTF-8 text');
  try {
    return utf8.decode(bytes);
  } catch {
    throw new WorkspaceError('not-text', 'file is not valid UTF-8 text');
  }
}
