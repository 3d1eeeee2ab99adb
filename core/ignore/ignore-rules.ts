/**
 * The ignore-rules engine: which paths of the workspace tooling ignores. One instance per walk (or one kept
 * by a long-lived consumer such as a watcher, which calls `forget` when a rules file changes). Edge-clean.
 *
 * The rules, with git's semantics (gitignore(5)):
 * - always ignored, whatever any rules file says: `.git` and the package stores of ./package-stores.ts;
 * - `.gitignore` files at every level, each one's patterns relative to the folder holding it (negation `!`,
 *   directory-only `foo/`, anchored `/foo`, `**` — all matching is the `ignore` package's, never ours);
 * - precedence: a deeper `.gitignore` over a shallower one, then `.git/info/exclude` (relative to the root);
 *   within one file the last matching pattern wins;
 * - a path inside an ignored folder is ignored, even if a pattern negates the path itself (git never looks
 *   inside an excluded folder). A deeper file *can* re-include a folder a shallower one excluded.
 * Not read: the user's `core.excludesFile` (per-user, not part of the workspace) and the `.gitignore` files of
 * folders above the workspace root. Symlinks are matched as the kind they point to, as the tree lists them.
 *
 * Rules files are loaded lazily, once per folder, and cached until `forget(folder)` — or until REMEMBERED_FOLDERS
 * other folders were asked about since (a long-lived instance is asked about every path that changes, temp files'
 * one-off names included: unbounded, 100 change feeds kept ~20 MiB more every minute of a write load). Forgetting
 * costs a re-read, never a different answer.
 *
 * The same holds for the answers an `ignore` matcher remembers (every path it was asked about, and its folders).
 * A walk's instance shares each file's matcher with later walks (./parsed-rules-cache.ts): the paths of a tree,
 * asked again by the next walk. A long-lived instance (`{ longLived: true }`: a watcher, a change feed, the search
 * file list) is asked about paths that come and go, so it asks a copy of its own instead, started afresh every
 * ANSWERS_PER_MATCHER questions: same patterns, same answers, bounded memory.
 */
import type { FileSystem } from '../../adapters/fs/file-system.ts';
import { isFsError } from '../../adapters/fs/fs-error.ts';
import { TwoGenerationMap } from '../caching/two-generation-map.ts';
import { join } from '../../adapters/fs/posix-path.ts';
import { isAlwaysIgnored, VIRTUALENV_MARKER } from './package-stores.ts';
import type { NamePrefilter } from './name-prefilter.ts';
import { GITIGNORE, INFO_EXCLUDE, newMatcher, readRulesFile, rulesFolderOf, type Ignore, type RulesFile } from './rules-file.ts';

/** Decides for the direct children of one folder; synchronous once `IgnoreRules.folder` has loaded it. */
export interface FolderMatcher {
  /** Whether the child `name` is ignored; `isDir` is its kind (a symlink: its target's). */
  ignores(name: string, isDir: boolean): boolean;
}

/** What a caller that has just listed the folder already knows, to save a lookup. */
export interface FolderHint {
  /** The listing holds a regular file named `.gitignore`. */
  gitignore: boolean;
}

export interface IgnoreRules {
  /**
   * The matcher for the children of `relDir` (root-relative with '/', '' for the root). The folder itself is
   * taken to be not ignored — a walk only asks about folders it entered; use `isIgnored` for any other path.
   */
  folder(relDir: string, hint?: FolderHint): Promise<FolderMatcher>;
  /** Whether a root-relative path is ignored, itself or through an ignored or virtualenv folder above it. */
  isIgnored(relPath: string, isDir: boolean): Promise<boolean>;
  /** Drops what is cached for `relDir` (its `.gitignore` or `pyvenv.cfg` changed); see `rulesFolderOf`. */
  forget(relDir: string): void;
}

/** The folder whose rules a change to `relPath` makes stale (undefined if none): what a watcher passes to `forget`. */
export function staleRulesFolder(relPath: string): string | undefined {
  return rulesFolderOf(relPath, VIRTUALENV_MARKER);
}

/** What a layer asks of its patterns. */
type Matcher = Pick<Ignore, 'test'>;

