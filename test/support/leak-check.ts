/**
 * vitest setupFiles: fails a test file that leaves something behind once it has ended — a process it started, an
 * fd (file, socket, pipe, pty, inotify), an inotify watch, or a file in its temp folder — and says what it is. A
 * leftover from one file slows or breaks the files after it (a daemon still holding a port, a shell still
 * writing, watches counting against the user's limit) and hides the bug that left it.
 *
 * How it hooks in: with pool 'forks' and isolate on, every test file runs in a fresh worker process that imports
 * the setup files first, so this module runs once per file, before the file's own imports. Its `aroundAll` is the
 * file's first, hence outermost: its tail runs after every afterAll, every cleanup a beforeAll returned and every
 * fixture's teardown (setup-file afterAll hooks would run before the beforeAll cleanups). A throw there fails the
 * file.
 *
 * The rule, per kind (the baseline is taken here, before the test file is imported):
 * - processes: every running process that descends from this worker, or whose environment holds this file's
 *   TMPDIR (children inherit it, and keep it when re-parented away from the worker). Left over ones are listed
 *   with their command lines, then SIGKILLed so they cannot disturb later files.
 * - fds: the worker's files, sockets, pipes and inotify fds that were not open at the baseline (leak-probes.ts's
 *   `countedFds`; the event loops' epoll/eventfd/timerfd plumbing is not counted).
 * - watches: the inotify watches the worker holds (test/support/inotify-watches.ts counts the same) beyond the
 *   baseline.
 * - temp: `os.tmpdir()` reads $TMPDIR, so each file gets a fresh folder of its own as TMPDIR and must leave it
 *   empty. It is removed afterwards either way. One entry is put there first and not counted: `tsx-<uid>`, a link
 *   to tsx's compile cache in the machine's temp folder (tsx keeps it in `$TMPDIR/tsx-<uid>`): without it every
 *   `node --import tsx` a test starts would compile the daemon afresh and litter the folder.
 *
 * Lazily started singletons — what a library opens on first use and keeps for the process's life, which no test
 * holds a handle to — follow one rule: stopped before the check looks when the library offers a way, else not
 * counted only when they hold nothing; anything else needs an allowance. So esbuild's service (a child
 * `esbuild --service` and the worker thread that talks to it, started by the first build in this process —
 * adapters/search/start-ts-worker.ts bundles each search worker's entry with it, the workerd tests bundle the
 * Worker) is stopped with esbuild's `stop()`; an inotify fd that holds no watch is not counted (libuv opens one
 * per event loop on the first fs.watch and keeps it until the loop ends; its watches are what counts).
 *
 * A process exiting or a socket closing can take a moment after the cleanup that caused it, so the check polls
 * for up to SETTLE_MS before it fails; a clean file costs one look. A file that cannot meet the rule says so
 * with `allowLeftovers(kind, reason, only)` (test/support/leak-allowance.ts).
 */
import { aroundAll } from 'vitest';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { leftoverAllowed } from './leak-allowance.ts';
import { countedFds, describePipe, describeSocket, folderEntries, inotifyWatchList } from './leak-probes.ts';
import { liveDescendants, type LiveProcess } from './live-descendants.ts';

/** How long a leftover may take to go away after the file's last cleanup (the check's self-test shortens it). */
const SETTLE_MS = Number(process.env.WSAPI_LEAK_SETTLE_MS) || 2000;
const POLL_MS = 25;

// Inside the run's HOME folder (test/support/isolated-home.ts), which the run removes at its end even when a
// worker dies before its own cleanup below.
const fileTemp = mkdtempSync(join(process.env.WSAPI_TEST_RUN_HOME ?? tmpdir(), 'tmp-'));
const tsxCache = `tsx-${process.geteuid?.() ?? userInfo().username}`;
mkdirSync(join(tmpdir(), tsxCache), { recursive: true, mode: 0o700 });
symlinkSync(join(tmpdir(), tsxCache), join(fileTemp, tsxCache));
process.env.TMPDIR = fileTemp;
const marker = `TMPDIR=${fileTemp}`;

