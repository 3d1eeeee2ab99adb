/**
 * `/ws` rows that move changes between the working tree and the index (docs/noide-protocol.md#git-commands): git_add,
 * git_stage_all, git_unstage, git_unstage_all, git_discard, git_discard_all, git_resolve_conflict.
 */
import { z } from 'zod';
import { checkFile } from '../../../../core/git/git-args.ts';
import {
  addFile,
  discardAll,
  discardFile,
  resolveConflict,
  stageAll,
  unstageAll,
  unstageFile,
} from '../../../../core/git/worktree-ops.ts';
import { defineCommand, type RpcCommand } from '../../command.ts';
import { gitFolder, repoOf } from './repo-at.ts';
import { fileCommand, repoCommand, reply } from './rows.ts';

export const gitWorktreeCommands = {
  git_add: fileCommand(addFile),
  git_stage_all: repoCommand(stageAll),
  git_unstage: fileCommand(unstageFile),
  git_unstage_all: repoCommand(unstageAll),
  git_discard_all: repoCommand(discardAll),

  git_discard: defineCommand({
    args: { path: z.string(), file: z.string() },
    async run({ path, file }, { ctx, connection }) {
      const at = await gitFolder(ctx, path, connection.signal);
      const checked = checkFile(file);
      const fs = { realpath: (p: string) => ctx.fs.realpath(p), remove: (p: string) => ctx.fs.remove(p, { recursive: true }) };
      return reply(await discardFile(await repoOf(at), checked, fs));
    },
  }),

  git_resolve_conflict: defineCommand({
    args: { path: z.string(), file: z.string(), side: z.string() },
    async run({ path, file, side }, { ctx, connection }) {
      const at = await gitFolder(ctx, path, connection.signal);
      const checked = checkFile(file);
      return reply(await resolveConflict(await repoOf(at), checked, side));
    },
  }),
} satisfies Record<string, RpcCommand>;
