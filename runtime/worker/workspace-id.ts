/**
 * Where a Worker request goes (docs/architecture.md#cloudflare-workers): `/w/<workspace-id>/…` to that workspace's
 * Durable Object, everything else to the Worker itself. An id needs no registration: its object comes into being
 * with its first request, as Durable Objects do.
 */

/** Letters, digits, `_` and `-`, 1–64, not starting with a separator: safe in a URL segment and a log line. */
export const WORKSPACE_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;
export const WORKSPACE_ID_RULE = "a workspace id is 1–64 letters, digits, '_' or '-', starting with a letter or digit";

export type WorkspaceTarget = { kind: 'workspace'; id: string; basePath: string } | { kind: 'bad-id'; id: string } | { kind: 'worker' };

/** `/w/<id>` and everything under it names a workspace; any other path is the Worker's own. */
export function workspaceTarget(pathname: string): WorkspaceTarget {
  const match = /^\/w\/([^/]*)(?:\/|$)/.exec(pathname);
  if (!match) return { kind: 'worker' };
  let id: string;
  try {
    id = decodeURIComponent(match[1]!);
  } catch {
    return { kind: 'bad-id', id: match[1]! };
  }
  return WORKSPACE_ID_PATTERN.test(id) ? { kind: 'workspace', id, basePath: `/w/${id}` } : { kind: 'bad-id', id };
}
