/**
 * `GET /workspace/repos/{repo}/graph` (docs/intentic-projects.md#graph): the repo's packages (workspace-members.ts) and the
 * edges between them. `dependencies` and `optionalDependencies` give `prod` edges, `devDependencies` `dev`,
 * `peerDependencies` `peer`: any key naming another member, whatever its range (`workspace:*`, `catalog:`, `*`).
 * A name in two blocks gives two edges (one per type: the same edge twice, e.g. `dependencies` and
 * `optionalDependencies`, is listed once). Edges are sorted by from, to, then prod < dev < peer.
 */
import type { PackageInfo } from './project-model.ts';
import { dependencyNames } from './package-manifest.ts';
import { compareCodeUnits } from '../text/code-units.ts';

export type EdgeType = 'prod' | 'dev' | 'peer';

export interface PackageGraph {
  packages: Array<{ name: string; dir: string; group: string }>;
  edges: Array<{ from: string; to: string; type: EdgeType }>;
}

const BLOCKS: ReadonlyArray<readonly [block: string, type: EdgeType]> = [
  ['dependencies', 'prod'],
  ['optionalDependencies', 'prod'],
  ['devDependencies', 'dev'],
  ['peerDependencies', 'peer'],
];
const TYPE_ORDER: Record<EdgeType, number> = { prod: 0, dev: 1, peer: 2 };

/** The graph over `packages` (sorted by dir, names unique: the members). */
export function packageGraph(packages: readonly PackageInfo[]): PackageGraph {
  const names = new Set(packages.map((pkg) => pkg.name));
  const seen = new Set<string>();
  const edges: PackageGraph['edges'] = [];
  for (const pkg of packages) {
    for (const [block, type] of BLOCKS) {
      for (const to of dependencyNames(pkg.manifest, block)) {
        const key = JSON.stringify([pkg.name, to, type]);
        if (to === pkg.name || !names.has(to) || seen.has(key)) continue;
        seen.add(key);
        edges.push({ from: pkg.name, to, type });
      }
    }
  }
  edges.sort((a, b) => compareCodeUnits(a.from, b.from) || compareCodeUnits(a.to, b.to) || TYPE_ORDER[a.type] - TYPE_ORDER[b.type]);
  return {
    packages: packages.map(({ name, dir }) => ({ name, dir, group: dir.split('/')[0]! })),
    edges,
  };
}
