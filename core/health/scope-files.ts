/**
 * The files health measures (docs/intentic-projects.md#health): every regular file in the scope's folder, never through a
 * symbolic link, not inside a nested repo (for `root`: outside every repo), not in the folders of
 * core/projects/walk-rules.ts (nor `.intentic/`), and not ignored by `.gitignore`. A repo's rules are read from
 * the repo (git's view); `root` and a plain top-level folder read the workspace's. Paths are root-relative,
 * sorted by code unit.
 */
import type { DirEntry, FileSystem } from '../../adapters/fs/file-system.ts';
import { isFsError } from '../../adapters/fs/fs-error.ts';
import { createIgnoreRules } from '../ignore/ignore-rules.ts';
import { mapLimited } from '../listing/map-limited.ts';
import { compareCodeUnits } from '../text/code-units.ts';
import type { RepoScope } from '../projects/repo-scope.ts';
import { isWalkedFolder } from '../projects/walk-rules.ts';

export interface ScopeFile {
  /** Root-relative. */
  path: string;
  absolute: string;
}

const PARALLEL_FOLDERS = 16;

export async function listScopeFiles(
  fs: FileSystem,
  root: string,
  scope: RepoScope,
  options: { exclude?: readonly string[] } = {},
): Promise<ScopeFile[]> {
  const excluded = new Set(options.exclude ?? []);
  const scopeIsRepo = scope.relative !== '' && (await readdirOrEmpty(fs, scope.dir)).some(isGitEntry);
  const rulesRoot = scopeIsRepo ? scope.dir : root;
  const rulesPrefix = scopeIsRepo ? scope.relative : '';
  const rules = createIgnoreRules(fs, rulesRoot);
  const files: ScopeFile[] = [];
  let folders = [scope.relative];
  while (folders.length > 0) {
    const listed = await mapLimited(folders, PARALLEL_FOLDERS, async (relative) => {
      const absolute = relative === '' ? root : `${root}/${relative}`;
      const entries = await readdirOrEmpty(fs, absolute);
      // A nested repo is not part of this scope (the scope's own `.git` is its own).
      if (relative !== scope.relative && entries.some(isGitEntry)) return [];
      const rulesDir = relative === rulesPrefix ? '' : rulesPrefix === '' ? relative : relative.slice(rulesPrefix.length + 1);
      const matcher = await rules.folder(rulesDir, { gitignore: entries.some((e) => e.name === '.gitignore' && e.type === 'file') });
      return entries.map((entry) => ({ entry, relative, absolute, matcher }));
    });
    const next: string[] = [];
    for (const { entry, relative, absolute, matcher } of listed.flat()) {
      const childRelative = relative === '' ? entry.name : `${relative}/${entry.name}`;
      const childAbsolute = `${absolute === '/' ? '' : absolute}/${entry.name}`;
      if (excluded.has(childAbsolute)) continue;
      if (entry.type === 'dir') {
        if (isWalkedFolder(entry.name, { hidden: true }) && !matcher.ignores(entry.name, true)) next.push(childRelative);
      } else if (entry.type === 'file' && !matcher.ignores(entry.name, false)) {
        files.push({ path: childRelative, absolute: childAbsolute });
      }
    }
    folders = next;
  }
  return files.sort((a, b) => compareCodeUnits(a.path, b.path));
}

function isGitEntry(entry: DirEntry): boolean {
  return entry.name === '.git' && (entry.type === 'dir' || entry.type === 'file');
}

async function readdirOrEmpty(fs: FileSystem, path: string): Promise<DirEntry[]> {
  try {
    return await fs.readdir(path);
  } catch (error) {
    if (isFsError(error)) return []; // gone or unreadable since it was listed
    throw error;
  }
}
