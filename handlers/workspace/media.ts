import { z } from 'zod';
import { basename, normalize } from '../../adapters/fs/posix-path.ts';
import type { TicketSubject } from '../../core/media/media-tickets.ts';
import type { WorkspaceContext } from '../../runtime/context.ts';
import { WorkspaceError } from '../../core/errors/workspace-error.ts';
import { attachmentDisposition } from '../../runtime/http/content-disposition.ts';
import { parseQuery } from '../../runtime/validation.ts';
import { serveFileBytes } from './serve-file-bytes.ts';
import { resolveServedFile, servedAgent, servedPath } from './served-file.ts';

export const mediaQuery = z.object({
  path: servedPath,
  // Optional here so that a missing ticket is the 401 it is, after the path checks (the seed's order).
  ticket: z.string().optional(),
  agent: servedAgent,
  // `&download` (empty), `download=1|true`; `0|false` are the same as leaving it out.
  download: z.enum(['', '1', 'true', '0', 'false'], { error: 'download must be empty, 1, true, 0 or false' }).optional(),
});

const TICKET_REFUSALS = {
  malformed: 'malformed media ticket',
  invalid: 'media ticket not valid for this file',
  expired: 'media ticket expired',
} as const;

/**
 * `GET|HEAD /workspace/media?path=&ticket=[&agent=][&download]` (docs/intentic.md#byte-routes): a media element's byte-range
 * stream, authorised by its ticket alone — a `<video src>` sends no header, so the route's guard does not ask
 * for the token (runtime/routes.ts) and a ticket is required even with one. Checks in the seed's order:
 * the path (400 bad or escaping, 404 missing, 400 a folder), the ticket (401 unless minted for this resolved
 * file and agent, and alive), then the size (416, with the size in Content-Range, for a range outside the
 * file). No size cap; bytes stream off disk through the ServeContent port `/api/raw` uses. `Cache-Control:
 * no-store`: a ticketed URL must not leave a copy behind once the ticket is gone.
 *
 * The seed's order lets a caller without a ticket tell a missing file (404) or an escaping path (400) from
 * an existing one (401): the route answers exactly that much about paths to anyone who can reach it.
 */
export async function workspaceMedia(request: Request, ctx: WorkspaceContext): Promise<Response> {
  const { path, ticket, agent, download } = parseQuery(request, mediaQuery);
  const served = await resolveServedFile(ctx, path, agent);
  await requireTicket(ctx, ticket, { file: served.file, agent });

  const headers: Record<string, string> = { 'cache-control': 'no-store' };
  if (download === '' || download === '1' || download === 'true') {
    // The name the client asked for (a link keeps its own name), not its target's.
    headers['content-disposition'] = attachmentDisposition(basename(normalize('/' + path.replace(/\\/g, '/'))));
  }
  const response = await serveFileBytes(request, served, headers);
  // ServeContent drops Cache-Control from its error answers as Go does (a 416 there); here it holds throughout.
  response.headers.set('cache-control', 'no-store');
  return response;
}

async function requireTicket(ctx: WorkspaceContext, ticket: string | undefined, subject: TicketSubject): Promise<void> {
  if (ticket === undefined || ticket === '') throw new WorkspaceError('unauthorized', 'missing media ticket');
  const check = await ctx.mediaTickets.verify(ticket, subject);
  if (!check.ok) throw new WorkspaceError('unauthorized', TICKET_REFUSALS[check.reason], { reason: check.reason });
}
