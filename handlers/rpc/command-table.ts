/**
 * The `/ws` command table (docs/noide-protocol.md, the NoIDE protocol): one row per command, grouped as the
 * protocol's reference groups them.
 */
import { light, type RpcCommand } from './command.ts';
import { archiveCommands } from './commands/archive/index.ts';
import { chatCommands, LIGHT_CHAT_COMMANDS } from './commands/chat/index.ts';
import { fileCommands } from './commands/files/index.ts';
import { gitCommands } from './commands/git/index.ts';
import { ptyCommands } from './commands/pty/index.ts';
import { shellCommands } from './commands/shell/index.ts';

/**
 * The rows that are quick and answer small, so they run the moment they arrive, never behind a heavy one
 * (handlers/rpc/scheduler.ts). Every other row is heavy: whole files, walks, searches, archives, processes.
 * Terminal output is not a reply: core/terminals flow-controls it on its own.
 */
export const LIGHT_COMMANDS: ReadonlySet<string> = new Set([
  'get_cwd',
  'file_exists',
  'create_file',
  'create_directory',
  'rename_entry',
  'delete_entry',
  ...Object.keys(ptyCommands),
  ...LIGHT_CHAT_COMMANDS,
]);

export const rpcCommands: ReadonlyMap<string, RpcCommand> = new Map<string, RpcCommand>(
  [
    ...Object.entries(ptyCommands),
    ...Object.entries(shellCommands),
    ...Object.entries(fileCommands),
    ...Object.entries(archiveCommands),
    ...Object.entries(gitCommands),
    ...Object.entries(chatCommands),
  ].map(([name, command]) => [name, LIGHT_COMMANDS.has(name) ? light(command) : command]),
);
