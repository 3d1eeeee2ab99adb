/** Import resolution for health's graph (core/health/resolve-imports.ts) and the module ranking over it. */
import { describe, expect, it } from 'vitest';
import { rankModules } from '../../../core/health/health-engine.ts';
import { resolveImport, type WorkspacePackage } from '../../../core/health/resolve-imports.ts';
import type { FileFigures } from '../../../core/health/file-figures.ts';

const files = new Set([
  'app/src/main.ts', 'app/src/util.ts', 'app/src/lib/index.ts', 'app/src/view.tsx', 'app/src/data.json',
  'packages/ui/src/index.ts', 'packages/ui/src/button.ts', 'packages/core/lib/entry.js', 'packages/core/src/index.ts',
]);
const packages = new Map<string, WorkspacePackage>([
  ['@acme/ui', { dir: 'packages/ui' }],
  ['core', { dir: 'packages/core', main: 'lib/entry.js' }],
]);
const resolve = (from: string, specifier: string) => resolveImport(from, specifier, files, packages);

describe('resolveImport', () => {
  it('relative: as written, `.js` naming `.ts`, extensions, `/index`', () => {
    expect(resolve('app/src/main.ts', './data.json')).toBe('app/src/data.json');
    expect(resolve('app/src/main.ts', './util.js')).toBe('app/src/util.ts');
    expect(resolve('app/src/main.ts', './view.js')).toBe('app/src/view.tsx');
    expect(resolve('app/src/main.ts', './util')).toBe('app/src/util.ts');
    expect(resolve('app/src/main.ts', './lib')).toBe('app/src/lib/index.ts');
    expect(resolve('app/src/lib/index.ts', '../util')).toBe('app/src/util.ts');
    expect(resolve('app/src/main.ts', './missing')).toBeUndefined();
    expect(resolve('app/src/main.ts', '../../../../outside')).toBeUndefined();
  });

  it('a workspace package: its main, else src/index.*; a subpath inside it; anything else nothing', () => {
    expect(resolve('app/src/main.ts', 'core')).toBe('packages/core/lib/entry.js');
    expect(resolve('app/src/main.ts', '@acme/ui')).toBe('packages/ui/src/index.ts');
    expect(resolve('app/src/main.ts', '@acme/ui/src/button')).toBe('packages/ui/src/button.ts');
    expect(resolve('app/src/main.ts', 'react')).toBeUndefined();
    expect(resolve('app/src/main.ts', 'node:fs')).toBeUndefined();
  });
});

describe('rankModules', () => {
  const figures = (exports: number, imports: string[] = [], generated = false): FileFigures => ({ complexity: 0, symbols: exports, exports, imports, generated });
  it('exporting, non-generated files by PageRank over resolved imports, then by path', () => {
    const ranked = rankModules(
      [
        { path: 'a.ts', figures: figures(1, ['./c', './b']) },
        { path: 'b.ts', figures: figures(2, ['./c']) },
        { path: 'c.ts', figures: figures(3) },
        { path: 'd.ts', figures: figures(1) },
        { path: 'e.ts', figures: figures(1) },
        { path: 'gen.ts', figures: figures(5, [], true) },
        { path: 'main.ts', figures: figures(0, ['./a', './gen']) },
      ],
      new Map(),
    );
    expect(ranked).toEqual([
      { path: 'c.ts', exports: 3 },
      { path: 'b.ts', exports: 2 },
      { path: 'a.ts', exports: 1 },
      { path: 'd.ts', exports: 1 },
      { path: 'e.ts', exports: 1 },
    ]);
  });
});
