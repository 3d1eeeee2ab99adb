/**
 * Starting a job's named terminal (docs/intentic-projects.md#jobs-and-their-terminals): a running key is left alone (the
 * start is a no-op); an exited one keeps its output until the next start of the same key replaces it.
 */
import type { StartTerminalOptions, TerminalManager, TerminalSession } from '../terminals/terminal-manager.ts';

/** The started session, or undefined when one of that name still runs. */
export async function startJobTerminal(
  terminals: TerminalManager,
  options: StartTerminalOptions & { name: string },
): Promise<TerminalSession | undefined> {
  const existing = terminals.get(options.name);
  if (existing?.running) return undefined;
  if (existing) await terminals.remove(options.name);
  // Another start may have taken the name while the old session was removed: that one wins.
  if (terminals.get(options.name)?.running) return undefined;
  if (terminals.get(options.name)) await terminals.remove(options.name);
  return terminals.start({ ...options, inheritEnv: false });
}
