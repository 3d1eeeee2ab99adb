/**
 * The fixture repo (test/fixtures/search-repo) for the symbol tests: its files as a Seed for either backend,
 * and the file list the symbol index is handed, built here by a plain walk (the live file list is another
 * module's; `dist/` and `node_modules/` are marked ignored as its rules would).
 */
import { readdir, readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { FileSystem } from '../../../../adapters/fs/file-system.ts';
import type { ListedFile } from '../../../../core/search/file-list/listed-file.ts';
import type { Seed } from '../../../support/backends.ts';

export const FIXTURE_ROOT = fileURLToPath(new URL('../../../fixtures/search-repo', import.meta.url));

export async function fixtureText(path: string): Promise<string> {
  return readFile(`${FIXTURE_ROOT}/${path}`, 'utf8');
}

export async function fixtureSeed(): Promise<Seed> {
  const entries = await readdir(FIXTURE_ROOT, { recursive: true, withFileTypes: true });
  const seed: Seed = {};
  for (const entry of entries) {
    if (!entry.isFile()) continue;
    const path = `${entry.parentPath}/${entry.name}`.slice(FIXTURE_ROOT.length + 1);
    seed[path] = await readFile(`${FIXTURE_ROOT}/${path}`);
  }
  return seed;
}

/** Every regular file under `root`, in path order, as the live file list would list it. */
export async function listFiles(fs: FileSystem, root: string, dir = ''): Promise<ListedFile[]> {
  const files: ListedFile[] = [];
  for (const entry of await fs.readdir(dir === '' ? root : `${root}/${dir}`)) {
    const path = dir === '' ? entry.name : `${dir}/${entry.name}`;
    if (entry.type === 'dir') files.push(...(await listFiles(fs, root, path)));
    else if (entry.type === 'file') {
      const stat = await fs.stat(`${root}/${path}`);
      const ignored = /(?:^|\/)(?:dist|node_modules)\//.test(path);
      files.push({ path, absolutePath: `${root}/${path}`, size: stat.size, version: stat.version, ignored });
    }
  }
  return files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}
