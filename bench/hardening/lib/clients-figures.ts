/**
 * The clients part's counts, its RSS bound, and its figures (../thousand-clients.ts runs it): each figure with the
 * bound it must meet, the steady-state figures over the window after wrk's warm-up only.
 */
import { MAX_JOINED_BYTES } from '../../../adapters/pty/output-coalescer.ts';
import { CLIENT_HIGH_WATER_BYTES } from '../../../core/terminals/delivery.ts';
import { defaultLimits } from '../../../runtime/context.ts';
import type { HardeningFigure } from '../result.ts';
import type { NonReaderState } from './non-reader-check.ts';
import { figure, info } from './sample-report.ts';
import type { Sample } from './sampler.ts';
import { slopePerMinute } from './slope.ts';
import type { Tally } from './tally.ts';
import type { TerminalTransport } from './terminal-clients.ts';
import type { WrkResult } from './wrk.ts';

const KiB = 1024;
const MiB = 1024 * 1024;

export interface ClientsPlan {
  /** wrk's run. */
  loadSeconds: number;
  /** Into wrk's run, where the steady state begins (every connection made, the daemon's heap grown to the load). */
  warmupSeconds: number;
  sampleMs: number;
  /** Seconds between the steady state's full collections (`retained`). */
  retainedEveryS: number;
}

const readersByTransport: Record<TerminalTransport, number> = { ori: 30, named: 25, rpc: 25 };
const nonReadersByTransport: Record<TerminalTransport, number> = { ori: 10, named: 5, rpc: 5 };
const total = (counts: Record<string, number>) => Object.values(counts).reduce((a, b) => a + b, 0);

/**
 * What one terminal may cost the daemon at most (docs/terminals.md#flow-control): its ring, full; the bytes queued
 * on its socket before the delivery waits (256 KiB); the one frame the delivery may send past that mark (a 64 KiB
 * chunk, up to twice that as `/ws` JSON); and the pty adapter's join buffer (64 KiB).
 */
const TERMINAL_CAP_BYTES = defaultLimits.terminalRingBytes + CLIENT_HIGH_WATER_BYTES + 2 * MAX_JOINED_BYTES + MAX_JOINED_BYTES;

/**
 * Allowances per connection, stated here and checked against what each run measures (its notes): a WebSocket or
 * a change feed idles at a few KiB (its socket object, parser, a session record) — measured 30–40 KiB each with
 * everything the first thousand bring (V8's heap growing in 20 % steps with them), allowed 64 KiB. An HTTP
 * connection under wrk always has a request in flight: its parser and socket plus the request's own work (a file
 * read, a listing, a JSON body, a search) — measured ≈ 100–150 KiB each at the peak, allowed 256 KiB.
 */
const SOCKET_ALLOWANCE_BYTES = 64 * KiB;
const HTTP_ALLOWANCE_BYTES = 256 * KiB;

export const CAPS = {
  http: 1000,
  /** 1000 WebSockets: 900 command clients + 100 terminals (80 reading, 20 never reading). */
  commandClients: 900,
  feeds: 100,
  readersByTransport,
  nonReadersByTransport,
  readers: total(readersByTransport),
  nonReaders: total(nonReadersByTransport),
  terminals: total(readersByTransport) + total(nonReadersByTransport),
  /** A never-reader's program has written at least a full ring and a full socket queue before it may count as held. */
  nonReaderMinWritten: defaultLimits.terminalRingBytes + CLIENT_HIGH_WATER_BYTES,
};

/** idle + every terminal at its cap + the stated allowance per socket and per HTTP connection. */
export function rssBound(idle: Sample): { total: number; note: string } {
  const terminals = (CAPS.terminals * TERMINAL_CAP_BYTES) / MiB;
  const sockets = ((CAPS.commandClients + CAPS.feeds) * SOCKET_ALLOWANCE_BYTES) / MiB;
  const http = (CAPS.http * HTTP_ALLOWANCE_BYTES) / MiB;
  return {
    total: idle.rssMiB + terminals + sockets + http,
    note:
      `idle ${idle.rssMiB.toFixed(0)} + ${CAPS.terminals} terminals × ${(TERMINAL_CAP_BYTES / MiB).toFixed(3)} MiB (ring 1 MiB + 256 KiB queue + 128 KiB one frame past it + 64 KiB join) = ${terminals.toFixed(0)}` +
      ` + ${CAPS.commandClients + CAPS.feeds} sockets × ${SOCKET_ALLOWANCE_BYTES / KiB} KiB = ${sockets.toFixed(0)} + ${CAPS.http} HTTP connections × ${HTTP_ALLOWANCE_BYTES / KiB} KiB = ${http.toFixed(0)}`,
  };
}

