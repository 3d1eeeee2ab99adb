/**
 * The git bench's corpus (bench/git.bench.ts): the kernel tree committed into a repo, `.bench-cache/linux-git`,
 * plus a history on top of it, and the working-tree states the figures need (clean; ~20 modified files and a few
 * untracked; one file whose change makes a ≈1 MiB diff), each made and undone here.
 *
 * Made once: a hard-link copy (`cp -al`) of `.bench-cache/linux-tree` (tree.bench's copy, whose top `.gitignore`
 * lacks Debian's `/*` and `!/debian/`, which would hide everything from `git add`), `git init`, `git add -A`, one
 * commit, then HISTORY_COMMITS commits of a few files each; all in a staging folder renamed when complete, so an
 * interrupted preparation is never reused.
 *
 * HARD LINKS: every file of the copy shares its inode with `.bench-cache/linux` and `linux-tree`. A file is never
 * written in place here: `replaceFile` writes a new file beside it and renames it over (git itself only reads the
 * working tree in what we run: add, commit, status, diff, log).
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { prepareTreeCorpus } from '../tree.bench.ts';
import { log } from './log.ts';
import { cacheDir } from './paths.ts';

export const gitCorpusDir = join(cacheDir, 'linux-git');
/** Commits on top of the import (the brief asks ≥ 60; git_log reads 50 of them). */
export const HISTORY_COMMITS = 64;
const FILES_PER_COMMIT = 3;
const BRANCH = 'main';
/** Modified files of the "dirty" status row, and the untracked entries beside them (a folder shows as `dir/`). */
export const DIRTY_FILE_COUNT = 20;
export const UNTRACKED = ['mm/bench-untracked.c', 'Documentation/bench-untracked.txt', 'bench-untracked/notes.txt'];
/** A 470 KiB C file: a changed line each makes a diff of ≈ 1 MiB (every line once `-`, once `+`). */
export const BIG_DIFF_FILE = 'drivers/net/ethernet/broadcom/tg3.c';

/** Git reads no user or system configuration (this machine's ~/.gitconfig and /etc/gitconfig), only the repo's. */
export const CONFIG_FREE = { GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' } as const;

/**
 * Our environment without any GIT_* variable (a GIT_DIR from a hook, the user's identity) and with CONFIG_FREE:
 * what the preparation and the bench's own untimed git calls run with.
 */
export function configFreeEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) if (value !== undefined && !key.startsWith('GIT_')) env[key] = value;
  return { ...env, ...CONFIG_FREE };
}

/** The fixed identity and clock of the preparation commits (commit `n` is one minute after `n - 1`). */
function identityEnv(n: number): Record<string, string> {
  const date = `${1_700_000_000 + n * 60} +0000`;
  return {
    GIT_AUTHOR_NAME: 'Bench Author',
    GIT_AUTHOR_EMAIL: 'bench@example.invalid',
    GIT_AUTHOR_DATE: date,
    GIT_COMMITTER_NAME: 'Bench Author',
    GIT_COMMITTER_EMAIL: 'bench@example.invalid',
    GIT_COMMITTER_DATE: date,
  };
}

export interface GitResult {
  code: number;
  stdout: Buffer;
  stderr: string;
}

/** Runs git in `cwd` from an argument array; resolves with whatever it exited with and everything it printed. */
export function runGit(cwd: string, args: readonly string[], env: Record<string, string>): Promise<GitResult> {
  return new Promise((resolve, reject) => {
    const child = spawn('git', args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, stdout: Buffer.concat(out), stderr: Buffer.concat(err).toString('utf8') }));
  });
}

/** `runGit`, failing on a non-zero exit. */
async function git(cwd: string, args: readonly string[], env: Record<string, string>): Promise<Buffer> {
  const result = await runGit(cwd, args, env);
  if (result.code !== 0) throw new Error(`git ${args.join(' ')} exited ${result.code}: ${result.stderr.trim()}`);
  return result.stdout;
}

/**
 * Replaces `file` by a new file with `content` (same mode), renamed over it: a hard-linked original, shared with
 * the other bench copies of the kernel tree, is never written through.
 */
