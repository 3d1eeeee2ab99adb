import type { RpcCommand } from '../../command.ts';

export const ptyCommands: Record<string, RpcCommand> = {};
