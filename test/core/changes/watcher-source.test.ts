/**
 * The watcher source's own logic (stat → change, coalescing, the pending bound, .gitignore filtering) over a
 * MemoryFileSystem, with a scripted watcher standing in for the OS: the real one is tested against real
 * files in test/adapters/watcher and end to end in test/handlers/workspace-files/changes.test.ts.
 */
import { describe, expect, it } from 'vitest';
import type { FileSystem } from '../../../adapters/fs/file-system.ts';
import { MemoryFileSystem } from '../../../adapters/fs/memory-file-system.ts';
import type { WatcherAdapter, WatcherEvent, WatchListener, WatchOptions } from '../../../adapters/watcher/watcher-adapter.ts';
import type { Change, ChangeSink } from '../../../core/changes/change-feed.ts';
import { watcherSource, type WatcherSourceOptions } from '../../../core/changes/watcher-source.ts';
import { heldGiveWay } from '../../support/gates.ts';

class ScriptedWatcher implements WatcherAdapter {
  listener: WatchListener | undefined;
  options: WatchOptions | undefined;
  watchedRoot: string | undefined;
  closed = 0;
  /** The options of each `update`, in order. */
  updates: WatchOptions[] = [];
  async watch(root: string, listener: WatchListener, options: WatchOptions) {
    this.watchedRoot = root;
    this.listener = listener;
    this.options = options;
    return {
      close: async () => void this.closed++,
      update: async (next: WatchOptions) => {
        this.updates.push(next);
        this.options = next;
      },
    };
  }
  emit(...paths: string[]) {
    this.listener!.onEvents(paths.map((path): WatcherEvent => ({ path, kind: 'update' })));
  }
}

/** Records what the source publishes; `settled` waits until it has gone quiet (its stats are async). */
class RecordingSink implements ChangeSink {
  changes: Change[] = [];
  resyncs = 0;
  publish(change: Change) {
    this.changes.push(change);
  }
  resync() {
    this.resyncs++;
  }
}

/** Lets the source's pending stats finish (memory stats settle within a few macrotask turns). */
const settled = async () => {
  for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
};

/** Counts stats, to see coalescing. */
function countingStats(fs: FileSystem): { fs: FileSystem; counts: Map<string, number> } {
  const counts = new Map<string, number>();
  const lstat = fs.lstat.bind(fs);
  fs.lstat = (path: string) => {
    counts.set(path, (counts.get(path) ?? 0) + 1);
    return lstat(path);
  };
  return { fs, counts };
}

async function start(fs: FileSystem, overrides: Partial<WatcherSourceOptions> = {}) {
  const watcher = new ScriptedWatcher();
  const sink = new RecordingSink();
  const stop = await watcherSource({ watcher, fs, root: async () => '/ws', ...overrides }).start(sink);
  return { watcher, sink, stop };
}