export interface ClientsMeasured {
  plan: ClientsPlan;
  tally: Tally;
  result: WrkResult | undefined;
  samples: Sample[];
  /**
   * The steady state's retained memory: every plan.retainedEveryS a full collection in the daemon, then its RSS and
   * heap (the raw samples follow V8's garbage between major collections, which can take minutes under load).
   */
  retained: { t: number; rssMiB: number; heapUsedMiB: number; arrayBuffersMiB: number }[];
  /** Readings: before any client, after the 1000 sockets, after the terminals too (just before wrk), after leaving. */
  idle: Sample;
  sockets: Sample;
  connected: Sample;
  after: Sample;
  steadyFrom: number;
  /** Seconds into wrk's run until the daemon's accept queue was empty, and what was left in it then (0: all). */
  acceptedAllAfterS: number;
  acceptQueueLeft: number;
  loadStartedAt: number;
  loadEndedAt: number;
  /** The never-readers at the check before the load, and at its end. */
  engaged: NonReaderState[];
  held: NonReaderState[];
  writtenDuringLoad: number[];
  readerBytes: number[];
  starved: number;
  changeFrames: number;
  resyncFrames: number;
  childrenAfterGrace: string;
  childrenGoneAfterMs: number;
  leftBehind: number;
  daemonBugs: string[];
  cpu: { daemonCores: number; runnerCores: number };
  listenQueue: { overflows: number; drops: number };
}

export function clientsFigures(m: ClientsMeasured): HardeningFigure[] {
  const out: HardeningFigure[] = [];
  out.push(
    info('clients connected and verified before the load', CAPS.feeds + CAPS.commandClients + CAPS.terminals, 'clients', `${CAPS.feeds} change feeds (ready), ${CAPS.commandClients} /ws clients (get_cwd answered), ${CAPS.readers} reading terminals (output seen), ${CAPS.nonReaders} never-reading (paused at caps); 50 at a time`),
  );
  const atCaps = m.engaged.filter((state) => state.paused && state.written >= CAPS.nonReaderMinWritten).length;
  out.push(figure('never-reading terminals paused at their caps before the load', atCaps, 'terminals', `= ${CAPS.nonReaders}`, atCaps === CAPS.nonReaders, `each program wrote ≥ ring + 256 KiB (${(CAPS.nonReaderMinWritten / MiB).toFixed(2)} MiB) and then nothing for 2 s; ${describeWritten(m.engaged)}`));
  const grew = m.writtenDuringLoad.filter((n) => !(n === 0)).length;
  out.push(figure('never-reading terminals whose program wrote during the load', grew, 'terminals', '= 0 (held paused throughout)', grew === 0, `bytes written during the load: max ${Math.max(...m.writtenDuringLoad)}`));

  out.push(...httpFigures(m));
  out.push(info('daemon CPU over the load', m.cpu.daemonCores, 'cores', `this client process (WebSockets, feeds): ${m.cpu.runnerCores.toFixed(2)} cores`));
  const wsErrors = m.tally.errorTotal();
  out.push(figure('WebSocket and change-feed errors, unexpected closes', wsErrors, 'count', '= 0', wsErrors === 0, [m.tally.errorSummary(), ...m.tally.messages.slice(0, 5)].filter(Boolean).join(' | ') || undefined));
  out.push(info('documented: search_in_files over its 10 s budget', m.tally.get('documented: search_in_files over its 10 s budget'), 'calls'));
  out.push(info('/ws commands answered', m.tally.get('/ws commands answered'), 'calls', `${m.tally.get('/ws command clients connected')} clients`));
  out.push(info('change frames delivered to the change-feed subscribers', m.changeFrames, 'frames', `resync ×${m.resyncFrames}`));
  const readingS = m.loadEndedAt - m.loadStartedAt;
  out.push(info('terminal output read by the reading clients (whole run)', m.readerBytes.reduce((a, b) => a + b, 0) / MiB, 'MiB', `${m.readerBytes.length} readers; load ${readingS.toFixed(0)} s`));
  out.push(figure('reading terminals starved (no output in the last quarter of the load, ≤ 30 s)', m.starved, 'count', '= 0', m.starved === 0));
  out.push(...memoryFigures(m));
  return out;
}

function describeWritten(states: readonly NonReaderState[]): string {
  const values = states.map((state) => state.written / MiB);
  return `programs wrote ${Math.min(...values).toFixed(2)}–${Math.max(...values).toFixed(2)} MiB`;
}

