/**
 * The result of every `/ws` command (docs/noide-protocol.md#the-protocol-document), by command: one entry per row
 * of handlers/rpc/command-table.ts, checked both ways by the tests, and checked by the type checker against what
 * each row's `run` returns (test/handlers/rpc/protocol-result-types.test.ts), so a schema cannot drift from the code.
 */
import type { RpcCommandName } from '../command-types.ts';
import { chatResults } from './chat-results.ts';
import { fileResults } from './file-results.ts';
import { gitResults } from './git-results.ts';
import type { ResultEntry } from './result-entry.ts';
import { terminalResults } from './terminal-results.ts';

export const rpcResults = {
  ...terminalResults,
  ...fileResults,
  ...gitResults,
  ...chatResults,
} satisfies Record<RpcCommandName, ResultEntry>;

export type RpcResultSchemas = typeof rpcResults;
