import { z } from 'zod';
import { subscribeInView } from '../../core/changes/view-subscription.ts';
import type { WorkspaceContext } from '../../runtime/context.ts';
import { eventStreamResponse } from '../../runtime/http/event-stream.ts';
import { parseQuery } from '../../runtime/validation.ts';

export const changesQuery = z.object({ agent: z.string().optional() });

/**
 * `GET /workspace-files/changes[?agent=]` — workspace-files' `changes` stream as Server-Sent Events: first
 * `{"kind":"ready"}`, then `{"kind":"change","change":{absolutePath, version}}` or `{…, absent: true}` for
 * every change inside the workspace root (the API's own writes, and on Node the OS watcher's), and one
 * `{"kind":"resync"}` when this subscriber's bounded queue overflowed. The subscription ends when the
 * client goes away. A bad or unknown agent is refused before the stream starts.
 */
export async function workspaceFilesChanges(request: Request, ctx: WorkspaceContext): Promise<Response> {
  const { agent } = parseQuery(request, changesQuery);
  const view = await ctx.view(agent);
  const subscription = subscribeInView(ctx.changes, view, { maxQueue: ctx.limits.changesMaxQueue });
  return eventStreamResponse(subscription, { keepAliveMs: ctx.limits.changesKeepAliveMs });
}
