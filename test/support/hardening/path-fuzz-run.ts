/**
 * Runs batches of hostile paths (./hostile-paths.ts) through the rows of ./path-routes.ts against one backend
 * (./path-fuzz-targets.ts), with the swap link flipping and the folder `swapped` traded for a link out the whole
 * time, and judges each batch with the escape oracle (./escape-oracle.ts). The suite
 * (test/hardening/path-fuzz.test.ts) wraps `runBatch` in `fc.assert`, so a failing batch shrinks to the one request
 * that fails; `npm run soak -- fuzz-paths` counts over many batches.
 */
import fc from 'fast-check';
import { isInside } from '../../../adapters/fs/posix-path.ts';
import { MarkerScanner, snapshotDiff, type Snapshot } from './escape-oracle.ts';
import { hostilePath, LinkSwapper, type PathTargets } from './hostile-paths.ts';
import { PATH_ROUTES, refusalShapeProblem, type Answer, type Call, type CallEnv, type PathRoute, type RefusalShape } from './path-routes.ts';
import type { FuzzTarget } from './path-fuzz-targets.ts';
import type { WsChannel } from './ws-channel.ts';

export type FindingKind = 'escape' | '5xx' | 'shape';

export interface Finding {
  kind: FindingKind;
  target: string;
  route: string;
  path: string;
  detail: string;
}

export interface FuzzCounts {
  paths: number;
  requests: number;
  /** Answers below 400 (a hostile-looking path may normalise inside: allowed). */
  accepted: number;
  refused: number;
  escapes: number;
  serverErrors: number;
  badShapes: number;
}

export const emptyCounts = (): FuzzCounts => ({ paths: 0, requests: 0, accepted: 0, refused: 0, escapes: 0, serverErrors: 0, badShapes: 0 });

export function addCounts(into: FuzzCounts, from: FuzzCounts): void {
  for (const key of Object.keys(into) as (keyof FuzzCounts)[]) into[key] += from[key];
}

/** One generated case: a row of the table, the path, and the row's variant choice. */
export interface FuzzCase {
  row: number;
  path: string;
  variant: number;
}

/** The rows a target can run: its powers, and only agent-aware rows on an agent's copy. */
export function rowsFor(target: FuzzTarget): number[] {
  return PATH_ROUTES.flatMap((row, index) => {
    if (!(row.needs ?? []).every((need) => target.has.has(need))) return [];
    if (target.agent !== undefined && !row.agentAware) return [];
    return [index];
  });
}

export function pathTargetsOf(target: FuzzTarget): PathTargets {
  return { root: target.root, outside: target.outside, decoys: target.decoys, links: target.links };
}

/** Cases for a target: rows picked by weight, each with a hostile path. */
export function caseArbitrary(target: FuzzTarget): fc.Arbitrary<FuzzCase> {
  const rows = rowsFor(target);
  const row = fc.oneof(...rows.map((index) => ({ weight: Math.max(1, Math.round(PATH_ROUTES[index]!.weight * 10)), arbitrary: fc.constant(index) })));
  return fc.record({ row, path: hostilePath(pathTargetsOf(target)), variant: fc.nat({ max: 1_000_000 }) });
}

export interface BatchResult {
  counts: FuzzCounts;
  findings: Finding[];
}

/** What stays open between batches of one target: the `/ws` connection, the outside's snapshot as built. */
export interface TargetSession {
  target: FuzzTarget;
  scanner: MarkerScanner;
  baseline: Snapshot;
  ws: WsChannel | undefined;
  swapper: LinkSwapper;
  nextUnique: number;
}

export async function openSession(target: FuzzTarget, marker: string): Promise<TargetSession> {
  return {
    target,
    scanner: new MarkerScanner(marker),
    baseline: await target.outsideSnapshot(),
    ws: undefined,
    swapper: new LinkSwapper(target.flipper, target.outside, target.trader),
    nextUnique: 0,
  };
}

