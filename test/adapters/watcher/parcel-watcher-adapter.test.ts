import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ParcelWatcherAdapter, type ParcelWatcherOptions } from '../../../adapters/watcher/parcel-watcher-adapter.ts';
import type { WatchHandle, WatcherEvent } from '../../../adapters/watcher/watcher-adapter.ts';
import { inotifyWatches } from '../../support/inotify-watches.ts';
import { waitFor } from '../../support/processes.ts';

const run = promisify(execFile);
/** Runs a shell command in `cwd`: the writes come from another process, as an editor's or git's would. */
const sh = (cwd: string, command: string) => run('sh', ['-c', command], { cwd });

/** Generous: the machine is shared and loaded; every wait ends as soon as its event arrives. */
const TIMEOUT_MS = 15_000;

interface Watching {
  handle: WatchHandle;
  events: WatcherEvent[];
  errors: Error[];
  /** Resolves once an event for `path` has arrived (now or earlier). */
  seen(path: string): Promise<void>;
  /** Resolves once an error was reported. */
  failed(): Promise<Error>;
}

describe('ParcelWatcherAdapter (real files, shell writes)', () => {
  let root: string;
  let watching: Watching | undefined;

  beforeEach(async () => {
    root = await realpath(await mkdtemp(join(tmpdir(), 'watcher-')));
  });
  afterEach(async () => {
    await watching?.handle.close();
    watching = undefined;
    await rm(root, { recursive: true, force: true });
  });

  async function watch(options: ParcelWatcherOptions = {}, ignorePaths: string[] = []): Promise<Watching> {
    const events: WatcherEvent[] = [];
    const errors: Error[] = [];
    const waiters: { path: string; resolve: () => void }[] = [];
    const errorWaiters: ((error: Error) => void)[] = [];
    const handle = await new ParcelWatcherAdapter(options).watch(
      root,
      {
        onEvents(batch) {
          events.push(...batch);
          for (const waiter of [...waiters]) {
            if (batch.some((event) => event.path === waiter.path)) {
              waiters.splice(waiters.indexOf(waiter), 1);
              waiter.resolve();
            }
          }
        },
        onError(error) {
          errors.push(error);
          for (const waiter of errorWaiters.splice(0)) waiter(error);
        },
      },
      { ignoreNames: ['.git', 'node_modules'], ignorePaths },
    );
    const withTimeout = <T>(promise: Promise<T>, what: string) =>
      Promise.race([
        promise,
        new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`no ${what} within ${TIMEOUT_MS} ms`)), TIMEOUT_MS).unref()),
      ]);
    watching = {
      handle,
      events,
      errors,
      seen: (path) =>
        events.some((event) => event.path === path)
          ? Promise.resolve()
          : withTimeout(new Promise<void>((resolve) => waiters.push({ path, resolve })), `event for ${path}`),
      failed: () => (errors[0] ? Promise.resolve(errors[0]) : withTimeout(new Promise<Error>((resolve) => errorWaiters.push(resolve)), 'error')),
    };
    return watching;
  }

  const paths = (w: Watching) => w.events.map((event) => event.path);

  it('reports a shell write, a mkdir, a mv and an rm -r', async () => {
    await mkdir(join(root, 'old'));
    await writeFile(join(root, 'old', 'inside.txt'), 'x');
    const w = await watch();
    const kinds = (path: string) => w.events.filter((event) => event.path === join(root, path)).map((event) => event.kind);
    // The write is heard before the mv: parcel drops a path created and removed within one batch (its
    // create and delete cancel out), which is what a loaded machine makes of one shell line doing both.
    await sh(root, 'echo hello > file.txt');
    await w.seen(join(root, 'file.txt'));
    await sh(root, 'mkdir made && mv file.txt moved.txt && rm -r old');
    await Promise.all(['made', 'moved.txt', 'old/inside.txt', 'old'].map((name) => w.seen(join(root, name))));
    await waitFor(() => kinds('file.txt').includes('delete'), { timeoutMs: TIMEOUT_MS, what: 'file.txt moved away' });
    expect(kinds('file.txt')[0]).toBe('create');
    expect(kinds('made')).toContain('create');
    expect(kinds('moved.txt')).toContain('create');
    expect(kinds('old')).toContain('delete');
    expect(kinds('old/inside.txt')).toContain('delete');
  });

  it('does not enter .git, node_modules or an ignored path, and holds no watch inside them', async () => {
    await sh(root, 'mkdir -p .git/objects/aa node_modules/pkg/lib .agents/one src');
    const w = await watch({}, [join(root, '.agents')]);
    expect(await inotifyWatches()).toBe(2); // the root and src/ (parcel holds one per folder)
    await sh(root, 'echo a > .git/objects/aa/obj && echo b > node_modules/pkg/lib/x.js && echo c > .agents/one/f && mkdir node_modules/new && echo marker > src/marker.txt');
    await w.seen(join(root, 'src', 'marker.txt'));
    expect(paths(w).filter((path) => /\/(\.git|node_modules|\.agents)(\/|$)/.test(path))).toEqual([]);
  });

  it('update() watches with new ignored paths: a re-included folder is watched, a newly ignored one is not', async () => {
    await sh(root, 'mkdir -p build/a/b logs/x src');
    const w = await watch({}, [join(root, 'build')]);
    expect(await inotifyWatches()).toBe(4); // the root, logs/, logs/x/, src/
    await w.handle.update!({ ignoreNames: ['.git', 'node_modules'], ignorePaths: [join(root, 'logs')] });
    expect(await inotifyWatches()).toBe(5); // the root, build/, build/a/, build/a/b/, src/
    await sh(root, 'echo l > logs/x/l.log && echo b > build/a/b/b.js');
    await w.seen(join(root, 'build/a/b/b.js'));
    await sh(root, 'echo marker > src/marker.txt');
    await w.seen(join(root, 'src/marker.txt'));
    expect(paths(w).filter((path) => path.includes('/logs/'))).toEqual([]);
    expect(w.errors).toEqual([]);
  });

  it('reports what lands inside folders made at once (mkdir -p), and watches them from then on', async () => {
    const w = await watch();
    // A race parcel alone often loses (parcel-bundler/watcher#97): it watches a folder only once it hears of
    // it, by which time the folders below exist unwatched. (The deterministic case is the `mv` below.)
    await sh(root, 'mkdir -p a/b/c/d/e/f && echo 1 > a/b/c/d/e/f/first.txt');
    await w.seen(join(root, 'a/b/c/d/e/f/first.txt'));
    await sh(root, 'echo 2 > a/b/c/d/e/f/later.txt');
    await w.seen(join(root, 'a/b/c/d/e/f/later.txt'));
  });

  it('reports a folder moved in with content, and watches inside it', async () => {
    const outside = await realpath(await mkdtemp(join(tmpdir(), 'watcher-outside-')));
    try {
      await sh(outside, 'mkdir -p pkg/sub && echo x > pkg/sub/x.txt');
      const w = await watch();
      await sh(root, `mv "${outside}/pkg" moved`);
      await w.seen(join(root, 'moved/sub/x.txt'));
      await sh(root, 'echo y > moved/sub/y.txt');
      await w.seen(join(root, 'moved/sub/y.txt'));
    } finally {
      await rm(outside, { recursive: true, force: true });
    }
  });

  it('past its nested-subscription bound re-subscribes the root, says so, and still sees nested writes', async () => {
    const w = await watch({ maxNestedSubscriptions: 1 });
    await sh(root, 'mkdir -p one/x/y && echo 1 > one/x/y/f');
    await w.seen(join(root, 'one/x/y/f'));
    await sh(root, 'mkdir -p two/x/y && echo 2 > two/x/y/f');
    expect((await w.failed()).message).toMatch(/resync/);
    await sh(root, 'echo 3 > one/x/y/g && echo 4 > two/x/y/g');
    await Promise.all([w.seen(join(root, 'one/x/y/g')), w.seen(join(root, 'two/x/y/g'))]);
  });

  it('a folder arriving with more entries than the crawl bound asks for a resync', async () => {
    const outside = await realpath(await mkdtemp(join(tmpdir(), 'watcher-outside-')));
    try {
      await sh(outside, 'mkdir -p many/sub && for i in 1 2 3 4 5 6 7 8; do echo $i > many/sub/f$i; done');
      const w = await watch({ maxCrawlEntries: 5 });
      await sh(root, `mv "${outside}/many" many`);
      expect((await w.failed()).message).toMatch(/more than 5 entries appeared/);
    } finally {
      await rm(outside, { recursive: true, force: true });
    }
  });

  it('close() removes every watch, nested ones included, and nothing is delivered afterwards', async () => {
    const before = await inotifyWatches();
    const w = await watch();
    await sh(root, 'mkdir -p n/m/o && echo 1 > n/m/o/f');
    await w.seen(join(root, 'n/m/o/f'));
    expect(await inotifyWatches()).toBeGreaterThan(before);
    await w.handle.close();
    watching = undefined;
    expect(await inotifyWatches()).toBe(before);
    const count = w.events.length;
    await sh(root, 'echo late > late.txt');
    // Nothing can arrive without a watch; give a stray callback (if any were queued) a moment to show itself.
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(w.events.length).toBe(count);
  });

  it('refuses an ignore name that is not a plain folder name', async () => {
    await expect(
      new ParcelWatcherAdapter().watch(root, { onEvents() {}, onError() {} }, { ignoreNames: ['*.log'], ignorePaths: [] }),
    ).rejects.toThrow('not a plain folder name');
  });
});