/** One rules file and the folder it applies from. */
interface Layer {
  /** Root-relative folder the patterns are relative to. */
  dir: string;
  /** The file's patterns (never asked directly by a long-lived instance: see `matcher`). */
  rules: Ignore;
  /** What answers for the patterns: `rules` itself, or a long-lived instance's renewed copy of it. */
  answers: Matcher;
  /** Which names the file's own patterns could match at all. */
  names: NamePrefilter;
  /** This file's rules with some folders it excludes forced back in (see `verdict`), by folder. */
  reincluded: TwoGenerationMap<string, Matcher>;
  /** How this instance makes a matcher of patterns (shared, or a renewed copy). */
  matcher: (rules: Ignore) => Matcher;
}

const NO_VERDICT = { ignored: false, unignored: false };

/**
 * Folders whose rules file, and whether they are a virtualenv, one instance remembers (each: at least this many
 * recently used, at most twice as many). A walk asks about a folder's ancestors again for each folder below
 * them, so those stay; a watcher's working set is the folders that changed lately.
 */
export const REMEMBERED_FOLDERS = 512;

/**
 * Questions a long-lived instance's copy of a matcher answers before it starts afresh: its memory of answers stays
 * under ~150 KiB (an answer and its path, ~150 B), and a copy costs no parsing (the rules are shared, not re-read).
 */
export const ANSWERS_PER_MATCHER = 1024;

/** A matcher of `rules` that forgets its answers every ANSWERS_PER_MATCHER questions. */
function renewedMatcher(rules: Ignore): Matcher {
  let copy = newMatcher().add(rules);
  let asked = 0;
  return {
    test(path) {
      if (++asked > ANSWERS_PER_MATCHER) {
        copy = newMatcher().add(rules);
        asked = 1;
      }
      return copy.test(path);
    },
  };
}

const sharedMatcher = (rules: Ignore): Matcher => rules;

export interface IgnoreRulesOptions {
  /**
   * Kept for as long as a watcher or a feed lives, and asked about every path that changes: the `ignore`
   * matchers' memories of answers are this instance's own and bounded, instead of shared with later walks.
   */
  longLived?: boolean;
}

export function createIgnoreRules(fs: FileSystem, root: string, options: IgnoreRulesOptions = {}): IgnoreRules {
  const matcher = options.longLived === true ? renewedMatcher : sharedMatcher;
  const layers = new TwoGenerationMap<string, Promise<Layer | null>>(REMEMBERED_FOLDERS);
  const virtualenvs = new TwoGenerationMap<string, Promise<boolean>>(REMEMBERED_FOLDERS);
  let excludeLayer: Promise<Layer | null> | undefined;

  const absolute = (relPath: string) => (relPath === '' ? root : join(root, relPath));

  function cached<T>(map: TwoGenerationMap<string, Promise<T>>, key: string, load: () => Promise<T>): Promise<T> {
    let promise = map.get(key);
    if (!promise) {
      const loading = load();
      map.set(key, loading);
      // A failure that is not an FsError (a bug) must not stay cached as the answer.
      loading.catch(() => {
        if (map.get(key) === loading) map.delete(key);
      });
      promise = loading;
    }
    return promise;
  }

  const toLayer = (dir: string) => (file: RulesFile | null): Layer | null => {
    if (!file) return null;
    const answers = matcher(file.rules);
    return { dir, rules: file.rules, answers, names: file.names, reincluded: new TwoGenerationMap(REMEMBERED_FOLDERS), matcher };
  };

  function gitignoreLayer(relDir: string, hint: FolderHint | undefined): Promise<Layer | null> {
    return cached(layers, relDir, async () => {
      if (hint && !hint.gitignore) return null;
      return toLayer(relDir)(await readRulesFile(fs, absolute(join(relDir, GITIGNORE))));
    });
  }

  function infoExcludeLayer(): Promise<Layer | null> {
    excludeLayer ??= readRulesFile(fs, absolute(INFO_EXCLUDE)).then(toLayer(''));
    return excludeLayer;
  }

  function isVirtualenv(relDir: string): Promise<boolean> {
    return cached(virtualenvs, relDir, async () => {
      try {
        return (await fs.lstat(absolute(join(relDir, VIRTUALENV_MARKER)))).type === 'file';
      } catch (error) {
        if (isFsError(error)) return false;
        throw error;
      }
    });
  }

  async function folder(relDir: string, hint?: FolderHint): Promise<FolderMatcher> {
    const dirs = ancestorsAndSelf(relDir);
    const loaded = await Promise.all([
      ...dirs.map((dir, i) => gitignoreLayer(dir, i === dirs.length - 1 ? hint : undefined)),
      infoExcludeLayer(),
    ]);
    const exclude = loaded.pop();
    // Deepest .gitignore first, .git/info/exclude last: the first layer with an opinion decides.
    const active = loaded.filter((layer): layer is Layer => layer !== null).reverse();
    if (exclude) active.push(exclude);
    const parentName = relDir.slice(relDir.lastIndexOf('/') + 1);
    // A layer that does not ignore this folder has a say on a child only through the child's own name: when no
    // pattern of it can match that name (./name-prefilter.ts), it has none, and its matcher is not asked.
    const folderIgnored = active.map((layer) => ignoresFolder(layer, layer.dir === '' ? relDir : relDir.slice(layer.dir.length + 1)));
    return {
      ignores(name, isDir) {
        if (isAlwaysIgnored(name, isDir, parentName)) return true;
        const relPath = relDir === '' ? name : relDir + '/' + name;
        for (let i = 0; i < active.length; i++) {
          const layer = active[i]!;
          if (!folderIgnored[i] && !layer.names.mayMatch(name)) continue;
          const result = verdict(layer, relPath, isDir);
          if (result.ignored) return true;
          if (result.unignored) return false;
        }
        return false;
      },
    };
  }

  return {
    folder,
    async isIgnored(relPath, isDir) {
      const names = relPath.split('/').filter((name) => name !== '' && name !== '.');
      let dir = '';
      for (let i = 0; i < names.length; i++) {
        const name = names[i]!;
        const entryIsDir = i < names.length - 1 || isDir;
        if ((await folder(dir)).ignores(name, entryIsDir)) return true;
        dir = dir === '' ? name : dir + '/' + name;
        if (entryIsDir && (await isVirtualenv(dir))) return true;
      }
      return false;
    },
    forget(relDir) {
      layers.delete(relDir);
      virtualenvs.delete(relDir);
      if (relDir === '.git/info') excludeLayer = undefined;
    },
  };
}

