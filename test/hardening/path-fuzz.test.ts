/**
 * Hostile paths through every path-taking route of every dialect, on the disk, memory, an agent's private copy and
 * a Durable Object (docs/architecture.md#paths-and-containment): no escape (no outside byte in an answer, nothing
 * outside the root changed or created, no outside content copied in), no 5xx, every refusal in its dialect's shape.
 *
 * The suite's small version of `npm run soak -- fuzz-paths` (bench/hardening/fuzz-paths.ts), with a fixed seed: each
 * backend first sends one hostile path to every row it can run (so every route is hit on every run), then
 * fast-check's batches, which shrink to the one failing request if the oracle ever objects. The harness lives in
 * test/support/hardening/.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hostilePath, linkSetArbitrary, newMarker } from '../support/hardening/hostile-paths.ts';
import { caseArbitrary, closeSession, openSession, pathTargetsOf, rowsFor, runBatch, type FuzzCase, type TargetSession } from '../support/hardening/path-fuzz-run.ts';
import { diskTargets, durableObjectTarget, memoryTarget, type FuzzTarget } from '../support/hardening/path-fuzz-targets.ts';
import { PATH_ROUTES, uncoveredPathRoutes } from '../support/hardening/path-routes.ts';

const SEED = 20240611;
/** fast-check batches per backend, and their size: small, the soak run is the large one. */
const RUNS = 4;
const BATCH = 10;

const marker = newMarker(mulberry32(SEED));
const links = fc.sample(linkSetArbitrary, { seed: SEED, numRuns: 1 })[0]!;
const closers: (() => Promise<void>)[] = [];
const targets = new Map<string, FuzzTarget>();

beforeAll(async () => {
  const [disk, memory, durableObject] = await Promise.all([diskTargets(links, marker), memoryTarget(links, marker), durableObjectTarget(links, marker)]);
  closers.push(() => disk.close(), () => memory.close(), () => durableObject.close());
  for (const target of [disk.node, disk.overlay, memory, durableObject]) targets.set(target.name, target);
}, 60_000);

afterAll(async () => {
  await Promise.all(closers.map((close) => close()));
});

it('the route table fuzzes every route and /ws command that takes a path', () => {
  expect(uncoveredPathRoutes()).toEqual([]);
});

it('the oracle counts what it must: an answer holding the marker, a 500, a refusal out of shape', async () => {
  // The memory backend with its answers replaced: proves the judging, not the product.
  const memory = targets.get('memory')!;
  const row = PATH_ROUTES.findIndex((r) => r.route === 'GET /api/file');
  const judged = async (answer: () => Response) => {
    const session = await openSession({ ...memory, fetch: async () => answer() }, marker);
    const { findings } = await runBatch(session, [{ row, path: 'inside.txt', variant: 0 }], { swap: false });
    return findings.map((finding) => finding.kind);
  };
  expect(await judged(() => new Response(JSON.stringify({ path: '/ws/inside.txt', content: marker }), { status: 200 }))).toEqual(['escape']);
  expect(await judged(() => new Response(JSON.stringify({ data: Buffer.from(`..${marker}..`).toString('base64') }), { status: 200 }))).toEqual(['escape']);
  expect(await judged(() => new Response(JSON.stringify({ path: '/ws-outside/secret.txt', content: 'x' }), { status: 200 }))).toEqual(['escape']);
  expect(await judged(() => new Response(JSON.stringify({ error: 'internal error' }), { status: 500 }))).toEqual(['5xx']);
  expect(await judged(() => new Response(JSON.stringify({ message: 'nope' }), { status: 404 }))).toEqual(['shape']);
  expect(await judged(() => new Response(JSON.stringify({ error: 'no such file' }), { status: 404 }))).toEqual([]);
});

describe.each(['node', 'overlay', 'memory', 'durable-object'])('hostile paths on the %s backend', (name) => {
  let session: TargetSession;
  beforeAll(async () => {
    session = await openSession(targets.get(name)!, marker);
  });
  afterAll(async () => {
    await closeSession(session);
  });

  it('every row it can run, once each: no escape, no 5xx, refusals in shape', async () => {
    const target = targets.get(name)!;
    const rows = rowsFor(target);
    const paths = fc.sample(hostilePath(pathTargetsOf(target)), { seed: SEED, numRuns: rows.length });
    const cases: FuzzCase[] = rows.map((row, i) => ({ row, path: paths[i]!, variant: i }));
    const { findings, counts } = await runBatch(session, cases, { concurrency: 6 });
    expect(findings).toEqual([]);
    expect(counts.requests).toBeGreaterThanOrEqual(rows.length);
    // Agent-aware rows only on the overlay; the others where the backend has the powers they need.
    expect(rows.map((row) => PATH_ROUTES[row]!.route)).toContain(name === 'overlay' ? 'GET /workspace/file' : 'GET /workspace-files/read');
  });

  it('fast-check batches with the swap link flipping and a folder traded for a link out: no escape, no 5xx, refusals in shape', async () => {
    const target = targets.get(name)!;
    await fc.assert(
      fc.asyncProperty(fc.array(caseArbitrary(target), { minLength: 1, maxLength: BATCH }), async (cases) => {
        const { findings } = await runBatch(session, cases, { concurrency: 4 });
        expect(findings).toEqual([]);
      }),
      { seed: SEED, numRuns: RUNS },
    );
  });
});

/** A small seeded generator, so the marker (and with it every answer) is the same on every run. */
function mulberry32(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
