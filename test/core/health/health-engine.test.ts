/**
 * The health engine's cache and freshness (core/health/health-engine.ts) on the memory backend, with reads held
 * at a gate so `building` and `stale` are observed deterministically: building until the first measurement,
 * stale (the last figures, `behind`) while a reported change waits, fresh after; only changed files are read again.
 */
import { describe, expect, it } from 'vitest';
import { MemoryFileSystem } from '../../../adapters/fs/memory-file-system.ts';
import { TreeSitterParsers } from '../../../adapters/search/tree-sitter-parsers.ts';
import { createChangeFeed } from '../../../core/changes/create-change-feed.ts';
import { createHealthEngine } from '../../../core/health/health-engine.ts';
import type { FiguresStore, StampedFigures } from '../../../core/health/figures-store.ts';
import { handledFrames } from '../../support/handled-frames.ts';

const parsers = new TreeSitterParsers();

/** A memory FileSystem whose `read` waits while the gate is closed, counting reads per path. */
function gatedFs(seed: Record<string, string>) {
  const fs = new MemoryFileSystem(seed);
  const reads = new Map<string, number>();
  let open: Promise<void> = Promise.resolve();
  let release = () => {};
  const read = fs.read.bind(fs);
  fs.read = async (path, range) => {
    reads.set(path, (reads.get(path) ?? 0) + 1);
    await open;
    return read(path, range);
  };
  return {
    fs,
    reads,
    close() {
      open = new Promise((resolve) => (release = resolve));
    },
    open: () => release(),
  };
}

const scope = { id: 'root', dir: '/ws', relative: '' };

