import { describe, expect, it } from 'vitest';
import { createProjectModel } from '../../../core/projects/create-project-model.ts';
import type { CommandLookup } from '../../../core/projects/command-lookup.ts';
import { BACKENDS, treesFor, type Seed } from '../../support/backends.ts';

const pkg = (manifest: Record<string, unknown>) => JSON.stringify(manifest);
/** PATH holds exactly these commands. */
const onPath = (...names: string[]): CommandLookup => ({ hasCommand: async (name) => names.includes(name) });

describe.each(BACKENDS)('install state (%s)', (backend) => {
  const build = treesFor(backend);
  async function states(seed: Seed, commands?: CommandLookup) {
    const t = await build(seed);
    const model = createProjectModel({ fs: t.fs, root: t.root, commands });
    return Promise.all((await model.projects()).map(async (project) => ({ dir: project.dir, ...(await model.installState(project)) })));
  }

  const monorepo: Seed = {
    'mono/package.json': pkg({ name: 'mono', workspaces: ['packages/*'], devDependencies: { typescript: '5' } }),
    'mono/packages/a/package.json': pkg({
      name: 'a',
      dependencies: { '@scope/lib': '1', left: '1' },
      devDependencies: { left: '1', vitest: '4' }, // a name in both blocks is declared once per package
      peerDependencies: { react: '18' }, // not declared for setup
      optionalDependencies: { fsevents: '2' }, // nor this
    }),
    'mono/packages/b/package.json': pkg({ name: 'b', dependencies: { left: '1', own: '1' } }),
    'mono/node_modules/typescript/package.json': '{}',
    'mono/node_modules/@scope/lib/package.json': '{}',
    'mono/packages/b/node_modules/own/': '',
  };

  it('stale with `missing` summed over packages; a name resolves in the package folder or above, up to the project', async () => {
    // unresolved: a → left, vitest; b → left
    expect(await states(monorepo)).toEqual([{ dir: 'mono', state: 'stale', missing: 3 }]);
  });

  it('ready once every declared name resolves (a link in node_modules counts)', async () => {
    expect(
      await states({
        ...monorepo,
        'mono/node_modules/left/': '',
        'mono/packages/a/node_modules/vitest': { link: '../../../node_modules/typescript' },
      }),
    ).toEqual([{ dir: 'mono', state: 'ready' }]);
  });

  it('a node_modules above the project does not count; a hostile key resolves nothing', async () => {
    expect(
      await states({
        'node_modules/dep/': '',
        'app/package.json': pkg({ dependencies: { dep: '1', '../package.json': '1', '@x/../../app': '1' } }),
        'app/node_modules/.keep': '',
      }),
    ).toEqual([{ dir: 'app', state: 'stale', missing: 3 }]);
  });

  it('a Node project declaring nothing is ready without node_modules; else needs-setup or unsupported by PATH', async () => {
    const seed: Seed = {
      'empty/package.json': pkg({ name: 'empty', scripts: { dev: 'node x' }, peerDependencies: { a: '1' } }),
      'deps/package.json': pkg({ dependencies: { a: '1' } }),
      'deps-pnpm/package.json': pkg({ packageManager: 'pnpm@9.0.0', dependencies: { a: '1' } }),
      'py/requirements.txt': 'a\n',
      'py-uv/uv.lock': '',
      'py-ready/poetry.lock': '',
      'py-ready/.venv/': '',
    };
    const expected = (npm: string, pnpm: string, python3: string, uv: string) => [
      { dir: 'deps', state: npm },
      { dir: 'deps-pnpm', state: pnpm },
      { dir: 'empty', state: 'ready' },
      { dir: 'py', state: python3 },
      { dir: 'py-ready', state: 'ready' },
      { dir: 'py-uv', state: uv },
    ];
    expect(await states(seed, onPath('npm', 'python3'))).toEqual(expected('needs-setup', 'unsupported', 'needs-setup', 'unsupported'));
    expect(await states(seed, onPath('pnpm', 'uv'))).toEqual(expected('unsupported', 'needs-setup', 'unsupported', 'needs-setup'));
    // No lookup at all (a runtime without processes): nothing is on PATH.
    expect(await states(seed)).toEqual(expected('unsupported', 'unsupported', 'unsupported', 'unsupported'));
  });
});
