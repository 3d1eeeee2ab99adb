import { decodeGitText } from './git-output-rules.ts';
import type { GitCommitInfo } from './git-shapes.ts';

/**
 * One header line per commit: U+001E (record separator) first, then %H %h %an %at %s split by U+001F. A numstat
 * line starts with a digit or `-`, never U+001E, and %s is one line (git folds the subject), so a header is a line
 * that starts with U+001E. The subject comes last and keeps any U+001F it holds.
 */
export const LOG_FORMAT = '--format=%x1e%H%x1f%h%x1f%an%x1f%at%x1f%s';

/** `log --no-color -N --format=… --numstat`, newest first: what git_log runs (limit already validated). */
export function logArgs(limit: number): string[] {
  return ['log', '--no-color', `-${limit}`, LOG_FORMAT, '--numstat'];
}

/**
 * That log's output → GitCommitInfo[]: per commit the sums of its numstat lines (`ADDED\tDELETED\tPATH`; a binary
 * file's `-\t-` adds 0). A merge has no numstat lines (log shows no diff for merges without -m): 0/0.
 */
export function parseLog(stdout: Uint8Array): GitCommitInfo[] {
  const commits: GitCommitInfo[] = [];
  let current: GitCommitInfo | undefined;
  for (const line of decodeGitText(stdout).split('\n')) {
    if (line.startsWith('\x1e')) {
      current = parseHeader(line.slice(1));
      if (current) commits.push(current);
      continue;
    }
    if (!current) continue;
    const [added, deleted] = line.split('\t', 2);
    if (deleted === undefined) continue; // the blank line between a header and its numstat
    current.insertions += count(added!);
    current.deletions += count(deleted);
  }
  return commits;
}

function parseHeader(header: string): GitCommitInfo | undefined {
  const [hash, shortHash, author, time, ...subject] = header.split('\x1f');
  if (subject.length === 0) return undefined;
  return {
    hash: hash!,
    shortHash: shortHash!,
    message: subject.join('\x1f'),
    author: author!,
    time: Number(time) || 0,
    insertions: 0,
    deletions: 0,
  };
}

function count(field: string): number {
  return /^\d+$/.test(field) ? Number(field) : 0;
}
