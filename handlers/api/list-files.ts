import { z } from 'zod';
import { join } from '../../adapters/fs/posix-path.ts';
import { realContentPath } from '../../adapters/fs/real-paths.ts';
import { listFolder, type FolderEntry } from '../../core/listing/list-folder.ts';
import type { WorkspaceContext } from '../../runtime/context.ts';
import { jsonResponse } from '../../runtime/errors/render.ts';
import { WorkspaceError } from '../../core/errors/workspace-error.ts';
import { parseQuery } from '../../runtime/validation.ts';

export const listFilesQuery = z.object({ path: z.string().optional() });

interface Entry {
  name: string;
  path: string;
  isDir: boolean;
  size: number;
}

/** `GET /api/files?path=` — one folder's entries: folders first, then files, each by name (docs/ori.md#list). */
export async function listFiles(request: Request, ctx: WorkspaceContext): Promise<Response> {
  const { path = '' } = parseQuery(request, listFilesQuery);
  const dir = await ctx.resolve(path === '' ? ctx.root : path);
  const stat = await ctx.fs.stat(dir);
  if (stat.type !== 'dir') throw new WorkspaceError('bad-request', 'not a directory');

  // The agents' copies are not part of the workspace's tree: never listed (docs/intentic.md#agents).
  const listing = await listFolder(ctx.fs, dir, {
    exclude: await realContentPath(ctx.fs, ctx.agents.dir),
    // A link leaving the workspace is listed by name only: its target's kind and size are not ours to show.
    confineTo: ctx.unrestricted ? undefined : ctx.root,
  });
  const entries = listing.entries.map((entry) => toEntry(dir, entry));
  // Already by name: a stable split keeps that order within folders and within files.
  return jsonResponse({ path: dir, entries: [...entries.filter((e) => e.isDir), ...entries.filter((e) => !e.isDir)] });
}

/** Anything that is not a folder is a file here: a dangling or outside link, or a FIFO, of size 0. */
function toEntry(dir: string, { name, kind, size }: FolderEntry): Entry {
  const isDir = kind === 'dir';
  return { name, path: join(dir, name), isDir, size: isDir ? 0 : (size ?? 0) };
}
