/**
 * A repo's git state as one short string that changes when anything a branch or status consumer shows changes:
 * what HEAD says and the commit it resolves to (a commit, checkout, reset, merge), the index's size and mtime
 * (add, unstage, a checkout's rewrite), MERGE_HEAD and the other in-progress markers (merge, cherry-pick, revert,
 * rebase), refs/stash (stash push and pop), packed-refs (gc, a deleted branch) and every loose ref file the
 * watcher has named since watching began (a branch created or moved, a fetch's remote refs, tags).
 *
 * Read from the files, not from git: no process, no lock, and nothing is written, so computing it can never cause
 * the change it looks for. Edge-clean (FileSystem reads and a pure hash).
 */
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import type { FileSystem } from '../../adapters/fs/file-system.ts';
import { isFsError } from '../../adapters/fs/fs-error.ts';
import { isInside, join } from '../../adapters/fs/posix-path.ts';
import type { GitDirs } from './git-dir.ts';

/**
 * Loose refs remembered at most, per repo. Past it the longest-unchanged one is forgotten: if that ref is named
 * again it counts as new, which costs at most one needless "refresh" for consumers, never a missed one.
 */
export const MAX_NAMED_REFS = 1000;

/** Per-worktree markers whose presence alone is the state (their content changes with every step). */
const IN_PROGRESS_MARKERS = ['CHERRY_PICK_HEAD', 'REVERT_HEAD', 'REBASE_HEAD', 'rebase-merge', 'rebase-apply', 'BISECT_LOG'];
/** Symbolic refs followed at most (HEAD → refs/heads/x is one; git itself stops at 5). */
const MAX_SYMREF_HOPS = 5;
/** A ref file is one line; anything longer is not a ref and is read only this far. */
const MAX_REF_BYTES = 4096;

export class GitStateFingerprint {
  /** Ref file (absolute path) → its content, `-` when gone. Insertion order = recency of change. */
  private readonly namedRefs = new Map<string, string>();
  private packed: { stamp: string; refs: Map<string, string> } | undefined;

  constructor(
    private readonly fs: FileSystem,
    readonly dirs: GitDirs,
  ) {}

  /** Whether `path` (absolute) is a loose ref file of this repo (shared `refs/`, or a worktree's own). */
  isRefPath(path: string): boolean {
    return isInside(join(this.dirs.commonDir, 'refs'), path) || isInside(join(this.dirs.gitDir, 'refs'), path);
  }

  /** Reads the named ref files (absolute paths, `isRefPath`) now: their states are part of the fingerprint. */
  async noteRefs(paths: Iterable<string>): Promise<void> {
    for (const path of paths) {
      const state = await this.readRef(path);
      if (state === undefined) continue; // a folder (refs/heads/feature/): its files are named themselves
      if (this.namedRefs.get(path) === state) continue;
      this.namedRefs.delete(path);
      this.namedRefs.set(path, state);
      if (this.namedRefs.size > MAX_NAMED_REFS) this.namedRefs.delete(this.namedRefs.keys().next().value!);
    }
  }

  /** Re-reads every ref named so far (the watcher may have missed events). */
  async rereadRefs(): Promise<void> {
    await this.noteRefs([...this.namedRefs.keys()]);
  }

