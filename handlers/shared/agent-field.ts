import { z } from 'zod';
import { AGENT_ID_PATTERN } from '../../core/agents/workspace-view.ts';

/**
 * An agent id as Intentic's contract declares it (docs/intentic.md#agents): checked by the schema, so a
 * malformed one is BAD_REQUEST with `data.issues` before any view is opened.
 */
export const agentId = z
  .string({ error: 'agent must be a string' })
  .regex(AGENT_ID_PATTERN, 'agent must match ^[a-zA-Z0-9][a-zA-Z0-9_-]{0,63}$');

/** The optional `agent` every Intentic read (query) and write (body) takes. */
export const agentField = agentId.optional();
