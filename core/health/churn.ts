/**
 * Churn for health (docs/intentic-projects.md#health): the scope's `git log --numstat` in the window, merges left out, a
 * binary file's `-` counted 0. Per file: commits, lines added and deleted, and the latest committer time (ms).
 *
 * Output format, one record per commit: U+001E, the committer time (%ct), NUL, then with `-z` the numstat records
 * `ADDED\tDELETED\tPATH\0`, or `ADDED\tDELETED\t\0OLD\0NEW\0` for a rename (counted under its new path, as
 * `git log --numstat` shows it). `--relative` makes paths relative to the folder git runs in and keeps to it.
 */
import { GitFolderError, type GitOutput, type GitRunner, type GitRunOptions } from '../git/git-runner.ts';
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

/** One commit of that log: its committer time and the numstat of each file (paths prefixed, see parseChurnLog). */
export interface ChurnCommit {
  timeMs: number;
  files: { path: string; adds: number; dels: number }[];
}

/** That log's output → its commits, each path prefixed with `prefix` (the folder git ran in, root-relative, '' for the root). */
export function parseChurnLog(stdout: Uint8Array, prefix: string): ChurnCommit[] {
  const commits: ChurnCommit[] = [];
  const lead = prefix === '' ? '' : prefix + '/';
  for (const record of decodeGitText(stdout).split('\x1e')) {
    const headerEnd = record.indexOf('\0');
    if (headerEnd < 0) continue;
    const timeMs = Number(record.slice(0, headerEnd)) * 1000;
    if (!Number.isFinite(timeMs)) continue;
    const commit: ChurnCommit = { timeMs, files: [] };
    const fields = record.slice(headerEnd + 1).replace(/^\n/, '').split('\0');
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
      commit.files.push({ path: lead + path, adds: count(field.slice(0, firstTab)), dels: count(field.slice(firstTab + 1, secondTab)) });
    }
    commits.push(commit);
  }
  return commits;
}

/** Churn per path over the commits no older than `sinceMs` (to the millisecond; undefined: all of them). */
export function tallyChurn(commits: readonly ChurnCommit[], sinceMs?: number): Map<string, FileChurn> {
  const churn = new Map<string, FileChurn>();
  for (const commit of commits) {
    if (sinceMs !== undefined && commit.timeMs < sinceMs) continue;
    const counted = new Set<string>();
    for (const { path, adds, dels } of commit.files) {
      let entry = churn.get(path);
      if (entry === undefined) {
        entry = { commits: 0, adds: 0, dels: 0, latestMs: 0 };
        churn.set(path, entry);
      }
      entry.adds += adds;
      entry.dels += dels;
      if (!counted.has(path)) {
        entry.commits++;
        counted.add(path);
      }
      entry.latestMs = Math.max(entry.latestMs, commit.timeMs);
    }
  }
  return churn;
}

/** That log's output → churn per path (see parseChurnLog and tallyChurn). */
export function parseChurn(stdout: Uint8Array, prefix: string, sinceMs?: number): Map<string, FileChurn> {
  return tallyChurn(parseChurnLog(stdout, prefix), sinceMs);
}

/** Runs the log in `cwd` (prefix: its root-relative path); a folder that is no repo, or has no commit, has no churn. */
export async function readChurn(git: GitRunner, cwd: string, prefix: string, sinceMs?: number): Promise<Map<string, FileChurn>> {
  const output = await runInFolder(git, churnArgs(sinceMs), { cwd });
  if (output.code !== 0) return new Map();
  return parseChurn(output.stdout, prefix, sinceMs);
}

/**
 * Churn that runs the log again only when history moved. Committed history is fixed for a given HEAD, so a
 * folder's parsed log is kept with the HEAD it was read at and the oldest time it covers; a later call at the
 * same HEAD whose window starts no earlier is tallied from it (on the kernel the log itself takes ~12 s). One
 * `git rev-parse` per call checks HEAD.
 */
export class ChurnReader {
  readonly #logs = new Map<string, { head: string; sinceMs: number | undefined; commits: ChurnCommit[] }>();

  constructor(private readonly git: GitRunner) {}

  async read(cwd: string, prefix: string, sinceMs?: number): Promise<Map<string, FileChurn>> {
    const head = await runInFolder(this.git, ['rev-parse', '-q', '--verify', 'HEAD'], { cwd });
    if (head.code !== 0) {
      this.#logs.delete(cwd);
      return new Map(); // not a repo, or no commit yet
    }
    const sha = decodeGitText(head.stdout).trim();
    const kept = this.#logs.get(cwd);
    if (kept && kept.head === sha && (kept.sinceMs === undefined || (sinceMs !== undefined && sinceMs >= kept.sinceMs))) {
      return tallyChurn(kept.commits, sinceMs);
    }
    const output = await runInFolder(this.git, churnArgs(sinceMs), { cwd });
    if (output.code !== 0) return new Map();
    const commits = parseChurnLog(output.stdout, prefix);
    this.#logs.set(cwd, { head: sha, sinceMs, commits });
    return tallyChurn(commits, sinceMs);
  }
}

/**
 * git in `cwd`, where a folder that is gone (or became a file) since the scope was resolved is no repo, like a folder
 * git does not know: git cannot start there (GitFolderError), and the scope then simply has no churn — not a 500.
 */
async function runInFolder(git: GitRunner, args: readonly string[], options: GitRunOptions): Promise<GitOutput> {
  try {
    return await git.run(args, options);
  } catch (error) {
    if (error instanceof GitFolderError) return { code: 128, stdout: new Uint8Array(), stderr: error.message };
    throw error;
  }
}

function count(field: string): number {
  return /^\d+$/.test(field) ? Number(field) : 0;
}
