/**
 * Setup's projects (docs/intentic-projects.md#setup): folders at most 2 segments below the root whose
 * manifests give an install recipe. The walk stops at a project (a monorepo is one project; a root package.json
 * makes the whole workspace the project `""`), never follows a link, and skips hidden folders, the folders of
 * walk-rules.ts and `.intentic/`.
 *
 * Recipes: a `package.json` (a regular file, parseable or not: its manager is what would report it broken) makes a
 * Node project and wins over Python. Its manager is the `packageManager` field's name before `@` when that is
 * pnpm, npm, yarn or bun; else the first lockfile of NODE_LOCKFILES; else npm. Python takes the first file of
 * PYTHON_RECIPES.
 */
import type { FileSystem } from '../../adapters/fs/file-system.ts';
import type { ProjectRecipe } from './project-model.ts';
import { childPath, childRelative, entryType, sortedEntries } from './fs-probe.ts';
import { readManifest } from './package-manifest.ts';
import { isWalkedFolder } from './walk-rules.ts';

/** Deepest project folder, in segments below the root. */
export const MAX_PROJECT_DEPTH = 2;

const NODE_MANAGERS = new Set(['pnpm', 'npm', 'yarn', 'bun']);

/** In the order they decide the manager. */
export const NODE_LOCKFILES: ReadonlyArray<readonly [file: string, manager: string]> = [
  ['pnpm-lock.yaml', 'pnpm'],
  ['bun.lock', 'bun'],
  ['bun.lockb', 'bun'],
  ['yarn.lock', 'yarn'],
  ['package-lock.json', 'npm'],
  ['npm-shrinkwrap.json', 'npm'],
];

/** First match wins. */
export const PYTHON_RECIPES: ReadonlyArray<{ file: string; manager: string; command: string }> = [
  { file: 'uv.lock', manager: 'uv', command: 'uv sync' },
  { file: 'poetry.lock', manager: 'poetry', command: 'poetry install' },
  { file: 'Pipfile.lock', manager: 'pipenv', command: 'pipenv install --dev' },
  { file: 'requirements.txt', manager: 'python3', command: 'python3 -m venv .venv && .venv/bin/pip install -r requirements.txt' },
  { file: 'pyproject.toml', manager: 'uv', command: 'uv sync' },
];

/** Every file name a recipe reads: a change to one of them can change setup's answer. */
export const RECIPE_FILES: ReadonlySet<string> = new Set([
  'package.json',
  ...NODE_LOCKFILES.map(([file]) => file),
  ...PYTHON_RECIPES.map(({ file }) => file),
]);

export interface FindProjectsOptions {
  /** Absolute folders never entered (the agents' copies). */
  exclude?: readonly string[];
}

/** Every project under `root` (absolute, real), sorted by dir. */
export async function findProjects(fs: FileSystem, root: string, options: FindProjectsOptions = {}): Promise<ProjectRecipe[]> {
  const excluded = new Set(options.exclude ?? []);
  const projects: ProjectRecipe[] = [];
  async function visit(abs: string, rel: string, depth: number): Promise<void> {
    const recipe = await recipeOf(fs, abs, rel);
    if (recipe) {
      projects.push(recipe);
      return;
    }
    if (depth === MAX_PROJECT_DEPTH) return;
    for (const entry of await sortedEntries(fs, abs)) {
      if (entry.type !== 'dir' || !isWalkedFolder(entry.name, { hidden: false })) continue;
      const child = childPath(abs, entry.name);
      if (!excluded.has(child)) await visit(child, childRelative(rel, entry.name), depth + 1);
    }
  }
  await visit(root, '', 0);
  return projects.sort((a, b) => (a.dir < b.dir ? -1 : a.dir > b.dir ? 1 : 0));
}

/** The recipe of the folder at `abs` (root-relative `dir`), or undefined when its manifests give none. */
export async function recipeOf(fs: FileSystem, abs: string, dir: string): Promise<ProjectRecipe | undefined> {
  if ((await entryType(fs, `${abs}/package.json`)) === 'file') return nodeRecipe(fs, abs, dir);
  for (const { file, manager, command } of PYTHON_RECIPES) {
    if ((await entryType(fs, `${abs}/${file}`)) === 'file') {
      return { dir, ecosystem: 'python', manager, command, evidence: file, marker: '.venv' };
    }
  }
  return undefined;
}

async function nodeRecipe(fs: FileSystem, abs: string, dir: string): Promise<ProjectRecipe> {
  const node = (manager: string, evidence: string): ProjectRecipe => ({
    dir,
    ecosystem: 'node',
    manager,
    command: `${manager} install`,
    evidence,
    marker: 'node_modules',
  });
  const field = (await readManifest(fs, abs))?.packageManager;
  if (typeof field === 'string') {
    const name = field.split('@')[0]!;
    if (NODE_MANAGERS.has(name)) return node(name, 'the packageManager field');
  }
  for (const [file, manager] of NODE_LOCKFILES) {
    if ((await entryType(fs, `${abs}/${file}`)) === 'file') return node(manager, file);
  }
  return node('npm', 'package.json (no lockfile)');
}
