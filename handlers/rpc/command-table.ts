/**
 * The `/ws` command table (docs/noide-protocol.md, the NoIDE protocol): one row per command, grouped as the
 * protocol's reference groups them.
 */
import type { TokenScope } from '../../core/auth/scoped-token.ts';
import { light, RpcError, type RpcCommand } from './command.ts';
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

/**
 * What a read-only token may run over `/ws` (docs/architecture.md#scoped-tokens): commands that read files, the
 * listing and search, and git's reads. Not terminals or `run_command` (a shell writes anything), not `git_fetch`
 * (it writes refs), not chat (it runs an agent that writes).
 */
export const READ_COMMANDS: ReadonlySet<string> = new Set([
  'get_cwd',
  'read_file',
  'read_file_base64',
  'download_file',
  'read_directory',
  'list_files',
  'file_exists',
  'search_in_files',
  'get_git_status',
  'git_log',
  'git_stash_list',
  'get_git_diff',
  'get_git_staged_diff',
  'get_git_head_file',
  'git_show_index',
  'git_commit_diff',
  'git_branch_list',
]);

/**
 * The table a connection runs with: every row for the full token; for a scoped one (only read tokens reach `/ws`:
 * runtime/routes.ts) the reads, and every other row answers a refusal.
 */
export function commandsFor(scope: TokenScope | undefined): ReadonlyMap<string, RpcCommand> {
  if (scope === undefined) return rpcCommands;
  return (readOnlyTable ??= new Map([...rpcCommands].map(([name, command]) => [name, READ_COMMANDS.has(name) ? command : refused(name, command)])));
}

let readOnlyTable: ReadonlyMap<string, RpcCommand> | undefined;

/** Keeps the row's weight, so a refusal is answered in the order its command would have been. */
function refused(name: string, command: RpcCommand): RpcCommand {
  return {
    ...command,
    invoke: () => Promise.reject(new RpcError(`forbidden: a read-only token cannot run ${name}`)),
  };
}
