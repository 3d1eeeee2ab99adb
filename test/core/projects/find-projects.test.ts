import { describe, expect, it } from 'vitest';
import { findProjects } from '../../../core/projects/find-projects.ts';
import { BACKENDS, treesFor } from '../../support/backends.ts';

const pkg = (manifest: Record<string, unknown> = {}) => JSON.stringify(manifest);
const node = (dir: string, manager: string, evidence: string) => ({
  dir,
  ecosystem: 'node',
  manager,
  command: `${manager} install`,
  evidence,
  marker: 'node_modules',
});
const python = (dir: string, manager: string, command: string, evidence: string) => ({ dir, ecosystem: 'python', manager, command, evidence, marker: '.venv' });

describe.each(BACKENDS)('findProjects (%s)', (backend) => {
  const build = treesFor(backend);

  it('Node managers: the packageManager field, then lockfiles in the seed order, then npm', async () => {
    const t = await build({
      'field/package.json': pkg({ packageManager: 'yarn@4.1.0' }),
      'field/pnpm-lock.yaml': '', // the field wins over every lockfile
      'field-bare/package.json': pkg({ packageManager: 'bun' }),
      'field-other/package.json': pkg({ packageManager: 'deno@2' }), // not a Node manager of the table: lockfiles decide
      'field-other/yarn.lock': '',
      'pnpm/package.json': pkg(),
      'pnpm/pnpm-lock.yaml': '',
      'pnpm/bun.lock': '',
      'pnpm/package-lock.json': '',
      'bun/package.json': pkg(),
      'bun/bun.lock': '',
      'bun/yarn.lock': '',
      'bunb/package.json': pkg(),
      'bunb/bun.lockb': '',
      'yarn/package.json': pkg(),
      'yarn/yarn.lock': '',
      'yarn/package-lock.json': '',
      'npm/package.json': pkg(),
      'npm/package-lock.json': '',
      'shrink/package.json': pkg(),
      'shrink/npm-shrinkwrap.json': '',
      'none/package.json': pkg(),
      'broken/package.json': '{ not json', // still a Node project: its manager is the one to say what is wrong
    });
    expect(await findProjects(t.fs, t.root)).toEqual([
      node('broken', 'npm', 'package.json (no lockfile)'),
      node('bun', 'bun', 'bun.lock'),
      node('bunb', 'bun', 'bun.lockb'),
      node('field', 'yarn', 'the packageManager field'),
      node('field-bare', 'bun', 'the packageManager field'),
      node('field-other', 'yarn', 'yarn.lock'),
      node('none', 'npm', 'package.json (no lockfile)'),
      node('npm', 'npm', 'package-lock.json'),
      node('pnpm', 'pnpm', 'pnpm-lock.yaml'),
      node('shrink', 'npm', 'npm-shrinkwrap.json'),
      node('yarn', 'yarn', 'yarn.lock'),
    ]);
  });

  it('Python: the first match of the table; package.json wins over all of it', async () => {
    const t = await build({
      'a/uv.lock': '',
      'a/poetry.lock': '',
      'b/poetry.lock': '',
      'b/Pipfile.lock': '',
      'c/Pipfile.lock': '',
      'c/requirements.txt': '',
      'd/requirements.txt': 'requests\n',
      'd/pyproject.toml': '',
      'e/pyproject.toml': '',
      'f/pyproject.toml': '',
      'f/package.json': pkg(),
      'g/Pipfile': '', // not in the table
    });
    expect(await findProjects(t.fs, t.root)).toEqual([
      python('a', 'uv', 'uv sync', 'uv.lock'),
      python('b', 'poetry', 'poetry install', 'poetry.lock'),
      python('c', 'pipenv', 'pipenv install --dev', 'Pipfile.lock'),
      python('d', 'python3', 'python3 -m venv .venv && .venv/bin/pip install -r requirements.txt', 'requirements.txt'),
      python('e', 'uv', 'uv sync', 'pyproject.toml'),
      node('f', 'npm', 'package.json (no lockfile)'),
    ]);
  });

  it('walks 2 segments deep, stops at a project, skips hidden, skipped and state folders', async () => {
    const t = await build({
      'repo/package.json': pkg(),
      'repo/packages/inner/package.json': pkg(), // below a project: part of it
      'group/app/package.json': pkg(),
      'group/deep/three/package.json': pkg(), // 3 segments
      '.intentic/package.json': pkg(),
      '.intentic/x/package.json': pkg(),
      '.hidden/package.json': pkg(),
      'node_modules/lib/package.json': pkg(),
      'dist/package.json': pkg(),
      'group/.venv/requirements.txt': '',
      'group/__pycache__/requirements.txt': '',
    });
    expect((await findProjects(t.fs, t.root)).map((project) => project.dir)).toEqual(['group/app', 'repo']);
  });

  it('a root package.json makes the whole workspace the one project ""', async () => {
    const t = await build({ 'package.json': pkg(), 'pnpm-lock.yaml': '', 'other/package.json': pkg() });
    expect(await findProjects(t.fs, t.root)).toEqual([node('', 'pnpm', 'pnpm-lock.yaml')]);
  });

  it('never follows a link: a linked folder or manifest makes no project, even one outside the workspace', async () => {
    const t = await build({
      'out/': '',
      'linked': { link: '$OUTSIDE' },
      'real/requirements.txt': { link: '$OUTSIDE/secret.txt' },
    });
    await t.fs.write(`${t.outside}/package.json`, pkg());
    await t.fs.write(`${t.outside}/sub/package.json`, pkg(), { mkdirs: true });
    expect(await findProjects(t.fs, t.root)).toEqual([]);
  });

  it('leaves out the excluded folders (the agents copies)', async () => {
    const t = await build({ 'agents/a/package.json': pkg(), 'app/package.json': pkg() });
    expect((await findProjects(t.fs, t.root, { exclude: [`${t.root}/agents`] })).map((project) => project.dir)).toEqual(['app']);
  });
});
