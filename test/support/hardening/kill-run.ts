/**
 * kill -9 under write load, the whole run: start the daemon on a fresh folder, drive writes through it
 * (./write-load.ts), SIGKILL its process group at a random point, restart it on the same folder, check the disk,
 * the leftovers sweep, the search index and health (./disk-check.ts, ./index-check.ts), go on; after the last kill
 * finish the writes and check once more. Used by test/hardening/kill-under-load.test.ts (small) and
 * bench/hardening/kill-under-load.ts (full).
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { checkDisk, problemsOf } from './disk-check.ts';
import { killDaemon, startDaemon, stopDaemon, type DaemonProcess } from './daemon-process.ts';
import { checkIndex } from './index-check.ts';
import { ContentFactory, markerOf, seededRandom } from './versioned-content.ts';
import { WriteLedger } from './write-ledger.ts';
import { WriteLoad, type LoadConfig } from './write-load.ts';

export interface KillRunOptions {
  /** An empty folder: the workspace root and the index go inside. */
  work: string;
  seed: number;
  /** Writes to send in all (each request that writes counts one). */
  writes: number;
  kills: number;
  load: LoadConfig;
  /** Markers searched one by one after each restart (a quarter more of superseded versions). */
  sampledMarkers: number;
  /** A kill lands this long at most after its chosen write was sent (ms), so it hits writes mid-way. */
  killJitterMs?: number;
  /** Serve the web panel (./daemon-process.ts): default true. */
  panel?: boolean;
  log?: (line: string) => void;
}

export interface KillRunResult {
  attempted: number;
  acknowledged: number;
  kills: number;
  startupMs: number[];
  /** Leftovers each restart's sweep removed. */
  swept: number[];
  /** Disk checks after each restart and at the end: torn or mixed, wrong version, lost, split, partial, unknown. */
  tornOrMixed: number;
  wrongVersion: number;
  lost: number;
  splitOrPartial: number;
  unknownFiles: number;
  leftovers: number;
  indexMismatches: number;
  /** Every problem found, one line each (first few of each check). */
  problems: string[];
  /** Failures the daemon answered while alive. */
  refusals: string[];
  searches: number;
  filesAtEnd: number;
  /** Every daemon started (each led its own process group). */
  daemonPids: number[];
}

const TOKEN = 'kill-under-load-token';

export async function runKillUnderLoadCycles(options: KillRunOptions): Promise<KillRunResult> {
  const log = options.log ?? (() => {});
  const root = join(options.work, 'root');
  const indexDir = join(options.work, 'index');
  const tmpDir = join(options.work, 'tmp');
  for (const folder of [root, indexDir, tmpDir]) await mkdir(folder, { recursive: true });
  const random = seededRandom(options.seed);
  const ledger = new WriteLedger();
  const load = new WriteLoad(ledger, new ContentFactory(seededRandom(options.seed + 1)), seededRandom(options.seed + 2), options.load);
  const result: KillRunResult = {
    attempted: 0,
    acknowledged: 0,
    kills: 0,
    startupMs: [],
    swept: [],
    daemonPids: [],
    tornOrMixed: 0,
    wrongVersion: 0,
    lost: 0,
    splitOrPartial: 0,
    unknownFiles: 0,
    leftovers: 0,
    indexMismatches: 0,
    problems: [],
    refusals: [],
    searches: 0,
    filesAtEnd: 0,
  };
  const perCycle = options.writes / (options.kills + 1);

  const verify = async (daemon: DaemonProcess, label: string) => {
    const started = performance.now();
    await daemon.swept; // the leftovers check is about the disk after the sweep
    const swept = performance.now();
    const disk = await checkDisk(root, ledger);
    const checked = performance.now();
    const index = await checkIndex(daemon, disk, { sample: sampleMarkers(disk.markers, ledger, options.sampledMarkers, random) });
    log(`[kill] ${label}: sweep ${ms(swept - started)}, disk ${ms(checked - swept)}, search ${ms(index.searchMs)}, health ${ms(index.healthMs)}`);
    result.tornOrMixed += disk.torn.length;
    result.wrongVersion += disk.wrongVersion.length;
    result.lost += disk.lost.length;
    result.splitOrPartial += disk.splitMoves.length + disk.partialCopies.length;
    result.unknownFiles += disk.unknown.length;
    result.leftovers += disk.leftovers.length;
    result.indexMismatches += index.mismatches.length;
    result.searches += index.searches;
    result.filesAtEnd = disk.files;
    result.problems.push(...[...problemsOf(disk), ...index.mismatches].slice(0, 20).map((line) => `${label}: ${line}`));
    log(`[kill] ${label}: ${disk.files} files, ${problemsOf(disk).length} disk problems, ${index.mismatches.length} index mismatches`);
  };

  let daemon = await startDaemon({ root, token: TOKEN, indexDir, tmpDir, panel: options.panel ?? true });
  result.daemonPids.push(daemon.pid);
  try {
    for (let cycle = 0; cycle < options.kills; cycle++) {
      const killAt = Math.max(1, Math.round(load.attempted + perCycle * (0.5 + random())));
      const jitter = random() * (options.killJitterMs ?? 30);
      let killing: Promise<void> | undefined;
      const target = daemon;
      const roundStarted = performance.now();
      await load.round(daemon, Number.POSITIVE_INFINITY, (attempted) => {
        if (attempted < killAt || killing !== undefined) return;
        killing = new Promise((resolve) => setTimeout(resolve, jitter)).then(() => killDaemon(target));
      });
      if (killing === undefined) {
        // The load stopped on its own: the daemon died unasked (or refused every connection) — a finding, not a kill.
        throw new Error(`the load stopped before kill ${cycle + 1}; the daemon said:\n${target.stderr.slice(-20).join('\n')}`);
      }
      await killing;
      result.kills += 1;
      log(`[kill] kill ${cycle + 1} after ${ms(performance.now() - roundStarted)} of load`);
      daemon = await startDaemon({ root, token: TOKEN, indexDir, tmpDir, panel: options.panel ?? true });
      result.daemonPids.push(daemon.pid);
      result.startupMs.push(daemon.startupMs);
      result.swept.push(await daemon.swept);
      await verify(daemon, `after kill ${cycle + 1} (${load.attempted} writes sent)`);
    }
    await load.round(daemon, options.writes);
    await verify(daemon, `at the end (${load.attempted} writes sent)`);
  } finally {
    await stopDaemon(daemon).catch(() => killDaemon(daemon));
  }
  result.attempted = load.attempted;
  result.acknowledged = load.acknowledged;
  result.refusals = load.refusals;
  return result;
}

const ms = (value: number) => `${Math.round(value)} ms`;

/** `count` markers held on disk and a quarter as many of versions no file holds any more. */
function sampleMarkers(markers: Map<string, string>, ledger: WriteLedger, count: number, random: () => number): string[] {
  const held = [...new Set(markers.values())];
  const heldSet = new Set(held);
  const gone = [...ledger.hashes.keys()]
    .map((key) => {
      const [lineage, version] = key.split(' v');
      return markerOf(lineage!, Number(version));
    })
    .filter((marker) => !heldSet.has(marker));
  const pick = (from: string[], n: number) => Array.from({ length: Math.min(n, from.length) }, () => from[Math.floor(random() * from.length)]!);
  return [...pick(held, count), ...pick(gone, Math.ceil(count / 4))];
}
