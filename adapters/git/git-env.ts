import { dirname } from 'node:path';
import { childEnv } from '../posix/child-env.ts';

/**
 * Variables that point git at one particular repository. The daemon may itself be started from inside a git
 * hook or a `git rebase --exec` (where git exports them); inherited, every call would act on THAT repository
 * instead of the folder it runs in. The list is `git rev-parse --local-env-vars` minus the config ones, which
 * are the user's settings and stay (git drops the same set when it runs a command in a submodule).
 */
const REPOSITORY_VARIABLES = [
  'GIT_DIR',
  'GIT_WORK_TREE',
  'GIT_IMPLICIT_WORK_TREE',
  'GIT_INDEX_FILE',
  'GIT_OBJECT_DIRECTORY',
  'GIT_ALTERNATE_OBJECT_DIRECTORIES',
  'GIT_COMMON_DIR',
  'GIT_GRAFT_FILE',
  'GIT_NO_REPLACE_OBJECTS',
  'GIT_REPLACE_REF_BASE',
  'GIT_PREFIX',
  'GIT_INTERNAL_SUPER_PREFIX',
  'GIT_SHALLOW_FILE',
  'GIT_NAMESPACE',
];

/** ssh that fails instead of asking for a password, a passphrase or a new host key. */
export const BATCH_MODE_SSH = 'ssh -o BatchMode=yes';

/**
 * The environment of every git process (docs/noide-protocol.md#git), on top of `base`:
 * - `LC_ALL=C`: messages in English whatever the user's locale, since callers and clients match on git's texts.
 * - `GIT_TERMINAL_PROMPT=0`: missing https credentials fail at once instead of waiting for a prompt nobody sees.
 * - `GIT_SSH_COMMAND="ssh -o BatchMode=yes"`, the same for ssh, UNLESS the user set GIT_SSH_COMMAND or GIT_SSH:
 *   that is a deliberate choice (a wrapper, a key) we must not replace, and ssh still cannot prompt because every
 *   git runs in a session of its own without a controlling terminal. Note git's order: this variable beats a
 *   `core.sshCommand` in the user's git config; who needs one sets GIT_SSH_COMMAND in the daemon's environment.
 * - `GIT_CEILING_DIRECTORIES=<parent of root>`: a repository above the workspace is never found or touched (it
 *   replaces a user's value: one lower down would hide the workspace's own repositories).
 * The repository-locating variables above are removed; `callEnv` comes last and wins.
 */
export function gitEnv(
  root: string,
  base: NodeJS.ProcessEnv,
  callEnv: Readonly<Record<string, string>> = {},
): Record<string, string> {
  const env = childEnv(base);
  for (const key of REPOSITORY_VARIABLES) delete env[key];
  env.LC_ALL = 'C';
  env.GIT_TERMINAL_PROMPT = '0';
  if (env.GIT_SSH_COMMAND === undefined && env.GIT_SSH === undefined) env.GIT_SSH_COMMAND = BATCH_MODE_SSH;
  env.GIT_CEILING_DIRECTORIES = dirname(root);
  return Object.assign(env, callEnv);
}
