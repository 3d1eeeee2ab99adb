import { describe, expect, it } from 'vitest';
import { createProjectModel } from '../../../core/projects/create-project-model.ts';
import { BACKENDS, treesFor, type Seed } from '../../support/backends.ts';

const pkg = (manifest: Record<string, unknown>) => JSON.stringify(manifest);
const app = (name: string, extra: Record<string, unknown> = {}) => pkg({ name, scripts: { dev: 'vite' }, ...extra });

describe.each(BACKENDS)('apps (%s)', (backend) => {
  const build = treesFor(backend);
  async function apps(seed: Seed, repo: string, templateKeys?: ReadonlySet<string>) {
    const t = await build(seed);
    const model = createProjectModel({ fs: t.fs, root: t.root, templateKeys: templateKeys && (async () => templateKeys) });
    const list = await model.apps(repo === '' ? t.root : `${t.root}/${repo}`);
    return list.map(({ project, ...rest }) => ({ ...rest, project: project?.dir }));
  }

  it('members and _apps/* with a name and a dev script; app = folder name; kind rules; sorted by app', async () => {
    const seed: Seed = {
      'shop/package.json': pkg({ name: 'shop', workspaces: ['apps/*', 'packages/*'], scripts: { dev: 'x' } }),
      'shop/pnpm-lock.yaml': '',
      'shop/apps/web/package.json': app('@shop/web', { dependencies: { vite: '5', next: '14' } }), // next before vite
      'shop/apps/site/package.json': app('site', { devDependencies: { '@sveltejs/kit': '2', astro: '4' } }),
      'shop/apps/hello/package.json': app('@shop/hello', { intentic: { template: 'hello' }, dependencies: { vite: '5' } }),
      'shop/apps/gone/package.json': app('gone', { intentic: { template: 'retired' }, dependencies: { nuxt: '3' } }),
      'shop/apps/Bad_Name/package.json': app('bad'),
      'shop/apps/nodev/package.json': pkg({ name: 'nodev', scripts: { start: 'x' } }),
      'shop/packages/lib/package.json': pkg({ name: 'lib' }),
      'shop/packages/tool/package.json': app('tool'),
      'shop/_apps/admin/package.json': app('admin', { devDependencies: { vite: '5' } }),
      'shop/_apps/web/package.json': app('web-copy'), // `web` again: apps/web comes first by dir
      'shop/_apps/unnamed/package.json': pkg({ scripts: { dev: 'x' } }),
    };
    expect(await apps(seed, 'shop', new Set(['hello']))).toEqual([
      { app: 'admin', dir: 'shop/_apps/admin', kind: 'vite', project: 'shop' },
      { app: 'gone', dir: 'shop/apps/gone', kind: 'nuxt', project: 'shop' },
      { app: 'hello', dir: 'shop/apps/hello', kind: 'hello', project: 'shop' },
      { app: 'site', dir: 'shop/apps/site', kind: 'astro', project: 'shop' },
      { app: 'tool', dir: 'shop/packages/tool', project: 'shop' },
      { app: 'web', dir: 'shop/_apps/web', project: 'shop' },
    ]);
    // Without a templates source to ask, a stamp is taken as it is.
    expect((await apps(seed, 'shop')).find((entry) => entry.app === 'gone')?.kind).toBe('retired');
  });

  it('the repo folder when it is one package; its name is the folder`s', async () => {
    expect(await apps({ 'my-site/package.json': app('whatever', { devDependencies: { '@sveltejs/kit': '2' } }) }, 'my-site')).toEqual([
      { app: 'my-site', dir: 'my-site', kind: 'svelte', project: 'my-site' },
    ]);
    expect(await apps({ 'My_Site/package.json': app('x') }, 'My_Site')).toEqual([]);
  });

  it('a linked _apps folder or app folder is never entered', async () => {
    const t = await build({ 'r/_apps': { link: '$OUTSIDE' }, 'q/_apps/x': { link: '$OUTSIDE/app' } });
    await t.fs.write(`${t.outside}/app/package.json`, app('x'), { mkdirs: true });
    await t.fs.write(`${t.outside}/y/package.json`, app('y'), { mkdirs: true });
    const model = createProjectModel({ fs: t.fs, root: t.root });
    expect(await model.apps(`${t.root}/r`)).toEqual([]);
    expect(await model.apps(`${t.root}/q`)).toEqual([]);
  });
});
