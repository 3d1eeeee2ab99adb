/**
 * Which changes a change stream leaves out by default: those at or below what tooling ignores — `.git`
 * internals, `node_modules` and the other package stores, virtualenvs, and what the `.gitignore` files (every
 * level) and `.git/info/exclude` exclude; the same rules `/workspace/tree` marks `ignored: true` with
 * (core/ignore). Whoever wrote it — the API, a shell, an editor — a write there is not news to a client
 * following the workspace's own files (docs/workspace-files.md#changes).
 *
 * Always kept: a repo's git entry itself (`<repo>/.git`), which is how git state is reported (one change per
 * commit, checkout, …; core/changes/git-state-source.ts), wherever the repo is.
 *
 * Live: the changes a stream sees go through `notice` first, and a changed `.gitignore` (or `pyvenv.cfg`, or
 * `.git/info/exclude`) drops the cached rules of its folder, so the next change is judged by the new rules.
 */
import type { FileSystem } from '../../adapters/fs/file-system.ts';
import { isInside, relativeTo } from '../../adapters/fs/posix-path.ts';
import { createIgnoreRules, staleRulesFolder, type IgnoreRules } from '../ignore/ignore-rules.ts';
import type { Change } from './change-feed.ts';

export interface IgnoredChanges {
  /** Whether `change` is at or below an ignored path (false outside the root, and for a repo's `.git` entry). */
  isIgnored(change: Change): Promise<boolean>;
  /** Every change seen, before `isIgnored` is asked about later ones: a changed rules file takes effect. */
  notice(change: Change): void;
  /** Forgets every cached rule (after a resync, when rules files may have changed unseen). */
  reset(): void;
}

/** A judge in use, and how many subscriptions use it. */
interface SharedJudge {
  judge: IgnoredChanges;
  users: number;
}

/** The judges in use, by FileSystem, then root: one view's subscriptions share one (see `sharedIgnoredChanges`). */
const judges = new WeakMap<FileSystem, Map<string, SharedJudge>>();

/**
 * The one judge of every subscription to the same view (its FileSystem and root), until the last of them
 * releases it. Each subscription is asked about every change, and a judge remembers what it was asked (bounded:
 * core/ignore/ignore-rules.ts): a judge each, a hundred subscribers held a hundred copies of the same answers and
 * probed the disk a hundred times per changed path. Shared, they read the same rules from the same disk: a
 * changed rules file is forgotten by the first subscriber that sees its change. With no subscriber left nobody
 * sees changes, so the judge goes, and the next subscription starts from the disk as it is then. (One window is
 * left: a subscription that starts while the others have not reached a rules file's change yet is judged by the
 * rules they still hold until they do.)
 */
export function sharedIgnoredChanges(fs: FileSystem, root: string): IgnoredChanges & { release(): void } {
  let byRoot = judges.get(fs);
  if (!byRoot) {
    byRoot = new Map();
    judges.set(fs, byRoot);
  }
  let shared = byRoot.get(root);
  if (!shared) {
    shared = { judge: ignoredChanges(fs, root), users: 0 };
    byRoot.set(root, shared);
  }
  shared.users++;
  const { judge } = shared;
  let released = false;
  return {
    isIgnored: (change) => judge.isIgnored(change),
    notice: (change) => judge.notice(change),
    reset: () => judge.reset(),
    release() {
      if (released) return;
      released = true;
      if (--shared.users === 0 && byRoot.get(root) === shared) byRoot.delete(root);
    },
  };
}

export function ignoredChanges(fs: FileSystem, root: string): IgnoredChanges {
  let rules: IgnoreRules = createIgnoreRules(fs, root, { longLived: true });

  async function isIgnored(change: Change): Promise<boolean> {
    const path = change.absolutePath;
    if (path === root || !isInside(root, path)) return false;
    const relPath = relativeTo(root, path);
    if (relPath === '.git' || relPath.endsWith('/.git')) return false;
    try {
      // Folders on the way are folders; only the entry's own kind is open. A directory-only pattern (`build/`)
      // decides for a folder alone: a present entry is looked at, an absent one (`rm -r build`) counts as the
      // folder it most likely was.
      if (await rules.isIgnored(relPath, false)) return true;
      if (!(await rules.isIgnored(relPath, true))) return false;
      if ('absent' in change) return true;
      return (await fs.stat(path)).type === 'dir'; // a link counts as what it points to, as the tree lists it
    } catch {
      return false; // rules or an entry that cannot be read hide nothing
    }
  }

  return {
    isIgnored,
    notice(change) {
      const path = change.absolutePath;
      if (path === root || !isInside(root, path)) return;
      const folder = staleRulesFolder(relativeTo(root, path));
      if (folder !== undefined) rules.forget(folder);
    },
    reset() {
      rules = createIgnoreRules(fs, root, { longLived: true });
    },
  };
}
