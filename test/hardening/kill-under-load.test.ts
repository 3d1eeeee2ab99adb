/**
 * kill -9 under write load, small (the full run: `npm run soak -- kill`, bench/hardening/kill-under-load.ts): the
 * real daemon takes ~500 writes over every write route while its process group is SIGKILLed three times at random
 * points and restarted on the same folder. After every restart, whatever the kill points were: no file torn or
 * mixed, none holding a version it may not, no acknowledged write lost, no move at both names or half a copy, no
 * `.wsapi-` leftover once the start-up sweep has run, and search and health agreeing with the disk. The load is
 * seeded; the kill points are not, and the property holds for any.
 */
import { mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { survivors } from '../support/hardening/daemon-process.ts';
import { runKillUnderLoadCycles } from '../support/hardening/kill-run.ts';

let work: string;

beforeAll(async () => {
  work = await realpath(await mkdtemp(join(tmpdir(), 'kill-under-load-')));
});

afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

it(
  'leaves every file whole and no leftover after each SIGKILL, with search and health matching the disk',
  async () => {
    const run = await runKillUnderLoadCycles({
      work,
      seed: 20240611,
      writes: 500,
      kills: 3,
      load: { fileSlots: 40, zipSlots: 6, concurrency: 8, maxWriteBytes: 256 * 1024, smallBytes: 16 * 1024 },
      sampledMarkers: 8,
      panel: false,
    });
    expect(run.problems).toEqual([]);
    expect(run.refusals).toEqual([]);
    expect(run.kills).toBe(3);
    expect(run.attempted).toBeGreaterThanOrEqual(500);
    // The kills cut writes mid-way (else nothing was tested) …
    expect(run.attempted).toBeGreaterThan(run.acknowledged);
    expect(run.filesAtEnd).toBeGreaterThan(0);
    // … and nothing any daemon started outlived it: not the process, not a child in its group or session.
    expect(run.daemonPids).toHaveLength(4);
    expect(run.daemonPids.flatMap(survivors)).toEqual([]);
  },
  // ~25 s on a shared two-core machine (four daemon starts, ~500 writes, four checks); room for a busier one.
  90_000,
);
