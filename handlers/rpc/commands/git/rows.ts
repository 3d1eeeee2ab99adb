/**
 * What most git rows share: `path` checked first, then the `file` rule, then the repo found (git's own error outside
 * one), one operation at the repo's root, and its GitAnswer as the reply.
 */
import { z } from 'zod';
import { checkFile } from '../../../../core/git/git-args.ts';
import type { GitAnswer } from '../../../../core/git/git-output-rules.ts';
import type { RepoGit } from '../../../../core/git/repo-git.ts';
import { defineCommand, RpcError, type RpcCommand } from '../../command.ts';
import { gitFolder, repoOf } from './repo-at.ts';

/** A git command's answer as the reply: the text as `result`, or `{ok: false, error: text}`. */
export function reply(answer: GitAnswer): string {
  if (!answer.ok) throw new RpcError(answer.text);
  return answer.text;
}

/** A row taking `path` only; its result type (text) is kept for the typed client and the protocol document. */
export function repoCommand(operation: (git: RepoGit) => Promise<GitAnswer>): RpcCommand<{ path: string }, string> {
  return defineCommand({
    args: { path: z.string() },
    async run({ path }, { ctx, connection }) {
      return reply(await operation(await repoOf(await gitFolder(ctx, path, connection.signal))));
    },
  });
}

/** A row taking `path` and `file`. */
export function fileCommand(operation: (git: RepoGit, file: string) => Promise<GitAnswer>): RpcCommand<{ path: string; file: string }, string> {
  return defineCommand({
    args: { path: z.string(), file: z.string() },
    async run({ path, file }, { ctx, connection }) {
      const at = await gitFolder(ctx, path, connection.signal);
      const checked = checkFile(file);
      return reply(await operation(await repoOf(at), checked));
    },
  });
}
