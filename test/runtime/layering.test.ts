import { readFile } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '../../runtime/worker-build.ts';
import { importedSpecifiers, tsFilesUnder } from '../support/module-imports.ts';

/**
 * The layers (docs/architecture.md): runtime → handlers → core → adapters. An import never runs up: core and
 * adapters never import runtime/ or handlers/; the typed client (client/) takes only types from them. Handlers use runtime's request context, validation and error
 * rendering (the wire seam they plug into); that they never import `node:*` is checked in edge-clean.test.ts.
 */

const LAYERS = ['runtime', 'handlers', 'core', 'adapters', 'client'] as const;
type Layer = (typeof LAYERS)[number];

/** What each layer may not import. */
const FORBIDDEN: Record<Layer, Layer[]> = {
  runtime: [],
  handlers: [],
  core: ['runtime', 'handlers'],
  adapters: ['runtime', 'handlers'],
  // The typed client runs in browsers and Workers too: types only from handlers/ and runtime/ (checked below).
  client: ['core', 'adapters'],
};

/** The top-level folder a relative import from `file` lands in, or undefined for a package import. */
export function layerOfImport(file: string, specifier: string): string | undefined {
  if (!specifier.startsWith('.')) return undefined;
  const target = relative(projectRoot, resolve(dirname(file), specifier));
  return target.split(/[\\/]/)[0];
}

async function upwardImports(layer: Layer): Promise<string[]> {
  const found: string[] = [];
  for (const file of await tsFilesUnder(join(projectRoot, layer))) {
    for (const specifier of importedSpecifiers(await readFile(file, 'utf8'))) {
      const target = layerOfImport(file, specifier);
      if (target && (FORBIDDEN[layer] as string[]).includes(target)) {
        found.push(`${relative(projectRoot, file)} imports '${specifier}' (${target}/)`);
      }
    }
  }
  return found;
}

describe('layering', () => {
  it('finds the layer of a relative import', () => {
    const file = join(projectRoot, 'core/search/engine/run-mode.ts');
    expect(layerOfImport(file, '../../../runtime/app.ts')).toBe('runtime');
    expect(layerOfImport(file, '../../errors/workspace-error.ts')).toBe('core');
    expect(layerOfImport(file, 'zod')).toBeUndefined();
  });

  it('client/ takes only types from handlers/ and runtime/, and never imports node:*', async () => {
    const found: string[] = [];
    for (const file of await tsFilesUnder(join(projectRoot, 'client'))) {
      const text = await readFile(file, 'utf8');
      for (const line of text.split('\n').filter((l) => /^import\b/.test(l))) {
        const specifier = /from '([^']+)'/.exec(line)?.[1] ?? '';
        const layer = layerOfImport(file, specifier);
        if (specifier.startsWith('node:') || ((layer === 'handlers' || layer === 'runtime') && !line.startsWith('import type '))) {
          found.push(`${relative(projectRoot, file)}: ${line}`);
        }
      }
    }
    expect(found).toEqual([]);
  });

  for (const layer of LAYERS.filter((l) => FORBIDDEN[l].length > 0)) {
    it(`${layer}/ never imports ${FORBIDDEN[layer].join(' or ')}/`, async () => {
      expect(await upwardImports(layer)).toEqual([]);
    });
  }
});
