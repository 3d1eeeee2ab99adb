import type { WatcherAdapter } from '../../adapters/watcher/watcher-adapter.ts';
import type { ChangeFeed } from '../../core/changes/change-feed.ts';
import { gitStateSource, type GitStateSource } from '../../core/changes/git-state-source.ts';
import { observedSource } from '../../core/changes/observed-source.ts';
import { watcherSource } from '../../core/changes/watcher-source.ts';
import type { FilesPart } from './files.ts';

/**
 * The OS watcher's two sources on the change feed (Node): changes made outside the API (a shell, an editor), and
 * git state, one `<repo>/.git` change per commit, checkout, merge or stash (docs/workspace-files.md#changes).
 * Returns the git state source, which also hears every change the feed gets (a new folder may be a new repo).
 */
export function startWatching(
  watcher: WatcherAdapter,
  files: FilesPart,
  changes: ChangeFeed,
  giveWay?: () => Promise<void> | undefined,
): GitStateSource {
  const gitState = gitStateSource({
    watcher,
    fs: files.fs,
    root: files.rootPath,
    exclude: files.excluded,
    onError: (error) => console.error(`workspace-api: git state may be stale: ${error.message}`),
  });
  const source = watcherSource({
    watcher,
    fs: files.fs,
    root: files.rootPath,
    // The agents folder is not the shared tree (its copies report through the API's own writes).
    ignorePaths: files.excluded,
    onError: (error) => console.error(`workspace-api: the file watcher may have missed changes: ${error.message}`),
    // Not filtered here: in-process consumers (the search file list flags ignored files) subscribe to the feed
    // itself; the streams clients read leave ignored paths out (core/changes/view-subscription.ts). The watcher
    // still never enters ignored folders: package stores by name, `.gitignore`d ones by the walk it starts with.
    gitignore: false,
    // Its walk for the `.gitignore`d folders waits while a search walks the tree (the first query after start).
    giveWay,
  });
  changes.attachSource(observedSource(source, (change) => gitState.notice(change))).catch((error: unknown) => {
    console.error(`workspace-api: changes made outside the API will not be reported: ${(error as Error).message}`);
  });
  changes.attachSource(gitState).catch((error: unknown) => {
    console.error(`workspace-api: git state changes will not be reported: ${(error as Error).message}`);
  });
  return gitState;
}
