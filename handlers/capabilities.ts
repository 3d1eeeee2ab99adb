import { z } from 'zod';
import type { WorkspaceContext } from '../runtime/context.ts';
import { jsonResponse } from '../runtime/errors/render.ts';
import { API_VERSION } from '../runtime/openapi/api-version.ts';

/** What this daemon can do where it runs (docs/architecture.md#capabilities). */
export const capabilitiesAnswer = z.strictObject({
  version: z.string(),
  /** WebSocket routes accept upgrades: `/ws`, `/ws/terminal`, `/terminals/{name}`. */
  webSockets: z.boolean(),
  /** Pseudo-terminals: `/terminals`, `/ws/terminal`, the protocol's `pty_*`. */
  terminals: z.boolean(),
  /** One-shot commands: the protocol's `run_command`. */
  commands: z.boolean(),
  /** Git: the protocol's git commands, Intentic's clone and sync. */
  git: z.boolean(),
  /** Agent chat: the protocol's `chat_*`. */
  chat: z.boolean(),
  /** Changes made outside the API (an editor, a shell) reach the change feed. */
  watching: z.boolean(),
});

export type Capabilities = z.output<typeof capabilitiesAnswer>;

/**
 * `GET /capabilities` — which of the daemon's powers this runtime has, so a client (the panel) offers only what
 * works instead of learning it from failures: a Worker has no pty, no processes and, for now, no WebSockets.
 */
export function capabilities(_request: Request, ctx: WorkspaceContext): Response {
  return jsonResponse({
    version: API_VERSION,
    webSockets: ctx.acceptsWebSockets ?? false,
    terminals: ctx.terminals !== undefined,
    commands: ctx.processes !== undefined,
    git: ctx.git !== undefined,
    chat: ctx.chat !== undefined,
    watching: ctx.changesAreSeen,
  } satisfies Capabilities);
}