export async function replaceFile(file: string, content: string | Buffer): Promise<void> {
  const { mode } = await stat(file);
  const next = `${file}.bench-new`;
  await writeFile(next, content, { mode: mode & 0o7777 });
  await rename(next, file);
}

/** `git ls-files` of a pathspec, sorted as git sorts (byte order): the same files on every machine. */
async function trackedFiles(repo: string, pathspec: string, env: Record<string, string>): Promise<string[]> {
  const out = await git(repo, ['ls-files', '-z', '--', pathspec], env);
  return out.toString('utf8').split('\0').filter(Boolean);
}

export interface GitCorpus {
  repo: string;
  /** Seconds the preparation took in this run (0 when the cached repo was reused). */
  preparedSeconds: number;
  /** The import commit's own seconds (`git add -A` + `git commit`); 0 when reused. */
  importSeconds: number;
}

/** `.bench-cache/linux-git`, made if missing (see the header). */
export async function prepareGitCorpus(linuxTree: string): Promise<GitCorpus> {
  if (existsSync(gitCorpusDir)) return { repo: gitCorpusDir, preparedSeconds: 0, importSeconds: 0 };
  const started = Date.now();
  const source = await prepareTreeCorpus(linuxTree);
  const staging = `${gitCorpusDir}.partial`;
  await rm(staging, { recursive: true, force: true });
  log(`git: hard-link copy of ${source} → ${staging}`);
  const cp = await new Promise<number | null>((resolve, reject) => {
    const child = spawn('cp', ['-al', source, staging], { stdio: 'inherit' });
    child.on('error', reject);
    child.on('exit', resolve);
  });
  if (cp !== 0) throw new Error(`cp -al exited ${cp}`);
  await dropHidingLines(join(staging, '.gitignore'));

  const base = configFreeEnv();
  // Preparation only: no fsync (an interrupted one is thrown away anyway).
  const quick = ['-c', 'core.fsync=none'];
  await git(staging, ['init', '-q', '-b', BRANCH], base);
  log('git: git add -A of the kernel tree, then the import commit (minutes on 2 cores)');
  const importStarted = Date.now();
  await git(staging, [...quick, 'add', '-A'], base);
  await git(staging, [...quick, 'commit', '-q', '--no-verify', '-m', 'Import Linux 6.1 source'], { ...base, ...identityEnv(0) });
  const importSeconds = (Date.now() - importStarted) / 1000;
  log(`git: import commit in ${importSeconds.toFixed(0)} s; ${HISTORY_COMMITS} history commits next`);

  const candidates = await trackedFiles(staging, 'kernel/*.c', base);
  for (let n = 1; n <= HISTORY_COMMITS; n++) {
    const files = Array.from({ length: FILES_PER_COMMIT }, (_, k) => candidates[((n - 1) * FILES_PER_COMMIT + k) % candidates.length]!);
    for (const [k, file] of files.entries()) await replaceFile(join(staging, file), historyEdit(await readFile(join(staging, file), 'utf8'), n, k));
    await git(staging, [...quick, 'add', '--', ...files], base);
    await git(staging, [...quick, 'commit', '-q', '--no-verify', '-m', `bench history ${n}: touch ${files.length} files`], { ...base, ...identityEnv(n) });
  }
  const left = await git(staging, ['status', '--porcelain'], base);
  if (left.length > 0) throw new Error(`git: the prepared repo is not clean:\n${left.toString('utf8').slice(0, 500)}`);
  await rename(staging, gitCorpusDir);
  const preparedSeconds = (Date.now() - started) / 1000;
  log(`git: ${gitCorpusDir} ready in ${preparedSeconds.toFixed(0)} s`);
  return { repo: gitCorpusDir, preparedSeconds, importSeconds };
}

/** The lines of Debian's top-level .gitignore that hide the whole tree (tree.bench drops them from its copy too). */
const HIDING_LINES = new Set(['/*', '!/debian/']);

async function dropHidingLines(gitignore: string): Promise<void> {
  const lines = (await readFile(gitignore, 'utf8')).split('\n');
  if (lines.some((line) => HIDING_LINES.has(line.trim()))) await replaceFile(gitignore, lines.filter((line) => !HIDING_LINES.has(line.trim())).join('\n'));
}