function httpFigures(m: ClientsMeasured): HardeningFigure[] {
  const wrk = m.result;
  if (!wrk) return [figure('HTTP load ran', 0, 'runs', '= 1', false, m.tally.messages.join(' | '))];
  const statusText = [...wrk.statuses].map(([status, n]) => `${status}×${n}`).join(' ');
  const bad = [...wrk.statuses].filter(([status]) => (status < 200 || status > 299) && status !== 429).reduce((sum, [, n]) => sum + n, 0);
  const out = [
    info('HTTP requests/s (wrk -c1000 -t2)', wrk.rps, 'req/s', `${wrk.requests} requests; statuses ${statusText}; wrk used ${(wrk.cpuMs / 1000 / m.plan.loadSeconds).toFixed(2)} of 2 cores`),
    info('HTTP latency p50', wrk.p50Ms, 'ms'),
    info('HTTP latency p99', wrk.p99Ms, 'ms', `max ${wrk.maxMs.toFixed(0)} ms (wrk timeout 10 s)`),
    figure(
      'wrk connections the daemon had not accepted when the steady state began',
      m.acceptQueueLeft,
      'connections',
      '= 0',
      m.acceptQueueLeft === 0,
      `all ${CAPS.http} accepted ${m.acceptedAllAfterS.toFixed(1)} s into the load (established at once in the kernel; a busy event loop takes one per turn): requests on the last ones waited that long`,
    ),
    figure('HTTP responses neither 2xx nor 429', bad, 'responses', '= 0', bad === 0, `429 (documented refusal) ×${wrk.statuses.get(429) ?? 0}`),
  ];
  for (const kind of ['connect', 'read', 'write', 'timeout'] as const) {
    const n = wrk.socketErrors[kind];
    // wrk counts a timeout every 2 s for each connection whose request is older than the timeout — ticks, not
    // requests — and a request written on a connection still in the accept queue ages from the start.
    const note =
      kind === 'connect'
        ? `kernel listen-queue overflows/drops during the load (machine-wide) ${m.listenQueue.overflows}/${m.listenQueue.drops}`
        : kind === 'timeout' && n > 0
          ? `wrk's count: per 2 s check, each connection with a request older than 10 s, plus each answer later than that (left out of its latency figures: max ${wrk.maxMs.toFixed(0)} ms)`
          : undefined;
    out.push(figure(`wrk socket errors: ${kind}`, n, 'count', '= 0', n === 0, note));
  }
  return out;
}

