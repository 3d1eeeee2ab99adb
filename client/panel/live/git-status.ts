import type { RpcResult } from '../../../handlers/rpc/command-types.ts';
import { WorkspaceClientError } from '../../http-client.ts';
import { RpcCallError, RpcDisconnectedError } from '../../rpc-client.ts';
import { debounce } from '../shared/debounce.ts';
import { messageOf } from '../shared/errors.ts';
import type { PanelContext } from '../shell/panel-context.ts';

/** What `get_git_status` answers (docs/noide-protocol.md#git-commands), typed by the command's own row. */
type GitStatusAnswer = RpcResult<'get_git_status'>;

/** After a git frame (a commit, checkout…) and after file changes, read again once things are quiet. */
const AFTER_GIT_MS = 100;
const AFTER_CHANGE_MS = 300;
/** A steady writer (a log, a build) never leaves things quiet: badges are read at least this often meanwhile. */
const MAX_WAIT_MS = 2000;

/**
 * Git badges: reads `get_git_status` over `/ws` for the root's repo (`.`) and every repo `GET /workspace/repos`
 * lists (their paths prefixed with the repo's folder), and tells the panel `git-status` with root-relative path →
 * one letter. Read on mount, after a git frame of the change feed, and after file changes (debounced, but never
 * postponed more than 2 s). A root
 * that is no repo, or a runtime without git, means no badges and no error.
 *
 * Codes: `!` conflict (unmerged), `A` added (staged as new, even if edited since), else the worktree's letter
 * (`M` modified, `D` deleted, `U` untracked), else the index's (`M`, `D`, `R` renamed, `C` copied, `T` type).
 * An untracked folder is listed once, under its folder's path (no trailing `/`).
 */
export function mountGitStatus(ctx: PanelContext): void {
  // Git status comes over /ws from the git CLI: a runtime without either has no badges to show.
  if (!ctx.capabilities.webSockets || !ctx.capabilities.git) return;
  let repos: string[] | undefined;
  let running: Promise<void> | undefined;
  let again = false;
  let stopped = false;
  let lastError = '';

  const later = debounce(() => void refresh(), AFTER_CHANGE_MS, { maxWaitMs: MAX_WAIT_MS });
  const schedule = (ms: number) => {
    if (!stopped) later.schedule(ms);
  };

  const refresh = async (): Promise<void> => {
    if (running) {
      again = true;
      return;
    }
    running = (async () => {
      try {
        repos ??= await listRepos(ctx);
        const files = new Map<string, string>();
        for (const repo of repos) {
          const status = await readStatus(ctx, repo);
          if (status) addCodes(files, repo, status);
        }
        lastError = '';
        ctx.events.emit('git-status', { files });
      } catch (error) {
        if (error instanceof RpcDisconnectedError) return; // read again when the socket is back (onState)
        const message = `Git status: ${messageOf(error)}`;
        if (message !== lastError) ctx.status(message, 'error');
        lastError = message;
      }
    })();
    await running;
    running = undefined;
    if (again) {
      again = false;
      schedule(0);
    }
  };

  ctx.events.on('git-change', () => {
    repos = undefined; // a clone or a new repo shows as a git frame too
    schedule(AFTER_GIT_MS);
  });
  ctx.events.on('fs-change', () => schedule(AFTER_CHANGE_MS));
  ctx.events.on('unauthorized', () => {
    stopped = true;
    later.cancel();
  });
  let wasOpen = false;
  ctx.rpc().onState((state) => {
    if (state === 'open' && wasOpen) schedule(0); // reconnected: what happened meanwhile
    if (state === 'open') wasOpen = true;
  });
  schedule(0);
}

async function listRepos(ctx: PanelContext): Promise<string[]> {
  try {
    const { repos } = await ctx.client.call('GET /workspace/repos');
    return ['.', ...repos];
  } catch (error) {
    // No repo listing on this runtime (404, 501): the root's own repo still counts. Anything else is said.
    if (!(error instanceof WorkspaceClientError && (error.status === 404 || error.status === 501 || error.status === 401))) {
      ctx.status(`Git status: could not list the repositories (${messageOf(error)}); showing the root's only`, 'error');
    }
    return ['.'];
  }
}

/** A repo's status, or undefined when it is no repo (or git is not there). */
async function readStatus(ctx: PanelContext, repo: string): Promise<GitStatusAnswer | undefined> {
  try {
    return await ctx.rpc().call('get_git_status', { path: repo });
  } catch (error) {
    if (error instanceof RpcCallError && /not a git repository|not available/i.test(error.message)) return undefined;
    throw error;
  }
}

function addCodes(files: Map<string, string>, repo: string, status: GitStatusAnswer): void {
  const prefix = repo === '.' ? '' : `${repo}/`;
  const put = (path: string, code: string) => {
    const key = prefix + path.replace(/\/$/, '');
    if (!files.has(key)) files.set(key, code);
  };
  for (const path of status.unmerged) put(path, '!');
  for (const [path, letter] of Object.entries(status.stagedDetails)) if (letter === 'A') put(path, 'A');
  for (const path of status.untracked) put(path, 'U');
  for (const [path, letter] of Object.entries(status.worktreeDetails)) put(path, letter);
  for (const path of status.modified) put(path, 'M');
  for (const path of status.deleted) put(path, 'D');
  for (const [path, letter] of Object.entries(status.stagedDetails)) put(path, letter);
  for (const path of status.staged) put(path, 'M');
}