/**
 * History commit `n`'s change to its `k`-th file: a few lines added after the first line, and from the second
 * time a file is touched on, the previous bench block replaced, so the log's numstat has deletions too.
 */
function historyEdit(text: string, n: number, k: number): string {
  const lines = text.split('\n');
  const block = Array.from({ length: 2 + ((n + k) % 4) }, (_, i) => `/* bench history ${n}.${k}: line ${i} */`);
  const previous = lines.findIndex((line) => line.startsWith('/* bench history '));
  if (previous >= 0) {
    let end = previous;
    while (end < lines.length && lines[end]!.startsWith('/* bench history ')) end++;
    lines.splice(previous, end - previous, ...block);
  } else {
    lines.splice(1, 0, ...block);
  }
  return lines.join('\n');
}

/** The tracked files the "dirty" row modifies: the first DIRTY_FILE_COUNT of `mm/*.c` (the history touches kernel/). */
export async function dirtyFiles(repo: string, env: Record<string, string>): Promise<string[]> {
  return (await trackedFiles(repo, 'mm/*.c', env)).slice(0, DIRTY_FILE_COUNT);
}

/** ~20 modified files (two lines changed, one added each) and the UNTRACKED entries. */
export async function makeDirty(repo: string, env: Record<string, string>): Promise<void> {
  for (const file of await dirtyFiles(repo, env)) {
    const lines = (await readFile(join(repo, file), 'utf8')).split('\n');
    const middle = lines.length >> 1;
    lines[middle] = `${lines[middle]} /* bench dirty */`;
    lines.splice(middle + 10, 0, '/* bench dirty: a new line */');
    lines[0] = `${lines[0]} /* bench */`;
    await replaceFile(join(repo, file), lines.join('\n'));
  }
  for (const file of UNTRACKED) {
    await mkdir(dirname(join(repo, file)), { recursive: true });
    await writeFile(join(repo, file), `untracked ${file}\n`);
  }
}

/** BIG_DIFF_FILE with every line changed; returns nothing, the diff is measured by the bench. */
export async function makeBigDiff(repo: string): Promise<void> {
  const text = await readFile(join(repo, BIG_DIFF_FILE), 'utf8');
  await replaceFile(join(repo, BIG_DIFF_FILE), text.replace(/\n/g, ' /* b */\n'));
}

/**
 * Undoes makeDirty and makeBigDiff (also after an interrupted run): each file the bench changes gets its HEAD
 * content back (replaced, as always), the untracked entries go. Then an untimed `git status` refreshes the index
 * (the restored files' new stat data), and the tree must be clean.
 */
export async function restoreClean(repo: string, env: Record<string, string>): Promise<void> {
  for (const file of [...(await dirtyFiles(repo, env)), BIG_DIFF_FILE]) {
    await rm(join(repo, `${file}.bench-new`), { force: true }); // an interrupted replaceFile's
    const head = await git(repo, ['cat-file', 'blob', `HEAD:${file}`], env);
    const now = await readFile(join(repo, file));
    if (!now.equals(head)) await replaceFile(join(repo, file), head);
  }
  for (const file of UNTRACKED) await rm(join(repo, file), { force: true });
  await rm(join(repo, 'bench-untracked'), { recursive: true, force: true });
  const status = await git(repo, ['status', '--porcelain'], env);
  if (status.length > 0) {
    throw new Error(`git: ${repo} is not clean after restoring (delete it to prepare it again):\n${status.toString('utf8').slice(0, 500)}`);
  }
}

/** Run on its own: `node --import tsx bench/lib/git-repo-corpus.ts` prepares the repo. */
if (import.meta.url === `file://${process.argv[1]}`) {
  const { linuxTree } = await import('./paths.ts');
  const corpus = await prepareGitCorpus(linuxTree);
  log(`git corpus: ${corpus.repo} (prepared in ${corpus.preparedSeconds.toFixed(0)} s, import ${corpus.importSeconds.toFixed(0)} s)`);
}
