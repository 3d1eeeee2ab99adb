/**
 * `GET /workspace/classify` (docs/intentic-projects.md#classify): the whole tree, depth-first, folders before files, each by
 * name (code units). Read-only.
 * - A folder with a marker among its own files (MARKERS, `*.sln`, `*.csproj`) is one `repositories` entry,
 *   `repository:<first marker by name>`, and is not entered; a git repo without one (a `.git` folder or file, or a
 *   bare repository: `HEAD`, `objects/` and `refs/`) is `repository:.git`. Other folders are entered, not listed.
 *   The root itself is the tree, never an entry.
 * - Files: ./classify-file.ts.
 * - Walks never follow a link (links are not listed), never enter the folders of core/projects/walk-rules.ts;
 *   `.intentic/` is never classified; `.gitignore` is honoured (core/ignore, from the root).
 */
import type { DirEntry, FileSystem } from '../../adapters/fs/file-system.ts';
import { isFsError } from '../../adapters/fs/fs-error.ts';
import { createIgnoreRules } from '../ignore/ignore-rules.ts';
import { mapLimited } from '../listing/map-limited.ts';
import { isWalkedFolder } from '../projects/walk-rules.ts';
import { compareCodeUnits } from '../text/code-units.ts';
import { classifyFile, PROBE_BYTES, type Classification } from './classify-file.ts';

export const MARKERS: ReadonlySet<string> = new Set([
  'package.json', 'go.mod', 'Cargo.toml', 'pyproject.toml', 'setup.py', 'requirements.txt', 'Pipfile', 'pom.xml',
  'build.gradle', 'composer.json', 'Gemfile',
]);
const PARALLEL_READS = 16;

export type { Classification } from './classify-file.ts';

export async function classifyTree(fs: FileSystem, root: string, options: { exclude?: readonly string[] } = {}): Promise<Classification[]> {
  const excluded = new Set(options.exclude ?? []);
  const rules = createIgnoreRules(fs, root);
  const out: Classification[] = [];

  async function visit(relative: string, entries: DirEntry[]): Promise<void> {
    const absolute = relative === '' ? root : `${root}/${relative}`;
    const matcher = await rules.folder(relative, { gitignore: entries.some((e) => e.name === '.gitignore' && e.type === 'file') });
    const sorted = [...entries].sort((a, b) => compareCodeUnits(a.name, b.name));
    const path = (name: string) => (relative === '' ? name : `${relative}/${name}`);
    const full = (name: string) => `${absolute === '/' ? '' : absolute}/${name}`;
    for (const entry of sorted) {
      if (entry.type !== 'dir' || !isWalkedFolder(entry.name, { hidden: true }) || excluded.has(full(entry.name))) continue;
      if (matcher.ignores(entry.name, true)) continue;
      const children = await readdirOrEmpty(fs, full(entry.name));
      const marker = repositoryMarker(children);
      if (marker) out.push({ path: path(entry.name), bucket: 'repositories', reason: `repository:${marker}` });
      else await visit(path(entry.name), children);
    }
    const files = sorted.filter((entry) => entry.type === 'file' && !matcher.ignores(entry.name, false));
    const classified = await mapLimited(files, PARALLEL_READS, async (entry) => {
      try {
        return await classifyFile(path(entry.name), await fs.read(full(entry.name), { offset: 0, length: PROBE_BYTES }));
      } catch (error) {
        if (isFsError(error)) return undefined; // gone or unreadable since it was listed
        throw error;
      }
    });
    for (const classification of classified) if (classification) out.push(classification);
  }

  await visit('', await readdirOrEmpty(fs, root));
  return out;
}

/** The marker that makes a folder (listed as `entries`) a repository, or undefined. */
export function repositoryMarker(entries: readonly DirEntry[]): string | undefined {
  const markers = entries
    .filter((entry) => entry.type === 'file' && (MARKERS.has(entry.name) || entry.name.endsWith('.sln') || entry.name.endsWith('.csproj')))
    .map((entry) => entry.name)
    .sort(compareCodeUnits);
  if (markers.length > 0) return markers[0];
  const has = (name: string, ...types: string[]) => entries.some((entry) => entry.name === name && types.includes(entry.type));
  if (has('.git', 'dir', 'file')) return '.git';
  if (has('HEAD', 'file') && has('objects', 'dir') && has('refs', 'dir')) return '.git';
  return undefined;
}

async function readdirOrEmpty(fs: FileSystem, path: string): Promise<DirEntry[]> {
  try {
    return await fs.readdir(path);
  } catch (error) {
    if (isFsError(error)) return [];
    throw error;
  }
}
