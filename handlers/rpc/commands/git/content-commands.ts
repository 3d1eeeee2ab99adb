/**
 * `/ws` rows for file text and diffs (docs/noide-protocol.md#git-commands): get_git_diff, get_git_staged_diff, get_git_head_file,
 * git_show_index, git_commit_diff. Arguments are checked first (path, then file / commit), then the repo is found.
 */
import { z } from 'zod';
import { commitDiff, fileDiff, headFile, indexFile } from '../../../../core/git/content-ops.ts';
import { checkCommit, checkFile } from '../../../../core/git/git-args.ts';
import { verifyCommit } from '../../../../core/git/history-ops.ts';
import { defineCommand, RpcError, type RpcCommand } from '../../command.ts';
import { gitFolder, repoOf } from './repo-at.ts';
import { fileCommand, reply } from './rows.ts';

export const gitContentCommands = {
  get_git_diff: fileCommand((git, file) => fileDiff(git, file, false)),
  get_git_staged_diff: fileCommand((git, file) => fileDiff(git, file, true)),
  get_git_head_file: fileCommand(headFile),

  git_show_index: defineCommand({
    args: { path: z.string(), file: z.string() },
    async run({ path, file }, { ctx, connection }) {
      const at = await gitFolder(ctx, path, connection.signal);
      const checked = checkFile(file);
      // Any git failure is "", not being in a repo included (the seed's exception to git's own error).
      const repo = await repoOf(at).catch((error: unknown) => {
        if (error instanceof RpcError) return undefined;
        throw error;
      });
      return repo === undefined ? '' : indexFile(repo, checked);
    },
  }),

  git_commit_diff: defineCommand({
    args: { path: z.string(), commit: z.string() },
    async run({ path, commit }, { ctx, connection }) {
      const at = await gitFolder(ctx, path, connection.signal);
      const checked = checkCommit(commit);
      const repo = await repoOf(at);
      await verifyCommit(repo, checked);
      return reply(await commitDiff(repo, checked));
    },
  }),
} satisfies Record<string, RpcCommand>;