export async function closeSession(session: TargetSession): Promise<void> {
  session.ws?.close();
  session.ws = undefined;
}

/**
 * Sends every case (at most `concurrency` at a time) with the swap link flipping and the folder traded for a link
 * out (LinkSwapper), then checks the oracle and puts the fixture back. Findings name the case, so a shrunk failure reads as one request.
 */
export async function runBatch(session: TargetSession, cases: readonly FuzzCase[], { concurrency = 8, swap = true } = {}): Promise<BatchResult> {
  const { target } = session;
  const counts = emptyCounts();
  const findings: Finding[] = [];
  if (cases.some((c) => PATH_ROUTES[c.row]!.shape === 'ws') && (session.ws === undefined || session.ws.closed)) session.ws = await target.openWs();
  if (swap) session.swapper.start();
  try {
    let next = 0;
    const lane = async () => {
      while (next < cases.length) {
        const fuzzCase = cases[next++]!;
        counts.paths++;
        await runCase(session, fuzzCase, counts, findings);
      }
    };
    await Promise.all(Array.from({ length: Math.min(concurrency, cases.length) }, lane));
  } finally {
    if (swap) await session.swapper.stop();
  }
  await judgeAfterBatch(session, cases, counts, findings);
  await target.reset();
  return { counts, findings };
}

async function runCase(session: TargetSession, fuzzCase: FuzzCase, counts: FuzzCounts, findings: Finding[]): Promise<void> {
  const row = PATH_ROUTES[fuzzCase.row]!;
  const env: CallEnv = { agent: session.target.agent, unique: `${session.target.name}-${session.nextUnique++}` };
  let call: Call | undefined = row.call(fuzzCase.path, env, fuzzCase.variant);
  let first = true;
  while (call !== undefined) {
    const answer = await send(session, row, call, fuzzCase, counts, findings);
    call = first && row.then ? row.then(answer, fuzzCase.path, env) : undefined;
    first = false;
  }
}

/** Sends one request or frame and judges its answer on its own: marker, status, shape, paths it names. */
async function send(session: TargetSession, row: PathRoute, call: Call, fuzzCase: FuzzCase, counts: FuzzCounts, findings: Finding[]): Promise<Answer> {
  const { target, scanner } = session;
  const found = (kind: FindingKind, detail: string) => {
    findings.push({ kind, target: target.name, route: row.route, path: fuzzCase.path, detail: `${describe(call)}: ${detail}` });
    if (kind === 'escape') counts.escapes++;
    else if (kind === '5xx') counts.serverErrors++;
    else counts.badShapes++;
  };
  counts.requests++;
  if (call.kind === 'http') {
    let response: Response;
    try {
      response = await target.fetch(call);
    } catch (error) {
      found('5xx', `the app threw: ${(error as Error).message}`);
      return { status: 500, json: undefined };
    }
    let bytes = new Uint8Array();
    if ((response.headers.get('content-type') ?? '').startsWith('text/event-stream')) await response.body?.cancel();
    else bytes = new Uint8Array(await response.arrayBuffer());
    const text = new TextDecoder().decode(bytes);
    if (scanner.inBytes(bytes) || scanner.inText(text)) found('escape', `the answer holds the outside marker: ${clip(text)}`);
    const json = parseJson(text);
    judgeStatus(response.status, json, call.shape ?? row.shape, call.method === 'HEAD', text, found);
    if (response.status < 400) namedOutside(json, target.root, fuzzCase.path, found);
    response.status < 400 ? counts.accepted++ : counts.refused++;
    return { status: response.status, json };
  }
  const channel = session.ws!;
  let reply;
  try {
    reply = await channel.call(call.command, call.args);
  } catch (error) {
    found('5xx', (error as Error).message);
    return { status: 500, json: undefined };
  }
  const text = JSON.stringify(reply);
  if (scanner.inText(text)) found('escape', `the reply holds the outside marker: ${clip(text)}`);
  if (!reply.ok && reply.error === 'internal error') found('5xx', 'internal error');
  else if (!reply.ok) {
    const problem = refusalShapeProblem('ws', 400, reply);
    if (problem) found('shape', `${problem}: ${clip(text)}`);
  } else namedOutside(reply.result, target.root, fuzzCase.path, found);
  if (reply.ok && call.awaitEvent) {
    try {
      const done = (await channel.event(call.awaitEvent.event, call.awaitEvent.id)) as { error?: string };
      if (done.error === 'internal error') found('5xx', `${call.awaitEvent.event}: internal error`);
    } catch (error) {
      found('5xx', (error as Error).message);
    }
  }
  reply.ok ? counts.accepted++ : counts.refused++;
  return { status: reply.ok ? 200 : reply.error === 'internal error' ? 500 : 400, json: reply.result };
}

