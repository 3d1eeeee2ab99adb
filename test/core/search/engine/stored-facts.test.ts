/**
 * An engine that starts again over stores kept from an earlier one (its content index, each file's definitions
 * and prose terms: core/search/file-facts-store.ts) reads only the files that changed meanwhile and the files a
 * query must read, and answers as an engine that read everything. `settleFirst` answers whole from the first
 * query on. (The SQLite stores a Durable Object uses are tested in workerd: test/adapters/search.)
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { FileSystem } from '../../../../adapters/fs/file-system.ts';
import { MemoryFileSystem } from '../../../../adapters/fs/memory-file-system.ts';
import { createChangeFeed } from '../../../../core/changes/create-change-feed.ts';
import { MemoryIndexStore } from '../../../../core/search/content-index/index-store.ts';
import type { SearchAdapters } from '../../../../core/search/engine/engine-types.ts';
import type { FileFactsStore } from '../../../../core/search/file-facts-store.ts';
import type { SearchRequest } from '../../../../core/search/query/search-request.ts';
import { createSearchEngine, type SearchEngine } from '../../../../core/search/search-engine.ts';

class MapFactsStore<T> implements FileFactsStore<T> {
  readonly rows = new Map<string, { version: string; value: T }>();
  async get(path: string, version: string) {
    const row = this.rows.get(path);
    return row?.version === version ? row.value : undefined;
  }
  async put(path: string, version: string, value: T) {
    this.rows.set(path, { version, value });
  }
  async remove(path: string) {
    this.rows.delete(path);
  }
  async retain(keep: (path: string) => boolean) {
    for (const path of [...this.rows.keys()]) if (!keep(path)) this.rows.delete(path);
  }
}

const seed: Record<string, string> = {
  '/ws/README.md': '# Gadgets\n\nHow gadgets are assembled from parts and shipped.\n',
  '/ws/src/gadget.ts': 'export function assembleGadget(parts: string[]) {\n  return parts.join("+");\n}\n',
  '/ws/src/ship.ts': 'import { assembleGadget } from "./gadget";\nexport const shipGadget = () => assembleGadget(["a"]);\n',
  '/ws/src/other.ts': 'export class Unrelated {\n  value = 1;\n}\n',
  '/ws/docs/notes.md': 'Shipping notes: every parcel is weighed.\n',
  '/ws/dist/out.js': 'function assembleGadget() {}\n',
  '/ws/.gitignore': 'dist/\n',
};

/** `fs` with the paths of its file reads recorded. */
function recorded(fs: FileSystem, paths: string[]): FileSystem {
  return new Proxy(fs, {
    get(target, key) {
      const value: unknown = Reflect.get(target, key, target);
      if (typeof value !== 'function') return value;
      if (key !== 'read' && key !== 'readWithStat' && key !== 'readStream') return value.bind(target);
      return (path: string, ...rest: unknown[]) => {
        paths.push(path.slice('/ws/'.length));
        return (value as (...args: unknown[]) => unknown).call(target, path, ...rest);
      };
    },
  });
}

const engines: SearchEngine[] = [];
afterEach(async () => {
  await Promise.all(engines.splice(0).map((engine) => engine.close()));
});

function engineOver(fs: FileSystem, adapters: SearchAdapters): SearchEngine {
  const engine = createSearchEngine({ ...adapters, fs, root: async () => '/ws', changes: createChangeFeed(), changesAreSeen: true, exclude: async () => [] });
  engines.push(engine);
  return engine;
}

const request = (query: string, mode: SearchRequest['mode'] = 'q'): SearchRequest => ({
  query,
  mode,
  includeIgnored: false,
  literal: false,
  word: false,
  caseSensitive: false,
  include: '',
  limit: 300,
});

const QUERIES: SearchRequest[] = [
  request('assembleGadget'),
  request('assembleGadget', 'refs'),
  request('Gadget', 'sym'),
  request('how are gadgets shipped'),
  request('parcel', 'find'),
];

async function answers(engine: SearchEngine) {
  const out = [];
  for (const query of QUERIES) {
    const { freshness: _freshness, ...answer } = await engine.search(query);
    out.push(answer);
  }
  return out;
}

describe('stored facts', () => {
  it('a restarted engine reads only what changed and what a query must read, and answers as one that read everything', async () => {
    const fs = new MemoryFileSystem(seed);
    const stores = { indexStore: new MemoryIndexStore(), symbolStore: new MapFactsStore(), proseStore: new MapFactsStore() } satisfies SearchAdapters;
    const first = engineOver(fs, { ...stores, settleFirst: true });
    expect((await answers(first)).map((answer) => answer.total)).toEqual([3, 2, 2, 2, 1]);
    await first.close();
    expect([...stores.symbolStore.rows.keys()].sort()).toEqual(['src/gadget.ts', 'src/other.ts', 'src/ship.ts']);
    expect([...stores.proseStore.rows.keys()].sort()).toEqual(['.gitignore', 'README.md', 'docs/notes.md', 'src/gadget.ts', 'src/other.ts', 'src/ship.ts']);

    // Meanwhile (no engine running): one file changed, one removed.
    await fs.write('/ws/src/other.ts', 'export class Unrelated {\n  value = 2;\n}\n');
    await fs.remove('/ws/docs/notes.md');
    const read: string[] = [];
    const restarted = engineOver(recorded(fs, read), { ...stores, settleFirst: true });
    await restarted.settled();
    // The walk's ignore rules, and the changed file (once per part that derives from it); nothing else.
    expect([...new Set(read)].sort()).toEqual(['.gitignore', 'src/other.ts']);
    expect(stores.proseStore.rows.has('docs/notes.md')).toBe(false);

    read.length = 0;
    const again = await answers(restarted);
    const reference = await answers(engineOver(fs, { settleFirst: true })); // no store: reads everything
    expect(again).toEqual(reference);
    // The files whose text holds a match (a hit's line is read from the file); no other.
    expect([...new Set(read)].sort()).toEqual(['src/gadget.ts', 'src/ship.ts']);
  });

  it('settleFirst: the first answer is whole, never building', async () => {
    const fs = new MemoryFileSystem(seed);
    const engine = engineOver(fs, { settleFirst: true });
    const answer = await engine.search(request('parcel', 'find'));
    expect(answer.freshness).toEqual({ state: 'fresh', ageMs: 0 });
    expect(answer.groups.map((group) => group.path)).toEqual(['docs/notes.md']);
    const filter = await engine.mayHoldMatch({ pattern: 'parcel', literal: true, caseSensitive: false, word: false });
    expect(filter?.('/ws/src/gadget.ts')).toBe(false);
    expect(filter?.('/ws/docs/notes.md')).toBe(true);
  });
});
