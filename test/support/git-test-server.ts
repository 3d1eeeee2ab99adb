import { realpathSync } from 'node:fs';
import { createGitProcess } from '../../adapters/git/git-process.ts';
import type { NodeServer, NodeServerOptions } from '../../runtime/node/server.ts';
import { startTestServer } from './rpc-client.ts';

/**
 * Who commits in tests, and when: the daemon's git inherits the machine's environment, and a fresh CI machine has
 * no `user.name` (git would refuse to commit) while a developer's has a signing key or hooks. The user's and the
 * system's config are kept out; dates are fixed so hashes and `%at` are exact.
 */
export const GIT_IDENTITY_ENV = {
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_AUTHOR_NAME: 'Ada Lovelace',
  GIT_AUTHOR_EMAIL: 'ada@example.com',
  GIT_COMMITTER_NAME: 'Ada Lovelace',
  GIT_COMMITTER_EMAIL: 'ada@example.com',
  GIT_AUTHOR_DATE: '1700000000 +0000',
  GIT_COMMITTER_DATE: '1700000000 +0000',
} as const;

/** A real server on `root` whose git runs with GIT_IDENTITY_ENV (and `env` on top). */
export function startGitTestServer(
  root: string,
  env: Record<string, string> = {},
  overrides: Partial<NodeServerOptions> = {},
): Promise<NodeServer> {
  const git = createGitProcess({ root: realpathSync(root), baseEnv: { ...process.env, ...GIT_IDENTITY_ENV, ...env } });
  return startTestServer(root, { git, ...overrides });
}
