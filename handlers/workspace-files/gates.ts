/**
 * workspace-files' gates, shared by stat, read, read-bytes and list: 1 lstat of the path itself (a symlink is never
 * followed at the last step, wherever it points), 2 containment, then each handler's caps and text checks.
 *
 * Going past the document's "kind before position" limitation: a path whose lexical form, or whose parent
 * folder's real path, lies outside the root fails `outside-workspace` before anything outside is lstat'ed, so
 * the answer never reveals whether (or as what) an outside path exists. For a path inside, the order is the
 * document's: the entry's own kind is judged before anything follows it. Once its parent is real and inside
 * and it is not a link, its real path is the parent's real path and its name, so gate 2 needs nothing more.
 *
 * Errors carry the details the product types: every `workspace-file/*` error `{path}` as the client sent it
 * (`failingFor`), `not-regular-file` / `not-directory` also {kind}, `too-large` {limit}.
 */
import { z } from 'zod';
import type { FileStat, FileType } from '../../adapters/fs/file-system.ts';
import { isFsError } from '../../adapters/fs/fs-error.ts';
import { basename, dirname, isInside, join, normalize } from '../../adapters/fs/posix-path.ts';
import type { WorkspaceView } from '../../core/agents/workspace-view.ts';
import type { WorkspaceContext } from '../../runtime/context.ts';
import { toWorkspaceError, WorkspaceError } from '../../core/errors/workspace-error.ts';

/** `path` (required, non-empty: an empty one is the gateway's bad-request) and `agent`, on every call. */
export const pathQuery = z.object({
  path: z.string({ error: 'missing path' }).min(1, 'missing path'),
  agent: z.string().optional(),
});

export interface LocatedEntry {
  view: WorkspaceView;
  /** The entry's real absolute path. */
  absolutePath: string;
  /** The entry itself (lstat): a symlink is `symlink` here. */
  stat: FileStat;
}

/**
 * Runs one call for the path the client asked, so that every `workspace-file/*` failure names that path,
 * verbatim, beside its other details (docs/workspace-files.md#errors): a client with several reads in flight
 * tells which one failed without parsing messages. A bad query (`gateway/bad-request`) is about the request,
 * not a path, and is left alone; so is anything that is not a workspace or file-system error (a bug, logged
 * and answered 500 as it is).
 */
export async function failingFor<T>(path: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (!(error instanceof WorkspaceError) && !isFsError(error)) throw error;
    const failure = toWorkspaceError(error);
    if (failure.code === 'bad-request') throw failure;
    throw new WorkspaceError(failure.code, failure.message, { path, ...failure.details }, failure.status);
  }
}

/** Gates 1 and 2 for `requested` (absolute, or relative to the root) in the shared tree or `agent`'s copy. */
export async function locateEntry(
  ctx: WorkspaceContext,
  requested: string,
  agent: string | undefined,
): Promise<LocatedEntry> {
  const view = await ctx.view(agent);
  const root = view.root;
  if (requested.includes('\0')) throw new WorkspaceError('bad-request', 'path contains a NUL byte');
  const slashed = requested.replace(/\\/g, '/');
  const lexical = slashed.startsWith('/') ? normalize(slashed) : join(root, slashed);
  // Confined whatever `--unrestricted` says: reads are confined to the root (docs/workspace-files.md#gates).
  if (!isInside(root, lexical)) throw outsideWorkspace();
  const absolutePath = lexical === root ? root : join(await realParent(view, dirname(lexical)), basename(lexical));
  let stat: FileStat;
  try {
    stat = await view.fs.lstat(absolutePath);
  } catch (error) {
    // "a.txt/b" (a parent that is a file) does not exist either.
    if (isFsError(error, 'not-found') || isFsError(error, 'not-directory')) throw notFound();
    throw error;
  }
  return { view, absolutePath, stat };
}

async function realParent(view: WorkspaceView, parent: string): Promise<string> {
  let real: string;
  try {
    real = await view.resolve(parent);
  } catch (error) {
    if (error instanceof WorkspaceError && error.code === 'outside-workspace') throw outsideWorkspace();
    if (error instanceof WorkspaceError && error.code === 'not-found') throw notFound();
    throw error;
  }
  if (!isInside(view.root, real)) throw outsideWorkspace();
  return real;
}

/** read, read-bytes and stat take regular files only. */
export function requireRegularFile(stat: FileStat): void {
  if (stat.type === 'file') return;
  const kind = stat.type === 'dir' ? 'directory' : stat.type;
  throw new WorkspaceError('not-regular-file', `not a regular file (${kind})`, { kind });
}

/** list takes folders only. */
export function requireDirectory(stat: FileStat): void {
  if (stat.type === 'dir') return;
  const kind: Exclude<FileType, 'dir'> = stat.type;
  throw new WorkspaceError('not-directory', `not a directory (${kind})`, { kind });
}

/** What every file answer starts with (workspace-files' WorkspaceFileStat). */
export function fileStatBody(entry: LocatedEntry): { absolutePath: string; version: string; bytes: number } {
  return { absolutePath: entry.absolutePath, version: entry.stat.version, bytes: entry.stat.size };
}

function outsideWorkspace(): WorkspaceError {
  return new WorkspaceError('outside-workspace', 'path is outside the workspace');
}

function notFound(): WorkspaceError {
  return new WorkspaceError('not-found', 'no such file or directory');
}