function judgeStatus(status: number, json: unknown, shape: RefusalShape, head: boolean, text: string, found: (kind: FindingKind, detail: string) => void): void {
  if (status >= 500 && status !== 501) {
    found('5xx', `status ${status}: ${clip(text)}`);
    return;
  }
  if (status < 400 || head) return;
  const problem = refusalShapeProblem(shape, status, json);
  if (problem) found('shape', `status ${status}, ${problem}: ${clip(text)}`);
}

/**
 * A successful answer that names an absolute path outside the root (a real path it resolved to) is an escape — unless
 * it is the client's own path echoed back as sent: Intentic's calls answer with the path as given, and
 * `/ws\inside/f.txt` (backslashes are separators there) resolves inside a root `/ws` while reading as a sibling.
 */
function namedOutside(value: unknown, root: string, sent: string, found: (kind: FindingKind, detail: string) => void): void {
  const walk = (node: unknown): void => {
    if (Array.isArray(node)) node.forEach(walk);
    else if (typeof node === 'object' && node !== null) {
      for (const [key, inner] of Object.entries(node)) {
        if (['path', 'absolutePath', 'cwd', 'root'].includes(key) && typeof inner === 'string' && inner.startsWith('/') && inner !== sent && !isInside(root, inner)) {
          found('escape', `the answer names ${key} ${clip(inner)} outside the root`);
        } else walk(inner);
      }
    }
  };
  walk(value);
}

/** After the batch: the outside as built, no marker inside the root, no stray `/ws` frame holding it. */
async function judgeAfterBatch(session: TargetSession, cases: readonly FuzzCase[], counts: FuzzCounts, findings: Finding[]): Promise<void> {
  const { target, scanner } = session;
  const batchFinding = (detail: string) => {
    counts.escapes++;
    // A change outside cannot be pinned on one request of a concurrent batch: the batch's cases are named.
    findings.push({ kind: 'escape', target: target.name, route: cases.length === 1 ? PATH_ROUTES[cases[0]!.row]!.route : '(batch)', path: cases.length === 1 ? cases[0]!.path : `${cases.length} cases`, detail });
  };
  for (const frame of session.ws?.takeFrames() ?? []) if (scanner.inText(frame)) batchFinding(`a /ws frame holds the outside marker: ${clip(frame)}`);
  const outside = await target.outsideSnapshot();
  const changed = snapshotDiff(session.baseline, outside);
  if (changed.length > 0) {
    batchFinding(`outside the root changed: ${changed.slice(0, 8).join(', ')}`);
    await target.restoreOutside();
    session.baseline = await target.outsideSnapshot();
  }
  const leaked = scanner.inSnapshot(await target.insideSnapshot());
  if (leaked.length > 0) batchFinding(`outside content or names reached the root: ${leaked.slice(0, 4).join(', ')}`);
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function describe(call: Call): string {
  return call.kind === 'http' ? `${call.method} ${clip(call.target, 160)}` : `ws ${call.command} ${clip(JSON.stringify(call.args), 160)}`;
}

function clip(text: string, max = 300): string {
  return text.length <= max ? text : `${text.slice(0, max)}…`;
}
