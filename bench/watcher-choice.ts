/**
 * Which OS watcher the change feed uses: @parcel/watcher 2.6.0 vs chokidar 5, measured on this machine.
 * A one-off comparison behind the choice in adapters/watcher/ (not part of `npm run bench`):
 *
 *   node --import tsx bench/watcher-choice.ts
 *
 * Each measurement runs in a fresh child process (`--expose-gc`), so start-up memory is the library's own:
 * - start-up on the kernel tree (.bench-cache/linux, ≈ 5.1k folders, 78.6k files): time from subscribe to
 *   "ready", RSS and JS-heap growth, and the inotify watches it holds (counted in /proc/self/fdinfo);
 * - latency from a shell write (a long-lived `sh` appending to a file, fed one path per stdin line) to the
 *   library's callback, p50/p99, at two cadences: "busy" (next write 10 ms after the event) and "idle"
 *   (next write 600 ms after: parcel's debouncer reports the first event of a quiet period at once);
 * - ignored folders: a fixture with 300 folders under node_modules/ and 300 under .git/ — the watches held
 *   must be those of the other folders only, and writes inside the ignored folders must report nothing.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtemp, mkdir, readdir, readlink, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { log } from './lib/log.ts';
import { linuxTree } from './lib/paths.ts';
import { median } from './lib/stats.ts';

type Library = 'parcel' | 'chokidar';
/**
 * Imported by a name held in a variable: chokidar is not a dependency (the comparison chose @parcel/watcher).
 * To re-run it: `npm i --no-save chokidar@5.0.0`; without it this script measures parcel alone.
 */
const CHOKIDAR: string = 'chokidar';
const IGNORED_NAMES = ['.git', 'node_modules'];

interface Watching {
  close(): Promise<void>;
}

/** Starts `library` on `dir`; resolves once it says it is ready. */
async function startLibrary(library: Library, dir: string, onPath: (path: string) => void): Promise<Watching> {
  if (library === 'parcel') {
    const watcher = await import('@parcel/watcher');
    const subscription = await watcher.subscribe(
      dir,
      (error, events) => {
        if (error) throw error;
        for (const event of events) onPath(event.path);
      },
      { ignore: IGNORED_NAMES.map((name) => `**/${name}`) },
    );
    return { close: () => subscription.unsubscribe() };
  }
  const chokidar = (await import(CHOKIDAR)) as {
    watch(dir: string, options: { ignoreInitial: boolean; ignored: (path: string) => boolean }): {
      on(event: 'all', listener: (event: string, path: string) => void): void;
      once(event: 'ready', listener: () => void): void;
      close(): Promise<void>;
    };
  };
  const watcher = chokidar.watch(dir, {
    ignoreInitial: true,
    ignored: (path: string) => IGNORED_NAMES.includes(basename(path)),
  });
  watcher.on('all', (_event, path) => onPath(path));
  await new Promise<void>((resolve) => watcher.once('ready', () => resolve()));
  return { close: () => watcher.close() };
}

/** The inotify watches this process holds (one `inotify wd:` line per watch in the fd's fdinfo). */
async function inotifyWatches(): Promise<number> {
  let count = 0;
  for (const fd of await readdir('/proc/self/fd')) {
    let target: string;
    try {
      target = await readlink(`/proc/self/fd/${fd}`);
    } catch {
      continue;
    }
    if (target !== 'anon_inode:inotify') continue;
    const info = await readFile(`/proc/self/fdinfo/${fd}`, 'utf8');
    count += info.split('\n').filter((line) => line.startsWith('inotify wd:')).length;
  }
  return count;
}

function memory(): { rss: number; heap: number } {
  (globalThis as { gc?: () => void }).gc?.();
  const usage = process.memoryUsage();
  return { rss: usage.rss, heap: usage.heapUsed };
}

async function probeStartup(library: Library, dir: string): Promise<Record<string, number>> {
  const before = memory();
  const started = performance.now();
  const watching = await startLibrary(library, dir, () => {});
  const readyMs = performance.now() - started;
  const after = memory();
  const watches = await inotifyWatches();
  const closing = performance.now();
  await watching.close();
  return {
    readyMs,
    rssMiB: (after.rss - before.rss) / 2 ** 20,
    heapMiB: (after.heap - before.heap) / 2 ** 20,
    watches,
    closeMs: performance.now() - closing,
  };
}

/** A shell that appends one byte to each path it reads on stdin (printf is a dash builtin: no fork per write). */
function startShellWriter() {
  const shell = spawn('sh', ['-c', 'while IFS= read -r p; do printf x >> "$p"; done'], { stdio: ['pipe', 'ignore', 'inherit'] });
  return {
    write: (path: string) => shell.stdin.write(path + '\n'),
    stop: () => new Promise<void>((resolve) => {
      shell.once('exit', () => resolve());
      shell.stdin.end();
    }),
  };
}

