/**
 * The protocol's shell commands (docs/noide-protocol.md#run_command): `run_command` runs one command through the
 * shell in the workspace root; `get_cwd` names the root, the folder the UI's absolute paths start from.
 */
import { z } from 'zod';
import { RpcError, defineCommand, type RpcCommand } from '../../command.ts';
import { commandOutputText } from './command-output.ts';

export const shellCommands = {
  run_command: defineCommand({
    args: { command: z.string() },
    async run({ command }, { ctx, connection }) {
      if (!ctx.processes) throw new RpcError('run_command is not available on this runtime');
      const { commandTimeoutMs, commandOutputCap } = ctx.limits;
      let result;
      try {
        result = await ctx.processes.run({
          command,
          cwd: ctx.root,
          timeoutMs: commandTimeoutMs,
          maxOutputBytes: commandOutputCap,
          // The client hanging up kills the command: nobody is left to read its answer.
          signal: connection.signal,
        });
      } catch (error) {
        throw new RpcError(`Failed to run command: ${(error as Error).message}`);
      }
      if (result.timedOut) throw new RpcError(`Command timed out after ${commandTimeoutMs / 1000} s`);
      // Whatever the exit code: the output is the answer, as a terminal would show it.
      return commandOutputText(result.output, result.truncated);
    },
  }),

  get_cwd: defineCommand({
    args: {},
    run(_args, { ctx }) {
      return ctx.root;
    },
  }),
} satisfies Record<string, RpcCommand>;
