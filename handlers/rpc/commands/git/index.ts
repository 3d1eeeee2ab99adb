/**
 * The protocol's 28 git commands (docs/noide-protocol.md#git-commands), over the GitRunner: here the ones that read the repo's
 * state — get_git_status, git_log, git_stash_list — and git_init; the others by family in the files beside this one,
 * their git semantics in core/git/*-ops.ts.
 */
import { z } from 'zod';
import { decodeGitText, textRule } from '../../../../core/git/git-output-rules.ts';
import { logArgs, parseLog } from '../../../../core/git/parse-log.ts';
import { parseNumstatZ, STAGED_NUMSTAT_ARGS, worktreeNumstatArgs } from '../../../../core/git/parse-numstat.ts';
import { parseStashList, STASH_LIST_ARGS } from '../../../../core/git/parse-stash.ts';
import { needsStagedStats, needsWorktreeStats, parseStatus, STATUS_ARGS, withStats, worktreeChangedPaths } from '../../../../core/git/parse-status.ts';
import { GitFolderError } from '../../../../core/git/git-runner.ts';
import { clipped, defineCommand, RpcError, type RpcCommand } from '../../command.ts';
import { PATH_DOES_NOT_EXIST } from '../files/protocol-texts.ts';
import { gitBranchCommands } from './branch-commands.ts';
import { gitContentCommands } from './content-commands.ts';
import { gitHistoryCommands } from './history-commands.ts';
import { gitFolder, gitRepoAt, type GitRepo } from './repo-at.ts';
import { gitWorktreeCommands } from './worktree-commands.ts';

/** An optional arg of the wrong type counts as absent (§002), so `limit: "10"` is the default. */
const DEFAULT_LOG_LIMIT = 50;

export const gitCommands = {
  get_git_status: defineCommand({
    args: { path: z.string() },
    async run({ path }, { ctx, connection }) {
      const repo = await gitRepoAt(ctx, path, connection.signal);
      if (repo === undefined) throw new RpcError('not a git repository');
      const status = await repo.run(STATUS_ARGS);
      if (status.code !== 0) throw new RpcError(textRule(status).text);
      const parsed = parseStatus(status.stdout);
      // Stats only for what is listed: a clean tree costs no diff at all (the benchmark's 1.3x goal).
      const [worktree, staged] = await Promise.all([
        needsWorktreeStats(parsed) ? numstat(repo, worktreeNumstatArgs(worktreeChangedPaths(parsed))) : undefined,
        needsStagedStats(parsed) ? numstat(repo, STAGED_NUMSTAT_ARGS) : undefined,
      ]);
      return withStats(parsed, worktree, staged);
    },
  }),

  git_log: defineCommand({
    // `limit: 0` is git's `-0`: no commits.
    args: { path: z.string(), limit: z.number().int().min(0).optional().catch(undefined) },
    async run({ path, limit }, { ctx, connection }) {
      const repo = await gitRepoAt(ctx, path, connection.signal);
      if (repo === undefined) return [];
      const log = await repo.run(logArgs(limit ?? DEFAULT_LOG_LIMIT));
      return log.code === 0 ? parseLog(log.stdout) : []; // no HEAD yet: []
    },
  }),

  git_stash_list: defineCommand({
    args: { path: z.string() },
    async run({ path }, { ctx, connection }) {
      const repo = await gitRepoAt(ctx, path, connection.signal);
      if (repo === undefined) return [];
      const list = await repo.run(STASH_LIST_ARGS);
      return list.code === 0 ? parseStashList(list.stdout) : [];
    },
  }),

  git_init: defineCommand({
    args: { path: z.string() },
    async run({ path }, { ctx, connection }) {
      const at = await gitFolder(ctx, path, connection.signal);
      let output;
      try {
        output = await at.run(['init']);
      } catch (error) {
        // `init` runs in `path` itself, which must be a folder already (it is not made here).
        if (error instanceof GitFolderError) throw new RpcError(error.reason === 'missing' ? PATH_DOES_NOT_EXIST : `Not a folder: ${clipped(path)}`);
        throw error;
      }
      const answer = textRule(output);
      if (!answer.ok) throw new RpcError(answer.text);
      await ctx.gitState?.refresh(); // the file watcher never reports a `.git`: the change feed learns of it here
      // The seed's answer is git's one line; the default-branch hints git prints on stderr when init.defaultBranch
      // is unset are not part of it.
      return decodeGitText(output.stdout).trim();
    },
  }),

  ...gitContentCommands,
  ...gitWorktreeCommands,
  ...gitHistoryCommands,
  ...gitBranchCommands,
} satisfies Record<string, RpcCommand>;

async function numstat(repo: GitRepo, args: readonly string[]) {
  const output = await repo.run(args);
  return output.code === 0 ? parseNumstatZ(output.stdout) : undefined; // errors → {}
}

