import type { RpcCommand } from '../../command.ts';

export const shellCommands: Record<string, RpcCommand> = {};