describe('health engine freshness', () => {
  it('building, then fresh; a reported change is stale (with the last figures) until measured, then fresh', async () => {
    const gated = gatedFs({ '/ws/a.ts': 'export const a = 1;\nif (a) {}\n', '/ws/b.ts': 'export const b = 2;\n' });
    const frames = handledFrames(createChangeFeed());
    const changes = frames.feed;
    const engine = createHealthEngine({ fs: gated.fs, root: '/ws', git: undefined, parsers, changes, waitMs: 5000 });

    gated.close();
    expect(await engine.report({ scope, windowMs: undefined, limit: 20, waitMs: 20 })).toEqual({
      repo: 'root',
      totals: { files: 0, symbols: 0, complexity: 0, hotspots: 0 },
      hotspots: [],
      modules: [],
      freshness: { state: 'building', ageMs: 0, progress: 0 },
    });
    gated.open();
    const first = await engine.report({ scope, windowMs: undefined, limit: 20 });
    expect(first).toEqual({
      repo: 'root',
      totals: { files: 2, symbols: 2, complexity: 1, hotspots: 0 },
      hotspots: [],
      modules: [
        { path: 'a.ts', exports: 1 },
        { path: 'b.ts', exports: 1 },
      ],
      freshness: { state: 'fresh', ageMs: expect.any(Number) },
    });
    expect(Object.fromEntries(gated.reads)).toEqual({ '/ws/a.ts': 1, '/ws/b.ts': 1 });

    // Warm: nothing read again.
    await engine.report({ scope, windowMs: undefined, limit: 20 });
    expect(Object.fromEntries(gated.reads)).toEqual({ '/ws/a.ts': 1, '/ws/b.ts': 1 });

    // b.ts changes (reported by the feed): held at the gate, the call answers the last figures as stale.
    await gated.fs.write('/ws/b.ts', 'export const b = 2;\nexport const c = 3;\nwhile (b) {}\n');
    changes.publish({ absolutePath: '/ws/b.ts', version: 'v2' });
    await frames.handled(); // the subscription has heard it
    gated.close();
    const stale = await engine.report({ scope, windowMs: undefined, limit: 20, waitMs: 20 });
    expect(stale).toEqual({ ...first, freshness: { state: 'stale', ageMs: expect.any(Number), behind: 1 } });
    gated.open();
    expect(await engine.report({ scope, windowMs: undefined, limit: 20 })).toEqual({
      repo: 'root',
      totals: { files: 2, symbols: 3, complexity: 2, hotspots: 0 },
      hotspots: [],
      // Neither imports the other: equal ranks, by path.
      modules: [
        { path: 'a.ts', exports: 1 },
        { path: 'b.ts', exports: 2 },
      ],
      freshness: { state: 'fresh', ageMs: expect.any(Number) },
    });
    // Only the changed file was read again.
    expect(Object.fromEntries(gated.reads)).toEqual({ '/ws/a.ts': 1, '/ws/b.ts': 2 });
    await engine.close();
    await changes.close();
  });

  it('a resync drops every cached figure', async () => {
    const gated = gatedFs({ '/ws/a.ts': 'export const a = 1;\n' });
    const frames = handledFrames(createChangeFeed());
    const changes = frames.feed;
    const engine = createHealthEngine({ fs: gated.fs, root: '/ws', git: undefined, parsers, changes });
    await engine.report({ scope, windowMs: undefined, limit: 20 });
    changes.resync();
    await frames.handled();
    await engine.report({ scope, windowMs: undefined, limit: 20 });
    expect(gated.reads.get('/ws/a.ts')).toBe(2);
    await engine.close();
    await changes.close();
  });

  it('changesAreSeen: an unchanged scope is not walked again; a reported new file, or a .gitignore beside it, is', async () => {
    const gated = gatedFs({ '/ws/shop/a.ts': 'export const a = 1;\n', '/ws/docs/b.ts': 'export const b = 1;\n' });
    let listed = 0;
    const readdir = gated.fs.readdir.bind(gated.fs);
    gated.fs.readdir = async (path) => {
      listed++;
      return readdir(path);
    };
    const frames = handledFrames(createChangeFeed());
    const changes = frames.feed;
    const engine = createHealthEngine({ fs: gated.fs, root: '/ws', git: undefined, parsers, changes, changesAreSeen: true });
    const shop = { id: 'shop', dir: '/ws/shop', relative: 'shop' };
    const files = async () => (await engine.report({ scope: shop, windowMs: undefined, limit: 20 })).modules.map((m) => m.path);
    expect(await files()).toEqual(['shop/a.ts']);
    const walked = listed;
    expect(walked).toBeGreaterThan(0);
    expect(await files()).toEqual(['shop/a.ts']);
    expect(listed).toBe(walked); // answered from the last measurement

    // A file written behind the feed's back is not seen (that is what the option promises away)…
    await gated.fs.write('/ws/shop/hidden.ts', 'export const h = 1;\n');
    expect(await files()).toEqual(['shop/a.ts']);
    // …one the feed reports is.
    await gated.fs.write('/ws/shop/c.ts', 'export const c = 1;\n');
    changes.publish({ absolutePath: '/ws/shop/c.ts', version: 'v1' });
    await frames.handled();
    expect(await files()).toEqual(['shop/a.ts', 'shop/c.ts', 'shop/hidden.ts']);
    expect(listed).toBeGreaterThan(walked);

    // The workspace's .gitignore rules over a top-level folder: a change to it, outside the scope, re-walks.
    await gated.fs.write('/ws/.gitignore', 'shop/c.ts\n');
    changes.publish({ absolutePath: '/ws/.gitignore', version: 'v1' });
    await frames.handled();
    expect(await files()).toEqual(['shop/a.ts', 'shop/hidden.ts']);
    // A change elsewhere does not.
    const before = listed;
    changes.publish({ absolutePath: '/ws/docs/b.ts', version: 'v2' });
    await frames.handled();
    expect(await files()).toEqual(['shop/a.ts', 'shop/hidden.ts']);
    expect(listed).toBe(before);
    await engine.close();
    await changes.close();
  });

  it('without changesAreSeen every call walks the scope: a file written behind the feed is seen', async () => {
    const gated = gatedFs({ '/ws/a.ts': 'export const a = 1;\n' });
    const changes = createChangeFeed();
    const engine = createHealthEngine({ fs: gated.fs, root: '/ws', git: undefined, parsers, changes });
    expect((await engine.report({ scope, windowMs: undefined, limit: 20 })).totals.files).toBe(1);
    await gated.fs.write('/ws/b.ts', 'export const b = 1;\n');
    expect((await engine.report({ scope, windowMs: undefined, limit: 20 })).totals.files).toBe(2);
    await engine.close();
    await changes.close();
  });

  it('with a store: a restarted engine reads only the files whose size or mtime moved, and answers the same', async () => {
    const seed = { '/ws/a.ts': 'export const a = 1;\nif (a) {}\n', '/ws/b.ts': 'export const b = 2;\n', '/ws/c.py': 'def f(x):\n    return x or 1\n' };
    let saved: ReadonlyMap<string, StampedFigures> | undefined;
    let saves = 0;
    const store: FiguresStore = {
      load: async () => saved,
      save: async (figures) => {
        saves++;
        saved = new Map([...figures].map(([path, f]) => [path, structuredClone(f)]));
      },
    };
    const gated = gatedFs(seed);
    const first = createHealthEngine({ fs: gated.fs, root: '/ws', git: undefined, parsers, changes: createChangeFeed(), store });
    const before = await first.report({ scope, windowMs: undefined, limit: 20 });
    expect(before.totals).toEqual({ files: 3, symbols: 3, complexity: 2, hotspots: 0 });
    await first.close();
    expect(saves).toBe(1);
    expect([...saved!.keys()].sort()).toEqual(['/ws/a.ts', '/ws/b.ts', '/ws/c.py']);

    // The daemon restarts; meanwhile b.ts changed (another size) and nobody reported it.
    await gated.fs.write('/ws/b.ts', 'export const b = 2;\nwhile (b) {}\n');
    gated.reads.clear();
    const second = createHealthEngine({ fs: gated.fs, root: '/ws', git: undefined, parsers, changes: createChangeFeed(), store });
    const after = await second.report({ scope, windowMs: undefined, limit: 20 });
    expect(Object.fromEntries(gated.reads)).toEqual({ '/ws/b.ts': 1 });
    expect(after).toEqual({ ...before, totals: { files: 3, symbols: 3, complexity: 3, hotspots: 0 }, freshness: after.freshness });
    await second.close();
    expect(saved!.get('/ws/b.ts')).toMatchObject({ complexity: 1, symbols: 1, size: 'export const b = 2;\nwhile (b) {}\n'.length });

    // An unreadable store is measured over, not an error.
    const broken = createHealthEngine({
      fs: gated.fs, root: '/ws', git: undefined, parsers, changes: createChangeFeed(),
      store: { load: () => Promise.reject(new Error('disk gone')), save: async () => {} },
    });
    expect((await broken.report({ scope, windowMs: undefined, limit: 20 })).totals).toEqual(after.totals);
    await broken.close();
  });
});
