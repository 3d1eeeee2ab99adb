import { z } from 'zod';
import { isInside, join } from '../../adapters/fs/posix-path.ts';
import { realContentPath } from '../../adapters/fs/real-paths.ts';
import type { WorkspaceContext } from '../../runtime/context.ts';
import { jsonResponse } from '../../runtime/errors/render.ts';
import { WorkspaceError } from '../../core/errors/workspace-error.ts';
import { parseQuery } from '../../runtime/validation.ts';

const Query = z.object({ path: z.string().optional() });

interface Entry {
  name: string;
  path: string;
  isDir: boolean;
  size: number;
}

/** `GET /api/files?path=` — one folder's entries: folders first, then files, each by name (docs/ori.md#list). */
export async function listFiles(request: Request, ctx: WorkspaceContext): Promise<Response> {
  const { path = '' } = parseQuery(request, Query);
  const dir = await ctx.resolve(path === '' ? ctx.root : path);
  const stat = await ctx.fs.stat(dir);
  if (stat.type !== 'dir') throw new WorkspaceError('bad-request', 'not a directory');

  // The agents' copies are not part of the workspace's tree: never listed (docs/intentic.md#agents).
  const agentsDir = await realContentPath(ctx.fs, ctx.agents.dir);
  const names = (await ctx.fs.readdir(dir)).filter(({ name }) => join(dir, name) !== agentsDir);
  const entries = await Promise.all(names.map(({ name, type }) => describeEntry(ctx, join(dir, name), name, type)));
  entries.sort((a, b) => (a.isDir !== b.isDir ? (a.isDir ? -1 : 1) : a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return jsonResponse({ path: dir, entries });
}

async function describeEntry(ctx: WorkspaceContext, path: string, name: string, type: string): Promise<Entry> {
  try {
    if (type === 'symlink' && !ctx.unrestricted && !isInside(ctx.root, await ctx.fs.realpath(path))) {
      // A link leaving the workspace is listed by name only: its target's kind and size are not ours to show.
      return { name, path, isDir: false, size: 0 };
    }
    const stat = type === 'symlink' ? await ctx.fs.stat(path) : await ctx.fs.lstat(path);
    const isDir = stat.type === 'dir';
    return { name, path, isDir, size: isDir ? 0 : stat.size };
  } catch {
    // Dangling links, entries that vanished or cannot be read: still listed, as files of size 0.
    return { name, path, isDir: false, size: 0 };
  }
}
