/** `GET /workspace/modules` through Intentic's client over real folders (real git repos, nested ones too). */
import { execFileSync } from 'node:child_process';
import { symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { intenticClient } from '../../support/intentic-contract.ts';
import { nodeApp, tempWorkspace, type TempWorkspace } from '../../support/workspace.ts';

const named = (name: string) => JSON.stringify({ name, version: '1.0.0' });

let ws: TempWorkspace | undefined;
afterEach(async () => {
  await ws?.cleanup();
  ws = undefined;
});

describe('GET /workspace/modules', () => {
  it('root first, then each repo by id, with nested packages; never into nested repos, links or .intentic', async () => {
    ws = await tempWorkspace({
      'tools/scripts/package.json': named('scripts'),
      '.intentic/state/package.json': named('state'),
      'shop/package.json': named('shop'),
      'shop/apps/web/package.json': named('@shop/web'),
      'shop/apps/web/widgets/chart/package.json': named('@shop/chart'),
      'shop/node_modules/react/package.json': named('react'),
      'shop/vendor/sdk/package.json': named('sdk'),
      'shop/vendor/sdk/src/inner/package.json': named('sdk-inner'),
      'team/api/package.json': named('api'),
      'team/api/src/index.ts': '',
      'docs/README.md': '',
    });
    for (const repo of ['shop', 'shop/vendor/sdk', 'team/api', 'docs']) execFileSync('git', ['init', '-q', join(ws.root, repo)]);
    await symlink(join(ws.root, 'shop/apps'), join(ws.root, 'tools/linked-apps'));
    const app = nodeApp(ws.root);
    expect(await intenticClient(app).workspace.repos({})).toEqual({ repos: ['docs', 'shop', 'team/api'] });
    expect(await intenticClient(app).workspace.modules({})).toEqual({
      repos: [
        { repo: 'root', modules: [{ dir: 'tools/scripts', name: 'scripts' }] },
        { repo: 'docs', modules: [] },
        {
          repo: 'shop',
          modules: [
            { dir: 'apps/web', name: '@shop/web' },
            { dir: 'apps/web/widgets/chart', name: '@shop/chart' },
          ],
        },
        { repo: 'team/api', modules: [{ dir: '', name: 'api' }] },
      ],
    });
  });

  it('an empty workspace has only root, with no modules', async () => {
    ws = await tempWorkspace({ 'notes.txt': '' });
    expect(await intenticClient(nodeApp(ws.root)).workspace.modules({})).toEqual({ repos: [{ repo: 'root', modules: [] }] });
  });
});
