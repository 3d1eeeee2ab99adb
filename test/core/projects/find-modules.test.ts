import { describe, expect, it } from 'vitest';
import { createProjectModel } from '../../../core/projects/create-project-model.ts';
import { BACKENDS, treesFor } from '../../support/backends.ts';

const named = (name: unknown) => JSON.stringify({ name });

describe.each(BACKENDS)('modules (%s)', (backend) => {
  const build = treesFor(backend);

  it('root first (without its repos), then repos by id; nested packages; not into nested repos; fallbacks', async () => {
    const t = await build({
      'package.json': named('workspace'), // only a fallback: root has modules of its own
      'tools/gen/package.json': named('gen'),
      'tools/gen/.hidden/package.json': named('hidden'),
      'shop/.git/HEAD': 'ref: refs/heads/main\n',
      'shop/package.json': named('shop'),
      'shop/apps/web/package.json': named('web'),
      'shop/apps/web/plugins/p/package.json': named('plugin'), // packages nest
      'shop/a/b/c/d/package.json': named('depth-4'),
      'shop/a/b/c/d/e/package.json': named('depth-5'),
      'shop/apps/web/node_modules/x/package.json': named('x'),
      'shop/dist/package.json': named('built'),
      'shop/empty-name/package.json': named(''),
      'shop/vendor/lib/.git': 'gitdir: ../../.git/modules/lib\n', // a nested repo: discovery does not enter a repo, and modules never walk into one
      'shop/vendor/lib/package.json': named('lib'),
      'solo/.git/HEAD': '',
      'solo/package.json': named('solo'),
      'bare/.git/HEAD': '',
      '.intentic/x/package.json': named('state'),
    });
    const model = createProjectModel({ fs: t.fs, root: t.root });
    expect(await model.modules()).toEqual([
      { repo: 'root', modules: [{ dir: 'tools/gen', name: 'gen' }] },
      { repo: 'bare', modules: [] },
      {
        repo: 'shop',
        modules: [
          { dir: 'a/b/c/d', name: 'depth-4' },
          { dir: 'apps/web', name: 'web' },
          { dir: 'apps/web/plugins/p', name: 'plugin' },
        ],
      },
      { repo: 'solo', modules: [{ dir: '', name: 'solo' }] },
    ]);
  });

  it('root without modules of its own falls back to its named package.json', async () => {
    const t = await build({ 'package.json': named('ws'), 'r/.git/HEAD': '', 'r/m/package.json': named('m') });
    expect(await createProjectModel({ fs: t.fs, root: t.root }).modules()).toEqual([
      { repo: 'root', modules: [{ dir: '', name: 'ws' }] },
      { repo: 'r', modules: [{ dir: 'm', name: 'm' }] },
    ]);
  });

  it('never follows a link', async () => {
    const t = await build({ linked: { link: '$OUTSIDE' }, 'm/package.json': { link: '$OUTSIDE/package.json' } });
    await t.fs.write(`${t.outside}/package.json`, named('outside'));
    await t.fs.write(`${t.outside}/sub/package.json`, named('outside-sub'), { mkdirs: true });
    expect(await createProjectModel({ fs: t.fs, root: t.root }).modules()).toEqual([{ repo: 'root', modules: [] }]);
  });
});
