import type { WorkspaceContext } from '../../runtime/context.ts';
import { jsonResponse } from '../../runtime/errors/render.ts';
import { terminalsOf } from './terminal-input.ts';

/**
 * `GET /terminals` → `{terminals: [{name, pid, command, cwd, running, exitCode, start, end}]}` (ours,
 * docs/terminals.md#named-terminals-over-http): named sessions, running or exited until reaped, in start order.
 */
export function listTerminals(_request: Request, ctx: WorkspaceContext): Response {
  return jsonResponse({ terminals: terminalsOf(ctx).list() });
}
