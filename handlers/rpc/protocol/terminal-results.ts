/** The results of the terminal commands (docs/noide-protocol.md#terminals): the rest answer null. */
import { z } from 'zod';
import { entry, noResult } from './result-entry.ts';

const TERMINALS = 'docs/noide-protocol.md#terminals';

export const terminalResults = {
  pty_spawn: entry(z.strictObject({ id: z.string(), pid: z.number().int() }), TERMINALS),
  pty_attach: entry(
    z.strictObject({
      pid: z.number().int(),
      from: z.number().int().min(0).describe('where the replay starts (past the asked `from` when that left the ring)'),
      end: z.number().int().min(0).describe("the session's end offset when attached"),
      truncated: z.boolean().describe('bytes between the asked `from` and `from` are gone'),
    }),
    TERMINALS,
  ),
  pty_write: noResult(TERMINALS),
  pty_resize: noResult(TERMINALS),
  pty_kill: noResult(TERMINALS),
  pty_detach: noResult(TERMINALS),
};
