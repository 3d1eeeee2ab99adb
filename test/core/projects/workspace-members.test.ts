import { describe, expect, it } from 'vitest';
import { repoPackages } from '../../../core/projects/workspace-members.ts';
import { BACKENDS, treesFor } from '../../support/backends.ts';

const pkg = (manifest: Record<string, unknown>) => JSON.stringify(manifest);
const named = (name: string) => pkg({ name });

describe.each(BACKENDS)('workspace members (%s)', (backend) => {
  const build = treesFor(backend);
  const members = async (seed: Parameters<typeof build>[0]) => {
    const t = await build(seed);
    return (await repoPackages(t.fs, t.root)).packages.map(({ name, dir }) => ({ name, dir }));
  };

  it('pnpm globs: `*` is one segment, `**` any depth, `!` excludes; pnpm-workspace.yaml wins over workspaces', async () => {
    expect(
      await members({
        'package.json': pkg({ name: 'root', workspaces: ['ignored/*'] }),
        'pnpm-workspace.yaml': "packages:\n  - 'apps/*'\n  - \"libs/**\"\n  - './tools/cli/'\n  - '!libs/**/test-*'\n  - '!apps/skip'\n",
        'apps/web/package.json': named('web'),
        'apps/skip/package.json': named('skip'),
        'apps/web/nested/package.json': named('too-deep'), // `*` is one segment
        'libs/a/package.json': named('a'),
        'libs/group/b/package.json': named('b'),
        'libs/group/deep/c/package.json': named('c'),
        'libs/group/test-x/package.json': named('test-x'),
        'libs/node_modules/dep/package.json': named('dep'), // never entered
        'libs/.hidden/package.json': named('hidden'),
        'tools/cli/package.json': named('cli'),
        'ignored/x/package.json': named('x'),
      }),
    ).toEqual([
      { name: 'web', dir: 'apps/web' },
      { name: 'a', dir: 'libs/a' },
      { name: 'b', dir: 'libs/group/b' },
      { name: 'c', dir: 'libs/group/deep/c' },
      { name: 'cli', dir: 'tools/cli' },
    ]);
  });

  it('npm and yarn workspaces: an array, or the {packages} object form', async () => {
    const seed = {
      'packages/one/package.json': named('one'),
      'packages/two/package.json': named('two'),
      'other/package.json': named('other'),
    };
    expect(await members({ ...seed, 'package.json': pkg({ name: 'r', workspaces: ['packages/*'] }) })).toEqual([
      { name: 'one', dir: 'packages/one' },
      { name: 'two', dir: 'packages/two' },
    ]);
    expect(await members({ ...seed, 'package.json': pkg({ workspaces: { packages: ['packages/*', 'other'], nohoist: ['x'] } }) })).toEqual([
      { name: 'other', dir: 'other' },
      { name: 'one', dir: 'packages/one' },
      { name: 'two', dir: 'packages/two' },
    ]);
  });

  it('a member needs a parseable package.json with a string name; the first dir of a name wins', async () => {
    expect(
      await members({
        'package.json': pkg({ workspaces: ['p/*'] }),
        'p/a/package.json': named('dup'),
        'p/b/package.json': named('dup'),
        'p/c/package.json': '{ broken',
        'p/d/package.json': pkg({ name: 7 }),
        'p/e/package.json': pkg({ version: '1.0.0' }),
        'p/f/README.md': 'no manifest',
        'p/g/package.json': named('g'),
      }),
    ).toEqual([
      { name: 'dup', dir: 'p/a' },
      { name: 'g', dir: 'p/g' },
    ]);
  });

  it('without workspaces a named package.json is the one package ""; unnamed, none', async () => {
    expect(await members({ 'package.json': named('solo'), 'sub/package.json': named('sub') })).toEqual([{ name: 'solo', dir: '' }]);
    expect(await members({ 'package.json': pkg({ private: true }) })).toEqual([]);
    expect(await members({})).toEqual([]);
  });

  it('never follows a link, not even in a glob`s literal base; a glob leaving the repo names nothing', async () => {
    const t = await build({
      'package.json': pkg({ workspaces: ['linked/*', 'p/*', '../*', '/abs/*'] }),
      linked: { link: '$OUTSIDE' },
      'p/real/package.json': named('real'),
      'p/link': { link: '$OUTSIDE/pkg' },
    });
    await t.fs.write(`${t.outside}/pkg/package.json`, named('outside'), { mkdirs: true });
    await t.fs.write(`${t.outside}/x/package.json`, named('outside-x'), { mkdirs: true });
    expect((await repoPackages(t.fs, t.root)).packages.map(({ name }) => name)).toEqual(['real']);
  });

  it('an unparseable pnpm-workspace.yaml falls back to package.json`s workspaces', async () => {
    expect(
      await members({
        'pnpm-workspace.yaml': 'packages: [unclosed',
        'package.json': pkg({ workspaces: ['w/*'] }),
        'w/x/package.json': named('x'),
      }),
    ).toEqual([{ name: 'x', dir: 'w/x' }]);
  });
});
