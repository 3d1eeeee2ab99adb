/**
 * `/ws` rows that make or unmake commits and stashes, and talk to remotes (docs/noide-protocol.md#git-commands): git_commit,
 * git_undo_commit, git_revert, git_stash, git_stash_pop, git_push, git_fetch, git_pull.
 */
import { z } from 'zod';
import { checkCommit } from '../../../../core/git/git-args.ts';
import { commit, revert, stash, stashPop, undoCommit, verifyCommit } from '../../../../core/git/history-ops.ts';
import { fetchAll, pull, push } from '../../../../core/git/remote-ops.ts';
import { defineCommand, type RpcCommand } from '../../command.ts';
import { gitFolder, repoOf } from './repo-at.ts';
import { repoCommand, reply } from './rows.ts';

export const gitHistoryCommands = {
  git_commit: defineCommand({
    args: { path: z.string(), message: z.string(), amend: z.boolean().optional() },
    async run({ path, message, amend }, { ctx, connection }) {
      return reply(await commit(await repoOf(await gitFolder(ctx, path, connection.signal)), message, amend === true));
    },
  }),

  git_revert: defineCommand({
    args: { path: z.string(), commit: z.string() },
    async run({ path, commit: hash }, { ctx, connection }) {
      const at = await gitFolder(ctx, path, connection.signal);
      const checked = checkCommit(hash);
      const repo = await repoOf(at);
      await verifyCommit(repo, checked);
      return reply(await revert(repo, checked));
    },
  }),

  git_undo_commit: repoCommand(undoCommit),
  git_stash: repoCommand(stash),
  git_stash_pop: repoCommand(stashPop),
  git_push: repoCommand(push),
  git_fetch: repoCommand(fetchAll),
  git_pull: repoCommand(pull),
} satisfies Record<string, RpcCommand>;
