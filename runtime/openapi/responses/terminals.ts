import { z } from 'zod';

/** A named terminal as `/terminals` shows it (core/terminals/terminal-manager.ts, docs/terminals.md). */
export const terminalInfo = z.strictObject({
  name: z.string(),
  pid: z.number().int(),
  command: z.string().nullable().describe('the command it runs through the shell; null for a login shell'),
  cwd: z.string(),
  running: z.boolean(),
  exitCode: z.number().int().nullable().describe('null while running, and after an exit by signal'),
  start: z.number().int().min(0).describe('byte offset of the oldest output still kept'),
  end: z.number().int().min(0).describe('byte offset one past the newest output'),
});

export const terminalListAnswer = z.strictObject({ terminals: z.array(terminalInfo) });

export const okAnswer = z.strictObject({ ok: z.literal(true) });
