/**
 * What each path of the kill-under-load harness may hold, by what was asked and what was acknowledged (an answer
 * of success reached the harness). The rule checked after every kill:
 *
 * - a path holds wholly one version, and that version is the last one acknowledged for it or one attempted after
 *   it (a write in flight at the kill may or may not have landed); a path nothing was acknowledged for may be
 *   absent. One write at a time per path, so "after" is well defined.
 * - a move in flight at the kill left its file at exactly one of its two names; an acknowledged one at the new.
 * - a folder copy in flight left the whole copy or none of it.
 *
 * After each check the ledger takes what the disk showed as the new truth, so a version that did not land by one
 * kill cannot turn up at the next.
 */
export const ABSENT = 'absent';

export interface MovePair {
  from: string;
  to: string;
  acknowledged: boolean;
}

export interface FolderCopy {
  /** The copy's files, relative to the root. */
  files: string[];
  acknowledged: boolean;
}

export class WriteLedger {
  /** path → the version keys (`lineage v<n>`) or ABSENT it may show. */
  readonly possible = new Map<string, Set<string>>();
  /** version key → the SHA-256 of its bytes. */
  readonly hashes = new Map<string, string>();
  readonly moves: MovePair[] = [];
  readonly copies: FolderCopy[] = [];

  static key(lineage: string, version: number): string {
    return `${lineage} v${version}`;
  }

  record(key: string, sha256: string): void {
    this.hashes.set(key, sha256);
  }

  /** A write of `key` to `path` was sent: the path may now show it. */
  attempt(path: string, key: string): void {
    this.statesOf(path).add(key);
  }

  /** A write of `key` to `path` was acknowledged: the path shows it (no other write to it is in flight). */
  acknowledge(path: string, key: string): void {
    this.possible.set(path, new Set([key]));
  }

  /** What `path` showed on disk, taken as the truth from now on. */
  observe(path: string, state: string): void {
    this.possible.set(path, new Set([state]));
  }

  statesOf(path: string): Set<string> {
    let states = this.possible.get(path);
    if (states === undefined) this.possible.set(path, (states = new Set([ABSENT])));
    return states;
  }
}
