/**
 * Malformed requests (test/support/hardening/malformed-requests.ts) at every route and every `/ws` command, with
 * small counts and a fixed seed: every answer below 500 and, when refused, in the dialect's error shape; no
 * `unexpected error` logged; the daemon alive and answering `/healthz` after each kind of traffic. HTTP routes run
 * in-process (createNodeWorkspaceApp: every Node adapter wired, so no route answers 501 for a missing one); raw
 * sockets and WebSocket frames need one real daemon process. `npm run soak -- malformed` runs the same harness
 * by the ten thousand and adds the memory figures.
 */
import { mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { format } from 'node:util';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { rpcCommands } from '../../handlers/rpc/command-table.ts';
import { routeDocIndex } from '../../runtime/openapi/route-docs.ts';
import { createNodeWorkspaceApp, type NodeWorkspaceApp } from '../../runtime/node/node-workspace-app.ts';
import { routeTable } from '../../runtime/routes.ts';
import { MalformedTally, runRawCases, runRawWsCases, runWsFrames } from '../support/hardening/malformed-batches.ts';
import { startMalformedDaemon, type MalformedDaemon } from '../support/hardening/malformed-daemon-process.ts';
import { sendInProcess } from '../support/hardening/malformed-http.ts';
import { answerViolation } from '../support/hardening/malformed-oracle.ts';
import {
  anyWsFrame,
  FUZZ_COMMANDS,
  FUZZ_ROUTES,
  httpCaseFor,
  MALFORMED_FIXTURE,
  routeKey,
  unroutedCase,
  wsFrameFor,
  type FuzzTarget,
  type HttpCase,
} from '../support/hardening/malformed-requests.ts';
import { anyRawCase } from '../support/hardening/malformed-wire.ts';
import { rawWsCases } from '../support/hardening/malformed-ws.ts';

/** Fixed: the suite sends the same requests every run (the soak draws a new seed each time and prints it). */
const SEED = 20_240_611;
const TOKEN = 'malformed-test-token';
const MiB = 1024 * 1024;
/** Caps lowered so that "one byte over" is cheap; the code paths are the same (bench/hardening/malformed.ts). */
const LIMITS = { maxBodyBytes: MiB, maxUploadBytes: MiB, rpcMaxMessageBytes: MiB };
const TARGET: FuzzTarget = { token: TOKEN, maxBodyBytes: LIMITS.maxBodyBytes, maxUploadBytes: LIMITS.maxUploadBytes };
const RUNS_PER_ROUTE = 5;

let root: string;
/** Started first: the daemon process loads on the other core while the in-process routes run. */
let daemonStarting: Promise<MalformedDaemon> | undefined;
beforeAll(async () => {
  root = await realpath(await mkdtemp(join(tmpdir(), 'wsapi-malformed-')));
  for (const [path, content] of Object.entries(MALFORMED_FIXTURE)) {
    await mkdir(dirname(join(root, path)), { recursive: true });
    await writeFile(join(root, path), content);
  }
  daemonStarting = startMalformedDaemon({ root, token: TOKEN, limits: LIMITS });
  daemonStarting.catch(() => {}); // awaited (and its failure reported) by the tests that use it
});
afterAll(async () => {
  await (await daemonStarting?.catch(() => undefined))?.stop();
  await rm(root, { recursive: true, force: true });
});

describe('the fuzz tables cover the product', () => {
  it('every route of the route table has a row, and every row a route', () => {
    const routed = routeTable.map(routeKey).sort();
    expect(Object.keys(FUZZ_ROUTES).sort()).toEqual(routed);
  });

  it('every route has the docs entry its inputs are read from', () => {
    const missing = routeTable.filter((row) => routeDocIndex[`${row.method} ${row.path.replace(/:(\w+)\+?/g, '{$1}')}`] === undefined);
    expect(missing.map(routeKey)).toEqual([]);
  });

  it('every /ws command has a row, and every row a command', () => {
    expect(Object.keys(FUZZ_COMMANDS).sort()).toEqual([...rpcCommands.keys()].sort());
  });
});

describe('HTTP routes in-process: below 500, refusals in the dialect shape, nothing logged as unexpected', () => {
  let app: NodeWorkspaceApp;
  const logged: string[] = [];
  beforeAll(() => {
    app = createNodeWorkspaceApp({ root, token: TOKEN, watch: false, searchOptions: { noIndex: true }, limits: LIMITS });
    vi.spyOn(console, 'error').mockImplementation((...args: unknown[]) => void logged.push(format(...args)));
  });
  afterAll(async () => {
    vi.restoreAllMocks();
    await app.close();
  });

  const check = async (sent: HttpCase) => {
    const before = logged.length;
    const outcome = await sendInProcess((request) => app.fetch(request), sent);
    if (outcome.kind !== 'answer') return;
    const label = `${sent.method} ${sent.target.slice(0, 200)} [${sent.flaws.join('; ')}]`;
    expect(answerViolation(sent.shape, outcome.answer), label).toBeUndefined();
    expect(logged.slice(before).filter((line) => line.includes('unexpected error')), label).toEqual([]);
  };

  for (const row of routeTable) {
    it(routeKey(row), async () => {
      await fc.assert(fc.asyncProperty(httpCaseFor(row, TARGET), check), { seed: SEED, numRuns: RUNS_PER_ROUTE });
    });
  }

  it('requests no route takes', async () => {
    await fc.assert(fc.asyncProperty(unroutedCase(TARGET), check), { seed: SEED, numRuns: 20 });
  });
});

describe('one real daemon: raw sockets and /ws frames', () => {
  let daemon: MalformedDaemon;
  beforeAll(async () => {
    daemon = await daemonStarting!;
  }, 60_000);

  /** After each kind of traffic: no violation, the daemon alive and answering, nothing logged as unexpected. */
  const expectSurvived = async (tally: MalformedTally) => {
    expect(tally.violations).toEqual([]);
    expect(tally.clean).toBe(true);
    expect(daemon.exit).toBeUndefined();
    expect(await daemon.healthy()).toBe(true);
    expect(daemon.unexpectedErrors).toEqual([]);
  };

  it('raw HTTP: truncated and cut bodies, broken chunking, conflicting lengths, garbage, bad upgrades', async () => {
    const tally = new MalformedTally();
    await runRawCases(daemon.port, fc.sample(anyRawCase(TOKEN), { seed: SEED, numRuns: 100 }), tally, 6);
    expect(tally.answers).toBeGreaterThan(0);
    await expectSurvived(tally);
  });

  it('/ws: every command with hostile arguments, and frames of every wrong shape', async () => {
    const perCommand = [...rpcCommands.keys()].flatMap((command) => fc.sample(wsFrameFor(command), { seed: SEED, numRuns: 2 }));
    const malformed = fc.sample(anyWsFrame, { seed: SEED, numRuns: 60 });
    const tally = new MalformedTally();
    await runWsFrames(daemon.port, TOKEN, [...perCommand, ...malformed], tally, 3);
    expect(tally.requests).toBe(perCommand.length + malformed.length);
    await expectSurvived(tally);
  });

  it('/ws raw frames: invalid UTF-8, bad opcodes and bits, over the cap, fragments, sockets cut mid-frame and mid-command', async () => {
    const tally = new MalformedTally();
    await runRawWsCases(daemon.port, TOKEN, rawWsCases(LIMITS.rpcMaxMessageBytes), tally);
    await expectSurvived(tally);
  });
});
