import { z } from 'zod';
import type { WorkspaceContext } from '../../runtime/context.ts';
import { jsonResponse } from '../../runtime/errors/render.ts';
import { parseJsonBody } from '../../runtime/validation.ts';
import { terminalDimension, terminalFolder, terminalName, terminalsOf } from './terminal-input.ts';

export const createTerminalBody = z.object({
  name: terminalName,
  command: z.string().min(1).max(64 * 1024).optional(),
  cwd: z.string().optional(),
  cols: terminalDimension.optional(),
  rows: terminalDimension.optional(),
});

/**
 * `POST /terminals {name, command?, cwd?, cols?, rows?}` → 201 with the terminal (docs/terminals.md#named-terminals-over-http):
 * `command` runs through the shell, absent = a login shell; `cwd` inside the root. 409 if the name is
 * taken, 429 past the live-session cap.
 */
export async function createTerminal(request: Request, ctx: WorkspaceContext): Promise<Response> {
  const terminals = terminalsOf(ctx);
  const body = await parseJsonBody(request, createTerminalBody, ctx.limits.maxBodyBytes);
  const cwd = await terminalFolder(ctx, body.cwd);
  const session = terminals.start({ name: body.name, command: body.command, cwd, cols: body.cols, rows: body.rows });
  return jsonResponse(session.info(), 201);
}
