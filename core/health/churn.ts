/**
 * Churn for health (seeds/001-project.md): the scope's `git log --numstat` in the window, merges left out, a
 * binary file's `-` counted 0. Per file: commits, lines added and deleted, and the latest committer time (ms).
 *
 * Output format, one record per commit: U+001E, the committer time (%ct), NUL, then with `-z` the numstat records
 * `ADDED\tDELETED\tPATH\0`, or `ADDED\tDELETED\t\0OLD\0NEW\0` for a rename (counted under its new path, as
 * `git log --numstat` shows it). `--relative` makes paths relative to the folder git runs in and keeps to it.
 */
import type { GitRunner } from '../git/git-runner.ts';
import { decodeGitText } from '../git/git-output-rules.ts';

export interface FileChurn {
  commits: number;
  adds: number;
  dels: number;
  latestMs: number;
}

export const CHURN_FORMAT = '--format=%x1e%ct';

/** The log's arguments; `sinceMs` (absolute, ms) bounds it by committer time, git counting in whole seconds. */
export function churnArgs(sinceMs: number | undefined): string[] {
  const args = ['log', '--no-merges', '--no-color', '--numstat', '-z', '--relative', CHURN_FORMAT];
  if (sinceMs !== undefined) args.push(`--since=@${Math.floor(sinceMs / 1000)}`);
  return args;
}

/**
 * That log's output → churn per path, each path prefixed with `prefix` (the folder git ran in, root-relative, ''
 * for the root). Commits older than `sinceMs` are dropped here too, to the millisecond.
 */
export function parseChurn(stdout: Uint8Array, prefix: string, sinceMs?: number): Map<string, FileChurn> {
  const churn = new Map<string, FileChurn>();
  const lead = prefix === '' ? '' : prefix + '/';
  for (const record of decodeGitText(stdout).split('\x1e')) {
    const headerEnd = record.indexOf('\0');
    if (headerEnd < 0) continue;
    const timeMs = Number(record.slice(0, headerEnd)) * 1000;
    if (!Number.isFinite(timeMs) || (sinceMs !== undefined && timeMs < sinceMs)) continue;
    const fields = record.slice(headerEnd + 1).replace(/^\n/, '').split('\0');
    const counted = new Set<string>();
    for (let i = 0; i < fields.length; i++) {
      const field = fields[i]!;
      const firstTab = field.indexOf('\t');
      const secondTab = field.indexOf('\t', firstTab + 1);
      if (firstTab < 0 || secondTab < 0) continue;
      let path = field.slice(secondTab + 1);
      if (path === '') {
        path = fields[i + 2] ?? '';
        i += 2;
        if (path === '') continue;
      }
      const key = lead + path;
      const entry = churn.get(key) ?? { commits: 0, adds: 0, dels: 0, latestMs: 0 };
      entry.adds += count(field.slice(0, firstTab));
      entry.dels += count(field.slice(firstTab + 1, secondTab));
      if (!counted.has(key)) {
        entry.commits++;
        counted.add(key);
      }
      entry.latestMs = Math.max(entry.latestMs, timeMs);
      churn.set(key, entry);
    }
  }
  return churn;
}

/** Runs the log in `cwd` (prefix: its root-relative path); a folder that is no repo, or has no commit, has no churn. */
export async function readChurn(git: GitRunner, cwd: string, prefix: string, sinceMs?: number): Promise<Map<string, FileChurn>> {
  const output = await git.run(churnArgs(sinceMs), { cwd });
  if (output.code !== 0) return new Map();
  return parseChurn(output.stdout, prefix, sinceMs);
}

function count(field: string): number {
  return /^\d+$/.test(field) ? Number(field) : 0;
}