  /** The fingerprint (`git-` and 16 hex digits), or undefined when the git dir has no HEAD any more (gone). */
  async compute(): Promise<string | undefined> {
    const { gitDir, commonDir } = this.dirs;
    const head = await this.readText(join(gitDir, 'HEAD'));
    if (head === undefined) return undefined;
    const packedStamp = await this.stamp(join(commonDir, 'packed-refs'));
    const lines = [
      `HEAD ${head}`,
      `commit ${await this.resolve(head, packedStamp)}`,
      `index ${await this.stamp(join(gitDir, 'index'))}`,
      `MERGE_HEAD ${(await this.readText(join(gitDir, 'MERGE_HEAD'))) ?? '-'}`,
      `stash ${(await this.lookUp('refs/stash', packedStamp)) ?? '-'}`,
      `packed-refs ${packedStamp}`,
      // The reftable backend (git ≥ 2.45) keeps every ref in tables; this list names the current ones.
      `reftable ${(await this.readText(join(commonDir, 'reftable', 'tables.list'))) ?? '-'}`,
    ];
    for (const marker of IN_PROGRESS_MARKERS) if (await this.exists(join(gitDir, marker))) lines.push(`marker ${marker}`);
    for (const key of [...this.namedRefs.keys()].sort()) lines.push(`ref ${key} ${this.namedRefs.get(key)}`);
    return `git-${bytesToHex(sha256(new TextEncoder().encode(lines.join('\n')))).slice(0, 16)}`;
  }

  /** The commit HEAD's text ends at: a hash, or `-` (an unborn branch, a dangling symref). */
  private async resolve(head: string, packedStamp: string): Promise<string> {
    let text = head;
    for (let hop = 0; hop < MAX_SYMREF_HOPS && text.startsWith('ref: '); hop++) {
      text = (await this.lookUp(text.slice('ref: '.length).trim(), packedStamp)) ?? '-';
    }
    return text;
  }

  /** A ref's value: its loose file, else its packed-refs line. */
  private async lookUp(ref: string, packedStamp: string): Promise<string | undefined> {
    const loose = await this.readRef(this.refFile(ref));
    if (loose !== undefined && loose !== '-') return loose;
    return (await this.packedRefs(packedStamp)).get(ref);
  }

  /** Per-worktree refs (`refs/worktree/`, `refs/bisect/`) live in the worktree's git dir, the rest in the common one. */
  private refFile(ref: string): string {
    const own = ref.startsWith('refs/worktree/') || ref.startsWith('refs/bisect/');
    return join(own ? this.dirs.gitDir : this.dirs.commonDir, ref);
  }

  /** packed-refs parsed, once per version of the file (a big repo's can be megabytes). */
  private async packedRefs(stamp: string): Promise<Map<string, string>> {
    if (this.packed?.stamp === stamp) return this.packed.refs;
    const refs = new Map<string, string>();
    if (stamp !== '-') {
      try {
        const text = new TextDecoder().decode(await this.fs.read(join(this.dirs.commonDir, 'packed-refs')));
        for (const line of text.split('\n')) {
          if (line === '' || line.startsWith('#') || line.startsWith('^')) continue; // header, peeled tag
          const space = line.indexOf(' ');
          if (space > 0) refs.set(line.slice(space + 1).trimEnd(), line.slice(0, space));
        }
      } catch (error) {
        if (!isFsError(error)) throw error;
      }
    }
    this.packed = { stamp, refs };
    return refs;
  }

  /** A ref file's trimmed content, `-` when it is gone, undefined when it is a folder or cannot be read. */
  private async readRef(path: string): Promise<string | undefined> {
    try {
      return new TextDecoder().decode(await this.fs.read(path, { offset: 0, length: MAX_REF_BYTES })).trim();
    } catch (error) {
      if (isFsError(error, 'not-found') || isFsError(error, 'not-directory')) return '-';
      if (isFsError(error)) return undefined;
      throw error;
    }
  }

  private async readText(path: string): Promise<string | undefined> {
    const text = await this.readRef(path);
    return text === '-' ? undefined : text;
  }

  /** Size and mtime, `-` when missing: what git itself compares to tell a rewritten index. */
  private async stamp(path: string): Promise<string> {
    try {
      const stat = await this.fs.lstat(path);
      return `${stat.size}:${stat.mtimeMs}`;
    } catch (error) {
      if (isFsError(error)) return '-';
      throw error;
    }
  }

  private async exists(path: string): Promise<boolean> {
    try {
      await this.fs.lstat(path);
      return true;
    } catch (error) {
      if (isFsError(error)) return false;
      throw error;
    }
  }
}