/**
 * Whether the layer alone ignores the folder `local` (relative to the layer's folder), itself or through a
 * folder above it. The layer's matcher is asked only when one of the folders' names could match a pattern:
 * else none of them is matched by the layer's own patterns, and so none is ignored by it.
 */
function ignoresFolder(layer: Layer, local: string): boolean {
  if (local === '' || !local.split('/').some((name) => layer.names.mayMatch(name))) return false;
  return layer.answers.test(local + '/').ignored;
}

/**
 * One layer's say on a path whose parent folder is known not to be ignored overall.
 *
 * `ignore` answers for a whole path: a path under a folder the layer excludes is "ignored" without its own
 * patterns being consulted. When a deeper layer re-included that folder (`!build/` in `src/.gitignore` against
 * `build/` at the root), that answer is wrong for git: only the path's own patterns count. Those are asked of a
 * copy of this layer with every folder on the way forced back in by an anchored directory-only negation, which
 * matches those folders alone and so leaves the path's own matching untouched.
 */
function verdict(layer: Layer, relPath: string, isDir: boolean): { ignored: boolean; unignored: boolean } {
  if (layer.dir !== '' && !relPath.startsWith(layer.dir + '/')) return NO_VERDICT;
  const local = layer.dir === '' ? relPath : relPath.slice(layer.dir.length + 1);
  const probe = isDir ? local + '/' : local;
  const result = layer.answers.test(probe);
  if (!result.ignored) return result;
  const slash = local.lastIndexOf('/');
  if (slash < 0) return result;
  const parent = local.slice(0, slash);
  if (!layer.answers.test(parent + '/').ignored) return result;
  return reincludedRules(layer, parent).test(probe);
}

function reincludedRules(layer: Layer, folder: string): Matcher {
  let rules = layer.reincluded.get(folder);
  if (!rules) {
    const negations = ancestorsAndSelf(folder)
      .slice(1)
      .map((dir) => '!/' + dir.split('/').map(escapePattern).join('/') + '/');
    rules = layer.matcher(newMatcher().add(layer.rules).add(negations));
    layer.reincluded.set(folder, rules);
  }
  return rules;
}

/** A file name as a literal gitignore pattern segment: glob, negation, comment and space characters escaped. */
function escapePattern(name: string): string {
  return name.replace(/[\\*?[\]!# ]/g, '\\$&');
}

/** '' then each folder down to `relDir`: "a/b" → ["", "a", "a/b"]. */
function ancestorsAndSelf(relDir: string): string[] {
  const dirs = [''];
  if (relDir === '') return dirs;
  let at = relDir.indexOf('/');
  while (at >= 0) {
    dirs.push(relDir.slice(0, at));
    at = relDir.indexOf('/', at + 1);
  }
  dirs.push(relDir);
  return dirs;
}