async function probeLatency(library: Library, dir: string, runs: number, gapMs: number): Promise<Record<string, number>> {
  let waiting: { path: string; resolve: () => void } | undefined;
  const watching = await startLibrary(library, dir, (path) => {
    if (waiting && path === waiting.path) waiting.resolve();
  });
  const writer = startShellWriter();
  const target = join(dir, 'src', 'probe.txt');
  const samples: number[] = [];
  let missed = 0;
  await new Promise((resolve) => setTimeout(resolve, 500)); // both libraries get the same settling time
  for (let i = 0; i < runs + 3; i++) {
    await new Promise((resolve) => setTimeout(resolve, gapMs));
    let timer: ReturnType<typeof setTimeout> | undefined;
    const seen = new Promise<boolean>((resolve) => {
      waiting = { path: target, resolve: () => resolve(true) };
      timer = setTimeout(() => resolve(false), 2000);
    });
    const started = performance.now();
    writer.write(target);
    const reported = await seen;
    clearTimeout(timer);
    if (!reported) missed++;
    else if (i >= 3) samples.push(performance.now() - started); // the first three warm up
  }
  await writer.stop();
  await watching.close();
  samples.sort((a, b) => a - b);
  return { p50: median(samples), p99: samples[Math.min(samples.length - 1, Math.ceil(samples.length * 0.99) - 1)]!, missed };
}

async function probeIgnored(library: Library, dir: string): Promise<Record<string, number>> {
  const reported: string[] = [];
  const watching = await startLibrary(library, dir, (path) => reported.push(path));
  const watches = await inotifyWatches();
  const writer = startShellWriter();
  for (const name of IGNORED_NAMES) writer.write(join(dir, name, 'd7', 'inside.txt'));
  writer.write(join(dir, 'src', 'marker.txt'));
  // Done when the marker (written last, by the same shell) is reported; then a grace period for stragglers.
  const deadline = Date.now() + 10_000;
  while (!reported.includes(join(dir, 'src', 'marker.txt')) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  await new Promise((resolve) => setTimeout(resolve, 700));
  await writer.stop();
  await watching.close();
  const inIgnored = reported.filter((path) => IGNORED_NAMES.some((name) => path.includes(`/${name}/`))).length;
  return { watches, reportedInIgnored: inIgnored };
}

async function makeFixture(): Promise<{ dir: string; watchedFolders: number }> {
  const dir = await mkdtemp(join(tmpdir(), 'watcher-choice-'));
  await mkdir(join(dir, 'src'));
  await writeFile(join(dir, 'src', 'probe.txt'), '');
  for (const name of IGNORED_NAMES) {
    for (let i = 0; i < 300; i++) await mkdir(join(dir, name, `d${i}`), { recursive: true });
  }
  return { dir, watchedFolders: 2 }; // the root and src/
}

// ---- child side -------------------------------------------------------------------------------------------
if (process.argv[2] === '--probe') {
  const [, , , kind, library, dir, runs, gap] = process.argv as string[];
  const lib = library as Library;
  const result =
    kind === 'startup' ? await probeStartup(lib, dir!)
    : kind === 'latency' ? await probeLatency(lib, dir!, Number(runs), Number(gap))
    : await probeIgnored(lib, dir!);
  process.stdout.write(JSON.stringify(result) + '\n');
  process.exit(0);
}

// ---- parent side ------------------------------------------------------------------------------------------
function probe(kind: string, library: Library, ...args: (string | number)[]): Record<string, number> {
  const script = fileURLToPath(import.meta.url);
  const result = spawnSync(process.execPath, ['--expose-gc', '--import', 'tsx', script, '--probe', kind, library, ...args.map(String)], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  if (result.status !== 0) throw new Error(`${library} ${kind} probe failed (${result.status ?? result.signal})`);
  return JSON.parse(result.stdout.trim().split('\n').pop()!) as Record<string, number>;
}

const libraries: Library[] = ['parcel'];
try {
  await import(CHOKIDAR);
  libraries.push('chokidar');
} catch {
  log('chokidar is not installed: measuring @parcel/watcher only');
}
const folders = Number(spawnSync('sh', ['-c', `find "${linuxTree}" -type d | wc -l`], { encoding: 'utf8' }).stdout.trim());
const rows: string[] = [];
for (const library of libraries) {
  log(`${library}: start-up on the kernel tree (3 runs)…`);
  const startups = [0, 1, 2].map(() => probe('startup', library, linuxTree));
  const pick = (key: string) => median(startups.map((s) => s[key]!));
  const fixture = await makeFixture();
  try {
    log(`${library}: latency and ignored folders…`);
    const busy = probe('latency', library, fixture.dir, 200, 10);
    const idle = probe('latency', library, fixture.dir, 15, 600);
    const ignored = probe('ignored', library, fixture.dir);
    rows.push(
      `${library.padEnd(8)} | ready ${pick('readyMs').toFixed(0)} ms | RSS +${pick('rssMiB').toFixed(1)} MiB | heap +${pick('heapMiB').toFixed(1)} MiB` +
        ` | watches ${pick('watches')} (tree has ${folders} folders) | close ${pick('closeMs').toFixed(0)} ms` +
        ` | busy p50 ${busy.p50!.toFixed(1)} / p99 ${busy.p99!.toFixed(1)} ms | idle p50 ${idle.p50!.toFixed(1)} / p99 ${idle.p99!.toFixed(1)} ms` +
        ` | writes not reported within 2 s: ${busy.missed! + idle.missed!}` +
        ` | ignored fixture: ${ignored.watches} watches (expected ${fixture.watchedFolders}), ${ignored.reportedInIgnored} events from ignored folders`,
    );
  } finally {
    await rm(fixture.dir, { recursive: true, force: true });
  }
}
console.log(rows.join('\n'));
