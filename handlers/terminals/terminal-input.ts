/**
 * What the named-terminal routes share: the manager (501 without a pty), the `{name}` path parameter, and the
 * terminal's folder resolved inside the root.
 */
import { z } from 'zod';
import type { TerminalManager } from '../../core/terminals/terminal-manager.ts';
import { TERMINAL_NAME_PATTERN } from '../../core/terminals/terminal-manager.ts';
import type { WorkspaceContext } from '../../runtime/context.ts';
import { WorkspaceError } from '../../core/errors/workspace-error.ts';
import { lastPathSegment, parsePathParams } from '../../runtime/validation.ts';

export function terminalsOf(ctx: WorkspaceContext): TerminalManager {
  if (!ctx.terminals) throw new WorkspaceError('not-implemented', 'terminals are not available on this runtime');
  return ctx.terminals;
}

/** A terminal's columns or rows: the winsize fields are 16-bit, so anything larger is not a terminal size. */
export const terminalDimension = z.number().int().min(1).max(0xffff);

export const terminalName = z.string().regex(TERMINAL_NAME_PATTERN, "a terminal name is 1–128 of letters, digits, '.', '_', '-', starting with a letter or digit");

export const terminalNameParams = z.object({ name: terminalName });

export function nameParam(request: Request): string {
  return parsePathParams({ name: lastPathSegment(request, 'the terminal name') }, terminalNameParams).name;
}

/** The folder a terminal starts in: inside the root, existing, a folder. */
export async function terminalFolder(ctx: WorkspaceContext, cwd: string | undefined): Promise<string> {
  if (cwd === undefined) return ctx.root;
  const real = await ctx.resolve(cwd);
  let type;
  try {
    type = (await ctx.fs.stat(real)).type;
  } catch {
    throw new WorkspaceError('not-found', `no such folder: ${cwd}`, { cwd });
  }
  if (type !== 'dir') throw new WorkspaceError('not-directory', `not a folder: ${cwd}`, { cwd });
  return real;
}
