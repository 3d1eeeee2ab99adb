/**
 * Health's figures on disk (adapters/health/disk-figures-store.ts): what is saved loads back equal, owner-only;
 * a damaged file, one of another format, or none at all loads as nothing (so everything is measured again).
 */
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DiskFiguresStore } from '../../../adapters/health/disk-figures-store.ts';
import { FIGURES_FORMAT, type StampedFigures } from '../../../core/health/figures-store.ts';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'figures-store-'));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

const figures = new Map<string, StampedFigures>([
  ['/ws/src/a.ts', { size: 120, mtimeMs: 1_700_000_000_123.456, complexity: 4, symbols: 3, exports: 2, imports: ['./b.js', 'lodash'], generated: false }],
  ['/ws/gen/x.generated.ts', { size: 9, mtimeMs: 1, complexity: 0, symbols: 1, exports: 1, imports: [], generated: true }],
]);

describe('DiskFiguresStore', () => {
  it('loads back exactly what it saved, from an owner-only file, replaced whole on the next save', async () => {
    const store = new DiskFiguresStore(dir);
    expect(await store.load()).toBeUndefined();
    await store.save(figures);
    expect(await new DiskFiguresStore(dir).load()).toEqual(figures);
    expect((await stat(join(dir, 'health-figures.json'))).mode & 0o777).toBe(0o600);
    await store.save(new Map([...figures].slice(1)));
    expect([...(await store.load())!.keys()]).toEqual(['/ws/gen/x.generated.ts']);
  });

  it('a file cut short, of another format, or of another shape loads as nothing', async () => {
    const store = new DiskFiguresStore(dir);
    await store.save(figures);
    const text = await readFile(store.path, 'utf8');
    for (const damaged of [
      text.slice(0, text.length - 7),
      text.replace(`"format":${FIGURES_FORMAT}`, `"format":${FIGURES_FORMAT + 1}`),
      JSON.stringify({ format: FIGURES_FORMAT, files: [['/ws/a.ts', 1, 2, 'three', 4, 5, [], false]] }),
    ]) {
      await writeFile(store.path, damaged);
      expect(await store.load()).toBeUndefined();
    }
  });
});
