/**
 * Whiteouts: the shared-tree entries an agent removed from its own view. An overlay cannot delete from the
 * shared (lower) tree, so it remembers "this path is gone for me" instead; a whited-out folder also hides
 * everything below it, which makes a folder re-created at that path opaque (the shared folder's children do
 * not show through it), as overlayfs's opaque directories do.
 *
 * Where they live is the caller's choice: the agent copies keep them in a JSON file beside the copies, under
 * the agents folder, never inside the copy itself, so they show up neither in the agent's tree nor in its
 * git worktree's status (core/agents/agent-copies.ts).
 */
import type { FileSystem } from '../file-system.ts';
import { FsError, isFsError } from '../fs-error.ts';
import { dirname } from '../posix-path.ts';

/** Root-relative paths with '/' ('' is the overlaid root, which is never whited out). */
export interface Whiteouts {
  /** Whether `rel` or one of its ancestors is whited out. */
  hides(rel: string): boolean;
  /** The names whited out directly inside the folder `relDir`. */
  namesIn(relDir: string): ReadonlySet<string>;
  /** Whether anything strictly below `rel` is whited out. */
  anyBelow(rel: string): boolean;
  /**
   * Whites out `rel`; resolves once that is durable. The returned undo restores the set as it was (for an
   * operation that fails after its whiteout was recorded).
   */
  add(rel: string): Promise<() => Promise<void>>;
}

const NOTHING_TO_UNDO = async () => {};

/** A whiteout set held in memory, optionally persisted by `save` after every change (in order). */
export class WhiteoutSet implements Whiteouts {
  private readonly paths: Set<string>;
  private saving: Promise<void> = Promise.resolve();

  constructor(
    initial: Iterable<string> = [],
    private readonly save?: (paths: string[]) => Promise<void>,
  ) {
    this.paths = new Set(initial);
  }

  hides(rel: string): boolean {
    for (let at = rel; at !== '' && at !== '.'; at = parentOf(at)) {
      if (this.paths.has(at)) return true;
    }
    return false;
  }

  namesIn(relDir: string): ReadonlySet<string> {
    const names = new Set<string>();
    for (const path of this.paths) {
      if (parentOf(path) === relDir) names.add(path.slice(relDir === '' ? 0 : relDir.length + 1));
    }
    return names;
  }

  anyBelow(rel: string): boolean {
    const prefix = rel === '' ? '' : rel + '/';
    for (const path of this.paths) if (path.startsWith(prefix) && path !== rel) return true;
    return false;
  }

  async add(rel: string): Promise<() => Promise<void>> {
    if (rel === '') throw new FsError('invalid', '/', 'invalid: the overlaid root cannot be whited out');
    if (this.hides(rel)) return NOTHING_TO_UNDO;
    // Whiteouts below a whited-out folder say nothing more: drop them, so the set stays small.
    const covered = [...this.paths].filter((path) => path.startsWith(rel + '/'));
    const apply = () => {
      for (const path of covered) this.paths.delete(path);
      this.paths.add(rel);
    };
    const revert = () => {
      this.paths.delete(rel);
      for (const path of covered) this.paths.add(path);
    };
    apply();
    try {
      await this.persist();
    } catch (error) {
      revert();
      throw error;
    }
    return async () => {
      revert();
      await this.persist();
    };
  }

  /** Saves a snapshot after the saves before it, so the last one written is always the current set. */
  private persist(): Promise<void> {
    if (!this.save) return Promise.resolve();
    const snapshot = [...this.paths].sort();
    const save = this.save;
    const next = this.saving.catch(() => {}).then(() => save(snapshot));
    this.saving = next;
    return next;
  }
}

/**
 * The whiteouts kept in a JSON file (an array of root-relative paths), written atomically through `fs` after
 * every change. A missing file is an empty set; a corrupt one is an `io` error rather than an empty set, so a
 * damaged file never quietly brings deleted files back.
 */
export async function loadWhiteoutFile(fs: FileSystem, file: string): Promise<WhiteoutSet> {
  let initial: string[] = [];
  try {
    const parsed: unknown = JSON.parse(new TextDecoder().decode(await fs.read(file)));
    if (!Array.isArray(parsed) || !parsed.every((item) => typeof item === 'string')) throw new SyntaxError('not a list');
    initial = parsed;
  } catch (error) {
    if (!isFsError(error, 'not-found')) {
      if (error instanceof FsError) throw error;
      throw new FsError('io', file, `io: ${file} is not a whiteout list (${(error as Error).message})`);
    }
  }
  return new WhiteoutSet(initial, async (paths) => {
    await fs.write(file, JSON.stringify(paths), { mkdirs: true });
  });
}

function parentOf(rel: string): string {
  const parent = dirname(rel);
  return parent === '.' ? '' : parent;
}
