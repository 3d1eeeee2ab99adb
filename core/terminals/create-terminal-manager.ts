import type { PtyAdapter } from '../../adapters/pty/pty-adapter.ts';
import type { TerminalManager, TerminalManagerOptions } from './terminal-manager.ts';

/** Placeholder while the manager is written. */
export function createTerminalManager(_pty: PtyAdapter, _options: TerminalManagerOptions): TerminalManager {
  return {
    start() {
      throw new Error('not implemented');
    },
    get: () => undefined,
    list: () => [],
    remove: async () => false,
    closeAll: async () => {},
  };
}
