/**
 * Health's per-file figures on disk (core/health/figures-store.ts): one JSON file, `health-figures.json`, in the
 * search index's folder (outside the workspace, owner-only, one daemon per folder: adapters/search/
 * index-store-disk.ts). Written whole and atomically after each measurement; the kernel's 78k files make ~10 MB.
 * A file of another format, or one that does not parse as this shape, is ignored (everything is measured again).
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { FIGURES_FORMAT, type FiguresStore, type StampedFigures } from '../../core/health/figures-store.ts';
import { writeFileAtomic } from '../search/index-store-disk.ts';

const FILE = 'health-figures.json';

/** [absolute path, size, mtimeMs, complexity, symbols, exports, imports, generated]: compact, one per file. */
const entry = z.tuple([z.string(), z.number(), z.number(), z.number(), z.number(), z.number(), z.array(z.string()), z.boolean()]);
const saved = z.object({ format: z.literal(FIGURES_FORMAT), files: z.array(entry) });

export class DiskFiguresStore implements FiguresStore {
  readonly path: string;

  constructor(dir: string) {
    this.path = join(dir, FILE);
  }

  async load(): Promise<ReadonlyMap<string, StampedFigures> | undefined> {
    let text: string;
    try {
      text = await readFile(this.path, 'utf8');
    } catch {
      return undefined; // never saved
    }
    let parsed;
    try {
      parsed = saved.safeParse(JSON.parse(text));
    } catch {
      return undefined; // cut short or damaged
    }
    if (!parsed.success) return undefined;
    return new Map(
      parsed.data.files.map(([path, size, mtimeMs, complexity, symbols, exports, imports, generated]) => [
        path,
        { size, mtimeMs, complexity, symbols, exports, imports, generated },
      ]),
    );
  }

  async save(figures: ReadonlyMap<string, StampedFigures>): Promise<void> {
    const files = [...figures].map(([path, f]) => [path, f.size, f.mtimeMs, f.complexity, f.symbols, f.exports, f.imports, f.generated]);
    await writeFileAtomic(this.path, new TextEncoder().encode(JSON.stringify({ format: FIGURES_FORMAT, files })));
  }
}
