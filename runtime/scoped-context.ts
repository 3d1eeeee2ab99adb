/**
 * The context a scoped token's request runs with (docs/architecture.md#scoped-tokens). The route table already
 * decided the route is open to the scope (runtime/routes.ts); what is left is the one choke point every agent
 * read and write goes through, `view(agent)`: an agent token opens its own agent's copy and nothing else — not
 * the shared tree, not another agent's copy — whichever route or field named the agent.
 */
import type { TokenScope } from '../core/auth/scoped-token.ts';
import { WorkspaceError } from '../core/errors/workspace-error.ts';
import type { WorkspaceContext } from './context.ts';

export function scopedContext(ctx: WorkspaceContext, scope: TokenScope): WorkspaceContext {
  if (scope.kind === 'read') return { ...ctx, scope };
  return {
    ...ctx,
    scope,
    view: async (agent) => {
      if (agent !== scope.agent) {
        throw new WorkspaceError('forbidden', `this token acts only on agent ${scope.agent}'s copy: pass agent=${scope.agent}`);
      }
      return ctx.view(agent);
    },
  };
}
