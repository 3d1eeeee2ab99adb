import { decodeGitText } from './git-output-rules.ts';
import type { GitStashInfo } from './git-shapes.ts';

/** %gd (`stash@{N}`), %at, then %gs (the reflog subject, e.g. `On main: WIP from NoIDE`) last, split by U+001F. */
export const STASH_FORMAT = '--format=%gd%x1f%at%x1f%gs';

/** What git_stash_list runs. */
export const STASH_LIST_ARGS: readonly string[] = ['stash', 'list', STASH_FORMAT];

/**
 * `stash list` with STASH_FORMAT → GitStashInfo[], newest first. The ref is git's %gd when it has the
 * `stash@{N}` form; a `--date`-style selector (`stash@{2024-…}`) cannot reach us, but were it there, the line's
 * position is the same N, so the ref is rebuilt from it.
 */
export function parseStashList(stdout: Uint8Array): GitStashInfo[] {
  const stashes: GitStashInfo[] = [];
  for (const line of decodeGitText(stdout).split('\n')) {
    const [selector, time, ...subject] = line.split('\x1f');
    if (subject.length === 0) continue;
    const index = stashes.length;
    stashes.push({
      ref: /^stash@\{\d+\}$/.test(selector!) ? selector! : `stash@{${index}}`,
      message: subject.join('\x1f'),
      time: Number(time) || 0,
    });
  }
  return stashes;
}
