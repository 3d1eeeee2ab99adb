/**
 * The `/ws` command table (seeds/README.md §002, the NoIDE protocol): one row per command, grouped as the
 * protocol's reference groups them. Git and agent chat arrive as more rows (their own issues).
 */
import type { RpcCommand } from './command.ts';
import { archiveCommands } from './commands/archive/index.ts';
import { fileCommands } from './commands/files/index.ts';
import { ptyCommands } from './commands/pty/index.ts';
import { shellCommands } from './commands/shell/index.ts';

export const rpcCommands: ReadonlyMap<string, RpcCommand> = new Map<string, RpcCommand>([
  ...Object.entries(ptyCommands),
  ...Object.entries(shellCommands),
  ...Object.entries(fileCommands),
  ...Object.entries(archiveCommands),
]);
