import type { RpcCommand } from '../../command.ts';

export const fileCommands: Record<string, RpcCommand> = {};
