/** `GET /workspace/repos/{repo}/graph` through Intentic's client over real folders. */
import { afterEach, describe, expect, it } from 'vitest';
import { intenticClient, orpcFailure } from '../../support/intentic-contract.ts';
import { nodeApp, tempWorkspace, type TempWorkspace } from '../../support/workspace.ts';

const pkg = (manifest: Record<string, unknown>) => JSON.stringify(manifest);

let ws: TempWorkspace | undefined;
afterEach(async () => {
  await ws?.cleanup();
  ws = undefined;
});

async function client(files: Record<string, string>) {
  ws = await tempWorkspace(files);
  return intenticClient(nodeApp(ws.root)).workspace;
}
const failure = orpcFailure;

const monorepo = {
  'shop/.git/HEAD': 'ref: refs/heads/main\n',
  'shop/package.json': pkg({ name: 'shop', private: true }),
  'shop/pnpm-workspace.yaml': 'packages:\n  - apps/*\n  - packages/**\n  - "!packages/**/fixtures/**"\n',
  'shop/apps/web/package.json': pkg({
    name: '@shop/web',
    dependencies: { '@shop/ui': 'workspace:*', react: '18' },
    devDependencies: { '@shop/ui': 'workspace:*', '@shop/config': 'catalog:' },
  }),
  'shop/packages/ui/package.json': pkg({ name: '@shop/ui', peerDependencies: { react: '*', '@shop/tokens': '*' } }),
  'shop/packages/design/tokens/package.json': pkg({ name: '@shop/tokens', optionalDependencies: { '@shop/config': '^1' } }),
  'shop/packages/config/package.json': pkg({ name: '@shop/config' }),
  'shop/packages/ui/fixtures/f/package.json': pkg({ name: 'fixture', dependencies: { '@shop/ui': '*' } }),
  'shop/packages/zz-dup/package.json': pkg({ name: '@shop/ui', dependencies: { '@shop/web': '*' } }), // a name again: the first dir wins
  'shop/packages/broken/package.json': '{',
};

describe('GET /workspace/repos/{repo}/graph', () => {
  it('members by the pnpm globs (`**`, `!`), edges of every type, a name in two blocks giving two edges', async () => {
    const workspace = await client(monorepo);
    expect(await workspace.packageGraph({ repo: 'shop' })).toEqual({
      packages: [
        { name: '@shop/web', dir: 'apps/web', group: 'apps' },
        { name: '@shop/config', dir: 'packages/config', group: 'packages' },
        { name: '@shop/tokens', dir: 'packages/design/tokens', group: 'packages' },
        { name: '@shop/ui', dir: 'packages/ui', group: 'packages' },
      ],
      edges: [
        { from: '@shop/tokens', to: '@shop/config', type: 'prod' },
        { from: '@shop/ui', to: '@shop/tokens', type: 'peer' },
        { from: '@shop/web', to: '@shop/config', type: 'dev' },
        { from: '@shop/web', to: '@shop/ui', type: 'prod' },
        { from: '@shop/web', to: '@shop/ui', type: 'dev' },
      ],
    });
  });

  it('npm workspaces (object form) in a nested repo id, sent percent-encoded', async () => {
    const workspace = await client({
      'team/api/.git/HEAD': '',
      'team/api/package.json': pkg({ name: 'api', workspaces: { packages: ['libs/*'] } }),
      'team/api/libs/a/package.json': pkg({ name: 'a', dependencies: { b: '1.0.0' } }),
      'team/api/libs/b/package.json': pkg({ name: 'b', devDependencies: { a: '*' } }),
    });
    expect(await workspace.packageGraph({ repo: 'team/api' })).toEqual({
      packages: [
        { name: 'a', dir: 'libs/a', group: 'libs' },
        { name: 'b', dir: 'libs/b', group: 'libs' },
      ],
      edges: [
        { from: 'a', to: 'b', type: 'prod' },
        { from: 'b', to: 'a', type: 'dev' },
      ],
    });
  });

  it('one package without workspaces; `root`; a folder with no package', async () => {
    const workspace = await client({ 'package.json': pkg({ name: 'ws' }), 'solo/package.json': pkg({ name: 'solo', dependencies: { solo: '1' } }), 'empty/x.txt': '' });
    expect(await workspace.packageGraph({ repo: 'solo' })).toEqual({ packages: [{ name: 'solo', dir: '', group: '' }], edges: [] });
    expect(await workspace.packageGraph({ repo: 'root' })).toEqual({ packages: [{ name: 'ws', dir: '', group: '' }], edges: [] });
    expect(await workspace.packageGraph({ repo: 'empty' })).toEqual({ packages: [], edges: [] });
  });

  it('a bad repo is BAD_REQUEST and an unknown one NOT_FOUND, each naming it', async () => {
    const workspace = await client(monorepo);
    expect(await failure(workspace.packageGraph({ repo: 'bad name' }))).toEqual({ code: 'BAD_REQUEST', status: 400, message: 'invalid repo "bad name"' });
    expect(await failure(workspace.packageGraph({ repo: '../etc' }))).toEqual({ code: 'BAD_REQUEST', status: 400, message: 'invalid repo "../etc"' });
    expect(await failure(workspace.packageGraph({ repo: 'nope' }))).toEqual({ code: 'NOT_FOUND', status: 404, message: 'no repo named "nope"' });
    expect(await failure(workspace.packageGraph({ repo: 'shop/apps' }))).toEqual({ code: 'NOT_FOUND', status: 404, message: 'no repo named "shop/apps"' });
  });
});