describe('watcherSource', () => {
  it('watches the real root with the ignored names and paths, and stops the watcher', async () => {
    const fs = new MemoryFileSystem({ '/ws/a.txt': 'a' });
    const { watcher, stop } = await start(fs, { ignorePaths: async () => ['/ws/.agents'] });
    expect(watcher.watchedRoot).toBe('/ws');
    expect(watcher.options?.ignoreNames).toContain('.git');
    expect(watcher.options?.ignoreNames).toContain('node_modules');
    expect(watcher.options?.ignorePaths).toEqual(['/ws/.agents']);
    await stop();
    expect(watcher.closed).toBe(1);
  });

  it('turns reported paths into their state: present with its version, or absent', async () => {
    const fs = new MemoryFileSystem({ '/ws/a.txt': 'a', '/ws/d/b.txt': 'b' });
    const { watcher, sink } = await start(fs);
    watcher.emit('/ws/a.txt', '/ws/gone.txt', '/ws/d', '/ws/d/b.txt/not-a-dir');
    await settled();
    expect(sink.changes).toEqual([
      { absolutePath: '/ws/a.txt', version: (await fs.lstat('/ws/a.txt')).version },
      { absolutePath: '/ws/gone.txt', absent: true },
      { absolutePath: '/ws/d', version: (await fs.lstat('/ws/d')).version },
      { absolutePath: '/ws/d/b.txt/not-a-dir', absent: true },
    ]);
  });

  it('a link is reported as the link (its own version), not as its target', async () => {
    const fs = new MemoryFileSystem({ '/ws/target.txt': 't' });
    await fs.symlink('target.txt', '/ws/link');
    const { watcher, sink } = await start(fs);
    watcher.emit('/ws/link');
    await settled();
    expect(sink.changes).toEqual([{ absolutePath: '/ws/link', version: (await fs.lstat('/ws/link')).version }]);
  });

  it('coalesces a burst: one stat per path per round', async () => {
    const { fs, counts } = countingStats(new MemoryFileSystem({ '/ws/hot.txt': 'x' }));
    const { watcher, sink } = await start(fs, { gitignore: false });
    for (let i = 0; i < 100; i++) watcher.emit('/ws/hot.txt');
    await settled();
    expect(counts.get('/ws/hot.txt')).toBeLessThanOrEqual(2); // the first round, and at most one for the rest
    expect(sink.changes.length).toBe(counts.get('/ws/hot.txt'));
  });

  it('never reports nor stats our writes in flight (temp files, staging folders and what is in them); a look-alike name is a user file', async () => {
    const temp = '/ws/src/.wsapi-4242-0badcafe-0123456789abcdef.tmp';
    const staging = '/ws/.wsapi-copy-4242-0badcafe-0123456789abcdef';
    const oldTemp = '/ws/.wsapi-0123456789abcdef.tmp';
    const { fs, counts } = countingStats(
      new MemoryFileSystem({ [temp]: 'half', [`${staging}/a/b.txt`]: 'b', [oldTemp]: 'old', '/ws/.wsapi-notes.txt': 'mine', '/ws/src/x.ts': 'x' }),
    );
    const { watcher, sink } = await start(fs, { gitignore: false });
    watcher.emit(temp, staging, `${staging}/a`, `${staging}/a/b.txt`, oldTemp, '/ws/.wsapi-notes.txt', '/ws/src/x.ts');
    await settled();
    expect(sink.changes.map((change) => change.absolutePath).sort()).toEqual(['/ws/.wsapi-notes.txt', '/ws/src/x.ts']);
    expect([...counts.keys()].filter((path) => path.includes('.wsapi-'))).toEqual(['/ws/.wsapi-notes.txt']);
  });

  it('ignores paths outside the root', async () => {
    const fs = new MemoryFileSystem({ '/ws/a': 'a', '/elsewhere/b': 'b' });
    const { watcher, sink } = await start(fs);
    watcher.emit('/elsewhere/b', '/wsx/c');
    await settled();
    expect(sink.changes).toEqual([]);
  });

  it('more distinct paths waiting than maxPending: one resync instead of the stats', async () => {
    const { fs, counts } = countingStats(new MemoryFileSystem({ '/ws/a': 'a' }));
    const { watcher, sink } = await start(fs, { maxPending: 10 });
    counts.clear(); // the start's walk for ignored folders reads the rules files
    watcher.emit(...Array.from({ length: 11 }, (_, i) => `/ws/f${i}`));
    await settled();
    expect(sink.resyncs).toBe(1);
    expect(sink.changes).toEqual([]);
    expect(counts.size).toBe(0);
  });

  it('a watcher error is a resync, and is passed on', async () => {
    const errors: Error[] = [];
    const fs = new MemoryFileSystem();
    const { watcher, sink } = await start(fs, { onError: (error) => errors.push(error) });
    watcher.listener!.onError(new Error('inotify overflow'));
    expect(sink.resyncs).toBe(1);
    expect(errors.map((error) => error.message)).toEqual(['inotify overflow']);
  });

  it('filters by the .gitignore rules, and a changed .gitignore takes effect at once', async () => {
    const fs = new MemoryFileSystem({ '/ws/.gitignore': '*.log\nbuild/\n', '/ws/app.log': 'x', '/ws/build/out.js': 'y', '/ws/src.ts': 'z' });
    const { watcher, sink } = await start(fs);
    watcher.emit('/ws/app.log', '/ws/build/out.js', '/ws/src.ts');
    await settled();
    expect(sink.changes.map((change) => change.absolutePath)).toEqual(['/ws/src.ts']);
    sink.changes = [];
    await fs.write('/ws/.gitignore', 'build/\n'); // *.log no longer ignored
    watcher.emit('/ws/.gitignore', '/ws/app.log');
    await settled();
    expect(sink.changes.map((change) => change.absolutePath)).toEqual(['/ws/.gitignore', '/ws/app.log']);
  });

  it('with gitignore off, reports ignored files too', async () => {
    const fs = new MemoryFileSystem({ '/ws/.gitignore': '*.log\n', '/ws/app.log': 'x' });
    const { watcher, sink } = await start(fs, { gitignore: false });
    watcher.emit('/ws/app.log');
    await settled();
    expect(sink.changes.map((change) => change.absolutePath)).toEqual(['/ws/app.log']);
  });

  it('publishes nothing once stopped', async () => {
    const fs = new MemoryFileSystem({ '/ws/a': 'a' });
    const { watcher, sink, stop } = await start(fs);
    watcher.emit('/ws/a');
    await stop(); // waits for the round in flight, which publishes nothing more
    watcher.emit('/ws/a');
    watcher.listener!.onError(new Error('late'));
    await settled();
    expect(sink.changes).toEqual([]);
    expect(sink.resyncs).toBe(0);
  });

  describe('folders the ignore rules exclude', () => {
    const files = () =>
      new MemoryFileSystem({
        '/ws/.gitignore': 'build/\nlogs/\n',
        '/ws/build/out.js': 'o',
        '/ws/logs/a.log': 'l',
        '/ws/pkg/.gitignore': 'out/\n',
        '/ws/pkg/out/gen.js': 'g',
        '/ws/node_modules/x/index.js': 'x',
        '/ws/.agents/a1/build/y.js': 'y',
      });
    /** Resolves once the source has listed `path` (a round's walk), and its work after that has settled. */
    const listed = (fs: FileSystem, path: string) =>
      new Promise<void>((resolve) => {
        const readdir = fs.readdir.bind(fs);
        fs.readdir = async (at, options) => {
          const entries = await readdir(at, options);
          if (at === path) void settled().then(resolve);
          return entries;
        };
      });

    it('are not watched: found at start and passed with the ignored paths', async () => {
      const { watcher } = await start(files(), { ignorePaths: async () => ['/ws/.agents'] });
      expect([...watcher.options!.ignorePaths].sort()).toEqual(['/ws/.agents', '/ws/build', '/ws/logs', '/ws/pkg/out']);
    });

    it('a .gitignore edit that re-includes one re-subscribes without it and resyncs; one that only adds does not', async () => {
      const fs = files();
      const { watcher, sink } = await start(fs, { rulesDebounceMs: 0 });
      await fs.write('/ws/pkg/.gitignore', 'out/\ntmp/\n');
      await fs.mkdir('/ws/pkg/tmp');
      const pkgListed = listed(fs, '/ws/pkg');
      watcher.emit('/ws/pkg/.gitignore');
      await pkgListed;
      expect(watcher.updates).toEqual([]); // pkg/tmp stays watched (the streams filter it) until a rebuild
      expect(sink.resyncs).toBe(0);
      await fs.write('/ws/.gitignore', 'logs/\n');
      const rootListed = listed(fs, '/ws');
      watcher.emit('/ws/.gitignore');
      await rootListed;
      expect(watcher.updates.map((update) => [...update.ignorePaths].sort())).toEqual([['/ws/logs', '/ws/pkg/out', '/ws/pkg/tmp']]);
      expect(sink.resyncs).toBe(1);
    });

    it('giveWay: the walk reads no folder and the watcher does not start while it holds; both go on once it lets go', async () => {
      const fs = files();
      let reads = 0;
      const readdir = fs.readdir.bind(fs);
      fs.readdir = (at, options) => {
        reads++;
        return readdir(at, options);
      };
      const gate = heldGiveWay();
      const watcher = new ScriptedWatcher();
      const source = watcherSource({
        watcher,
        fs,
        root: async () => '/ws',
        ignorePaths: async () => ['/ws/.agents'],
        giveWay: gate.giveWay,
      });
      const started = Promise.resolve(source.start(new RecordingSink()));
      expect(await Promise.race([gate.asked.then(() => 'asked'), started.then(() => 'started')])).toBe('asked');
      expect(reads).toBe(0);
      expect(watcher.watchedRoot).toBeUndefined();
      gate.release();
      const stop = await started;
      expect(watcher.watchedRoot).toBe('/ws');
      expect([...watcher.options!.ignorePaths].sort()).toEqual(['/ws/.agents', '/ws/build', '/ws/logs', '/ws/pkg/out']);
      await stop();
    });

    it('with skipIgnoredFolders off, only the given paths', async () => {
      const { watcher } = await start(files(), { skipIgnoredFolders: false, ignorePaths: async () => ['/ws/.agents'] });
      expect(watcher.options!.ignorePaths).toEqual(['/ws/.agents']);
    });
  });
});
