/**
 * `/ws` rows over branches (docs/noide-protocol.md#git-commands): git_branch_list, git_checkout_branch, git_merge, git_merge_abort.
 */
import { z } from 'zod';
import { branchList, checkoutBranch, merge, mergeAbort } from '../../../../core/git/branch-ops.ts';
import { checkBranchName, checkFromRef } from '../../../../core/git/git-args.ts';
import { defineCommand, type RpcCommand } from '../../command.ts';
import { repoCommand, reply } from './rows.ts';
import { gitFolder, repoOf } from './repo-at.ts';

export const gitBranchCommands = {
  git_branch_list: defineCommand({
    args: { path: z.string() },
    async run({ path }, { ctx, connection }) {
      return branchList(await repoOf(await gitFolder(ctx, path, connection.signal)));
    },
  }),

  git_checkout_branch: defineCommand({
    args: { path: z.string(), name: z.string(), create: z.boolean().optional() },
    async run({ path, name, create }, { ctx, connection }) {
      const at = await gitFolder(ctx, path, connection.signal);
      const checked = checkBranchName(name);
      return reply(await checkoutBranch(await repoOf(at), checked, create === true));
    },
  }),

  git_merge: defineCommand({
    args: { path: z.string(), fromRef: z.string() },
    async run({ path, fromRef }, { ctx, connection }) {
      const at = await gitFolder(ctx, path, connection.signal);
      const checked = checkFromRef(fromRef);
      return merge(await repoOf(at), checked);
    },
  }),

  git_merge_abort: repoCommand(mergeAbort),
} satisfies Record<string, RpcCommand>;
