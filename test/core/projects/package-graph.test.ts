import { describe, expect, it } from 'vitest';
import { packageGraph } from '../../../core/projects/package-graph.ts';

const member = (name: string, dir: string, manifest: Record<string, unknown> = {}) => ({ name, dir, manifest: { name, ...manifest } });

describe('packageGraph', () => {
  it('prod, dev and peer edges for keys naming another member, whatever the range; two blocks give two edges', () => {
    const graph = packageGraph([
      member('@acme/web', 'apps/web', {
        dependencies: { '@acme/ui': 'workspace:*', react: '^18', '@acme/util': 'catalog:' },
        devDependencies: { '@acme/ui': '*', '@acme/config': 'workspace:^' },
        peerDependencies: { '@acme/util': '1.x' },
        optionalDependencies: { '@acme/ui': 'workspace:*' }, // prod again: listed once
      }),
      member('@acme/ui', 'packages/ui', { dependencies: { '@acme/ui': 'workspace:*' }, peerDependencies: { '@acme/util': '*' } }),
      member('@acme/util', 'packages/util', { optionalDependencies: { '@acme/config': 'x' }, dependencies: 'not an object' }),
      member('@acme/config', 'tooling', {}),
    ]);
    expect(graph).toEqual({
      packages: [
        { name: '@acme/web', dir: 'apps/web', group: 'apps' },
        { name: '@acme/ui', dir: 'packages/ui', group: 'packages' },
        { name: '@acme/util', dir: 'packages/util', group: 'packages' },
        { name: '@acme/config', dir: 'tooling', group: 'tooling' },
      ],
      edges: [
        { from: '@acme/ui', to: '@acme/util', type: 'peer' },
        { from: '@acme/util', to: '@acme/config', type: 'prod' },
        { from: '@acme/web', to: '@acme/config', type: 'dev' },
        { from: '@acme/web', to: '@acme/ui', type: 'prod' },
        { from: '@acme/web', to: '@acme/ui', type: 'dev' },
        { from: '@acme/web', to: '@acme/util', type: 'prod' },
        { from: '@acme/web', to: '@acme/util', type: 'peer' },
      ],
    });
  });

  it('one package at the repo folder has dir and group ""', () => {
    expect(packageGraph([member('solo', '')])).toEqual({ packages: [{ name: 'solo', dir: '', group: '' }], edges: [] });
  });
});
