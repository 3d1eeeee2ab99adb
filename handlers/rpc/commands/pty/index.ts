import type { RpcCommand } from '../../command.ts';
import { ptyAttach } from './attach.ts';
import { ptyDetach } from './detach.ts';
import { ptyKill } from './kill.ts';
import { ptyResize } from './resize.ts';
import { ptySpawn } from './spawn.ts';
import { ptyWrite } from './write.ts';

/** The protocol's terminal commands (docs/noide-protocol.md#terminals, plus `pty_attach` / `pty_detach` of its newer version). */
export const ptyCommands = {
  pty_spawn: ptySpawn,
  pty_write: ptyWrite,
  pty_resize: ptyResize,
  pty_kill: ptyKill,
  pty_attach: ptyAttach,
  pty_detach: ptyDetach,
} satisfies Record<string, RpcCommand>;
