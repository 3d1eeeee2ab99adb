/**
 * `npm run soak -- fuzz-paths`: hostile paths by the hundred thousand through every path-taking route of every
 * dialect (test/support/hardening/path-routes.ts), on the disk, memory, an agent's private copy and a Durable Object
 * in workerd, with the swap link flipping and a folder traded for a link out the whole time. Bounds: escapes = 0,
 * 5xx = 0, refusals out of their dialect's shape = 0. The seed is random and printed first; `FUZZ_SEED=<n>` replays a run. Each finding is written
 * to findings.json in the output folder. The suite runs the same harness with small counts
 * (test/hardening/path-fuzz.test.ts).
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import fc from 'fast-check';
import { linkSetArbitrary, newMarker } from '../../test/support/hardening/hostile-paths.ts';
import { addCounts, caseArbitrary, closeSession, emptyCounts, openSession, runBatch, type Finding, type FuzzCounts } from '../../test/support/hardening/path-fuzz-run.ts';
import { diskTargets, durableObjectTarget, memoryTarget, type FuzzTarget, type TargetName } from '../../test/support/hardening/path-fuzz-targets.ts';
import type { HardeningFigure, HardeningOptions, HardeningRun } from './result.ts';

/**
 * Paths per backend: the disk and memory take the most (every route), the overlay and the Durable Object fewer (the
 * object answers one request at a time, in another process: it runs beside the others rather than after them).
 */
const FULL: Record<TargetName, number> = { node: 32_000, memory: 40_000, overlay: 18_000, 'durable-object': 12_000 };
const QUICK: Record<TargetName, number> = { node: 600, memory: 600, overlay: 300, 'durable-object': 300 };
const BATCH = 200;
const CONCURRENCY = 16;

export async function runPathFuzz(options: HardeningOptions): Promise<HardeningRun> {
  const seed = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : Math.floor(Math.random() * 2 ** 31);
  process.stderr.write(`[fuzz-paths] seed ${seed} (replay: FUZZ_SEED=${seed})\n`);
  const plan = options.quick ? QUICK : FULL;
  const marker = newMarker();
  const links = fc.sample(linkSetArbitrary, { seed, numRuns: 1 })[0]!;

  const total = emptyCounts();
  const perTarget: Partial<Record<TargetName, FuzzCounts & { seconds: number }>> = {};
  const findings: Finding[] = [];
  // How often the tree changed under the requests (LinkSwapper): the link flipped, the folder traded for a link out.
  const changes = { steps: 0, batches: 0, byTarget: [] as string[] };
  const started = performance.now();

  const onDurableObject = (async () => {
    const durableObject = await durableObjectTarget(links, marker);
    try {
      await fuzz(durableObject, plan['durable-object'], seed + 3);
    } finally {
      await durableObject.close();
    }
  })();
  const inThisProcess = (async () => {
    const disk = await diskTargets(links, marker);
    try {
      await fuzz(disk.node, plan.node, seed);
      await fuzz(disk.overlay, plan.overlay, seed + 1);
    } finally {
      await disk.close();
    }
    const memory = await memoryTarget(links, marker);
    try {
      await fuzz(memory, plan.memory, seed + 2);
    } finally {
      await memory.close();
    }
  })();
  await Promise.all([onDurableObject, inThisProcess]);

  async function fuzz(target: FuzzTarget, paths: number, targetSeed: number): Promise<void> {
    const session = await openSession(target, marker);
    const counts = emptyCounts();
    const begun = performance.now();
    const batches = fc.sample(fc.array(caseArbitrary(target), { minLength: BATCH, maxLength: BATCH }), { seed: targetSeed, numRuns: Math.ceil(paths / BATCH) });
    try {
      for (const [i, batch] of batches.entries()) {
        const result = await runBatch(session, batch, { concurrency: CONCURRENCY });
        addCounts(counts, result.counts);
        findings.push(...result.findings);
        if (i % 20 === 19) process.stderr.write(`[fuzz-paths] ${target.name}: ${counts.paths} paths, ${counts.escapes + counts.serverErrors + counts.badShapes} findings\n`);
      }
    } finally {
      await closeSession(session);
    }
    changes.steps += session.swapper.linkFlips + session.swapper.folderTrades;
    changes.batches += batches.length;
    changes.byTarget.push(`${target.name} ${session.swapper.linkFlips} link flips / ${session.swapper.folderTrades} folder trades`);
    perTarget[target.name] = { ...counts, seconds: (performance.now() - begun) / 1000 };
    addCounts(total, counts);
  }

  const seconds = (performance.now() - started) / 1000;
  await writeFile(join(options.outDir, 'findings.json'), JSON.stringify({ seed, perTarget, findings }, null, 2));
  const byTarget = Object.entries(perTarget)
    .map(([name, c]) => `${name} ${c.paths} paths / ${c.requests} requests / ${c.accepted} accepted in ${c.seconds.toFixed(0)} s`)
    .join('; ');
  const firstOf = (kind: Finding['kind']) => {
    const finding = findings.find((f) => f.kind === kind);
    return finding ? `first: ${finding.target} ${finding.route} ${JSON.stringify(finding.path).slice(0, 80)}: ${finding.detail.slice(0, 160)}` : undefined;
  };
  const figures: HardeningFigure[] = [
    { figure: 'paths sent', value: total.paths, unit: 'paths', bound: options.quick ? '≥ 1800' : '≥ 100000', pass: total.paths >= (options.quick ? 1800 : 100_000), note: `seed ${seed}; ${byTarget}` },
    { figure: 'requests sent', value: total.requests, unit: 'requests', bound: '≥ paths', pass: total.requests >= total.paths, note: `${total.refused} refused, ${total.accepted} accepted; ${seconds.toFixed(0)} s` },
    {
      figure: 'tree changes under the requests',
      value: changes.steps,
      unit: 'changes',
      bound: '≥ 2 per batch',
      pass: changes.steps >= 2 * changes.batches,
      note: changes.byTarget.join('; '),
    },
    { figure: 'escapes', value: total.escapes, unit: '', bound: '= 0', pass: total.escapes === 0, note: firstOf('escape') },
    { figure: '5xx', value: total.serverErrors, unit: '', bound: '= 0', pass: total.serverErrors === 0, note: firstOf('5xx') },
    { figure: 'refusals not in the dialect shape', value: total.badShapes, unit: '', bound: '= 0', pass: total.badShapes === 0, note: firstOf('shape') },
  ];
  return { name: 'fuzz-paths', figures, artifacts: ['findings.json'] };
}