const processKey = (entry: LiveProcess): string => `${entry.pid}@${entry.start}`;
// Nothing can hold the marker yet (its folder was made just now): the worker's own children are the whole baseline.
const baselineProcesses = new Set(liveDescendants(process.pid).map(processKey));
const baselineFds = countedFds();
const baselineWatches = watchCount(inotifyWatchList(baselineFds));

function watchCount(watchList: Map<number, string[]>): number {
  return [...watchList.values()].reduce((sum, inodes) => sum + inodes.length, 0);
}

interface Leftovers {
  processes: LiveProcess[];
  fds: [number, string][];
  watches: string[];
  temp: string[];
}

function look(): Leftovers {
  const fds = countedFds();
  const watchList = inotifyWatchList(fds);
  const idleInotify = (fd: number): boolean => watchList.get(fd)?.length === 0;
  const watches =
    watchCount(watchList) <= baselineWatches
      ? []
      : [...watchList].flatMap(([fd, inodes]) => inodes.map((inode) => `fd ${fd} inode 0x${inode} (${Number.parseInt(inode, 16)})`));
  const newProcess = (entry: LiveProcess): boolean => !baselineProcesses.has(processKey(entry));
  const newFd = ([fd, target]: [number, string]): boolean => baselineFds.get(fd) !== target && !idleInotify(fd);
  return {
    processes: liveDescendants(process.pid, marker).filter((entry) => newProcess(entry) && !leftoverAllowed('processes', entry.command)),
    fds: [...fds].filter((entry) => newFd(entry) && !leftoverAllowed('fds', entry[1])),
    watches: watches.filter((watch) => !leftoverAllowed('watches', watch)),
    temp: folderEntries(fileTemp).filter((entry) => entry !== tsxCache && !leftoverAllowed('temp', entry)),
  };
}

const isClean = (found: Leftovers): boolean => Object.values(found).every((list) => list.length === 0);

async function settle(): Promise<Leftovers> {
  const deadline = Date.now() + SETTLE_MS;
  for (;;) {
    const found = look();
    if (isClean(found) || Date.now() >= deadline) return found;
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

function describeFd(target: string): string {
  if (target.startsWith('socket:')) return describeSocket(target);
  if (target.startsWith('pipe:')) return describePipe(target);
  return target;
}

function report(found: Leftovers): string {
  const lines = ['this test file left resources behind after its last afterAll (test/support/leak-check.ts):'];
  for (const entry of found.processes) lines.push(`  process ${entry.pid} (parent ${entry.ppid}): ${entry.command} — killed now`);
  for (const [fd, target] of found.fds) lines.push(`  fd ${fd}: ${describeFd(target)}`);
  if (found.watches.length > 0) {
    lines.push(`  inotify watches: ${found.watches.length} now, ${baselineWatches} at the file's start (find a path with \`find / -inum N\`):`);
    for (const watch of found.watches) lines.push(`    ${watch}`);
  }
  if (found.temp.length > 0) lines.push(`  files in its temp folder ${fileTemp} ($TMPDIR): ${found.temp.join(', ')} — removed now`);
  return lines.join('\n');
}

function killLeftovers(processes: LiveProcess[]): void {
  for (const entry of processes) {
    try {
      process.kill(entry.pid, 'SIGKILL');
    } catch {
      // gone meanwhile
    }
  }
}

/** esbuild's service, if this process started it (never loads esbuild only to stop it). */
function stopEsbuild(): void {
  const require = createRequire(import.meta.url);
  const loaded = require.cache[require.resolve('esbuild')];
  (loaded?.exports as { stop?: () => unknown } | undefined)?.stop?.();
}

aroundAll(async (runSuite) => {
  await runSuite();
  stopEsbuild();
  const found = await settle();
  const message = isClean(found) ? undefined : report(found);
  killLeftovers(found.processes);
  rmSync(fileTemp, { recursive: true, force: true });
  if (message !== undefined) throw new Error(message);
});