function memoryFigures(m: ClientsMeasured): HardeningFigure[] {
  const out: HardeningFigure[] = [];
  const steady = m.samples.filter((s) => s.t >= m.steadyFrom && s.t <= m.loadEndedAt);
  const bound = rssBound(m.idle);
  const rssMax = Math.max(...steady.map((s) => s.rssMiB));
  out.push(figure('RSS max in the steady state (never-readers held, wrk warmed up)', rssMax, 'MiB', `≤ ${bound.total.toFixed(0)} MiB`, rssMax <= bound.total, bound.note));
  const socketKiB = ((m.sockets.rssMiB - m.idle.rssMiB) * KiB) / (CAPS.commandClients + CAPS.feeds);
  const terminalMiB = (m.connected.rssMiB - m.sockets.rssMiB) / CAPS.terminals;
  const httpKiB = ((rssMax - m.connected.rssMiB) * KiB) / CAPS.http;
  out.push(info('measured RSS per WebSocket / change feed', socketKiB, 'KiB', `(${m.sockets.rssMiB.toFixed(0)} − idle ${m.idle.rssMiB.toFixed(0)} MiB) / ${CAPS.commandClients + CAPS.feeds}; allowed ${SOCKET_ALLOWANCE_BYTES / KiB}`));
  out.push(info('measured RSS per terminal (rings filling, 20 at their caps)', terminalMiB, 'MiB', `(${m.connected.rssMiB.toFixed(0)} − ${m.sockets.rssMiB.toFixed(0)} MiB) / ${CAPS.terminals}; allowed ${(TERMINAL_CAP_BYTES / MiB).toFixed(3)}`));
  out.push(info('measured RSS per HTTP connection under load (steady max − before wrk)', httpKiB, 'KiB', `(${rssMax.toFixed(0)} − ${m.connected.rssMiB.toFixed(0)} MiB) / ${CAPS.http}; allowed ${HTTP_ALLOWANCE_BYTES / KiB}`));
  out.push(info('V8 heap used max in the steady state', Math.max(...steady.map((s) => s.heapUsedMiB).filter(Number.isFinite)), 'MiB'));
  // A leak is what a full collection keeps: the slope is taken on those readings, as the soak takes its own.
  const rssSlope = slopePerMinute(m.retained.map((s) => [s.t, s.rssMiB] as const));
  const heapSlope = slopePerMinute(m.retained.map((s) => [s.t, s.heapUsedMiB] as const));
  const buffersSlope = slopePerMinute(m.retained.map((s) => [s.t, s.arrayBuffersMiB] as const));
  const rawSlope = slopePerMinute(steady.map((s) => [s.t, s.rssMiB] as const));
  out.push(
    figure(
      'RSS slope in the steady state (after a full collection)',
      rssSlope,
      'MiB/min',
      '< 4 MiB/min',
      m.retained.length >= 3 && rssSlope < 4,
      `${m.retained.length} readings over ${(m.loadEndedAt - m.steadyFrom).toFixed(0)} s; after collection: ArrayBuffers ${buffersSlope.toFixed(1)} MiB/min (RSS ${m.retained.map((s) => s.rssMiB.toFixed(0)).join(' ')}); raw RSS (garbage included) ${rawSlope.toFixed(1)} MiB/min over ${steady.length} samples`,
    ),
  );
  // What is alive in V8 after the same collections, bounded as the soak bounds it: a leak of JavaScript objects
  // shows here exactly (the change feeds' per-path ignore caches once grew it ~20 MiB/min), where RSS also moves
  // with the allocator's and the kernel's choices.
  out.push(
    figure(
      'V8 heap slope in the steady state (after a full collection)',
      heapSlope,
      'MiB/min',
      '< 1 MiB/min',
      m.retained.length >= 3 && heapSlope < 1,
      `heap after collection ${m.retained.map((s) => s.heapUsedMiB.toFixed(0)).join(' ')} MiB`,
    ),
  );

  const fdMax = Math.max(...steady.map((s) => s.fds));
  // Every socket (1000 HTTP, 1000 WebSockets, the change feeds); per HTTP connection one file its request may hold
  // open while it waits for libuv's four threads (a read queued behind the others keeps its fd from open to close);
  // 3 per terminal (pty master, the held other side, slack); 64 slack.
  const fdBound = m.idle.fds + 2 * CAPS.http + CAPS.commandClients + CAPS.terminals + CAPS.feeds + 3 * CAPS.terminals + 64;
  out.push(figure('open fds max in the steady state', fdMax, 'fds', `≤ ${fdBound}`, fdMax <= fdBound, `idle ${m.idle.fds}, before wrk ${m.connected.fds}; every connection + a file per HTTP request + 3 per terminal + 64`));
  // With every client connected and none replaced, the count is flat; a leak of one fd per request or /ws command
  // would be thousands a minute. The bound is on growth: the files of requests in flight move the count by ±70
  // around its level (2 483–2 617 at 529 req/s), which over 4½ minutes tilts a least-squares line by ±15/min
  // either way; a falling count is files closed, never a leak. The count after the clients left is the exact check.
  const fdSlope = slopePerMinute(steady.map((s) => [s.t, s.fds] as const));
  const fdSpread = `${Math.min(...steady.map((s) => s.fds))}–${fdMax} over ${steady.length} samples`;
  out.push(figure('open fds slope in the steady state', fdSlope, 'fds/min', 'slope < 10 fds/min', fdSlope < 10, fdSpread));
  out.push(figure('open fds after every client left', m.after.fds, 'fds', `≤ idle ${m.idle.fds} + 8`, m.after.fds <= m.idle.fds + 8, `RSS ${m.after.rssMiB.toFixed(0)} MiB`));
  const gone = Number.isFinite(m.childrenGoneAfterMs) ? `all gone ${(m.childrenGoneAfterMs / 1000).toFixed(1)} s after the clients left` : 'still there 30 s after';
  out.push(figure('descendant processes 5 s after every client left', m.after.children, 'processes', '= 0 (kill grace: SIGHUP, SIGKILL 1 s later)', m.after.children === 0, m.after.children > 0 ? `${m.childrenAfterGrace}; ${gone}` : undefined));
  out.push(figure("processes left behind by the daemon's shutdown", m.leftBehind, 'processes', '= 0', m.leftBehind === 0));
  out.push(figure('errors the daemon logged (stderr)', m.daemonBugs.length, 'lines', '= 0', m.daemonBugs.length === 0, m.daemonBugs.slice(0, 3).join(' | ') || undefined));
  return out;
}
