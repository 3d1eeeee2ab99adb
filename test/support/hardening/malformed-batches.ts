/**
 * Runs batches of malformed traffic against one real daemon and tallies what the oracle says about every answer
 * (./malformed-oracle.ts): the soak (bench/hardening/malformed.ts) reports the tally as its figures, the suite
 * (test/hardening/malformed.test.ts) expects it clean.
 */
import { Agent } from 'node:http';
import { answerViolation, isParserRefusal, rpcReplyViolation, type Answer, type Violation } from './malformed-oracle.ts';
import { sendOverHttp } from './malformed-http.ts';
import type { ErrorShape, HttpCase, WsFrameCase } from './malformed-requests.ts';
import { sendRaw, type RawCase } from './malformed-wire.ts';
import { sendRawWs, sendWsFrames, type RawWsCase } from './malformed-ws.ts';

/** Counts of one run; `violations` keeps the first few of each kind in words, for the reader. */
export class MalformedTally {
  requests = 0;
  answers = 0;
  fiveHundreds = 0;
  shapeViolations = 0;
  /** No answer and no close within the wait: a request the daemon left hanging. */
  hangs = 0;
  /** The connection failed before an answer (a body cut on purpose, or a refusal that closed before the write ended). */
  resets = 0;
  /** Refusals without a body (Node's parser's own answer, which runtime/node/node-refusals.ts replaces): must be 0. */
  parserRefusals = 0;
  /** Cases the client library would not put on the wire (e.g. a Fetch Request refuses `TRACE`). */
  unsendable = 0;
  readonly violations: string[] = [];

  answer(label: string, shape: ErrorShape, answer: Answer): void {
    this.answers += 1;
    if (isParserRefusal(answer)) {
      this.parserRefusals += 1;
      if (this.violations.length < 50) this.violations.push(`${label}: status ${answer.status} without a body`);
    }
    this.violation(label, answerViolation(shape, answer));
  }

  violation(label: string, found: Violation | undefined): void {
    if (!found) return;
    if (found.kind === '5xx') this.fiveHundreds += 1;
    else this.shapeViolations += 1;
    if (this.violations.length < 50) this.violations.push(`${label}: ${found.detail}`);
  }

  get clean(): boolean {
    return this.fiveHundreds === 0 && this.shapeViolations === 0 && this.hangs === 0 && this.parserRefusals === 0;
  }
}

/** Runs `items` through `work`, `concurrency` at a time. */
export async function inParallel<T>(items: readonly T[], concurrency: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, items.length) }, async () => {
      while (next < items.length) await work(items[next++]!);
    }),
  );
}

export async function runHttpCases(port: number, cases: readonly HttpCase[], tally: MalformedTally, concurrency = 8): Promise<void> {
  const agent = new Agent({ keepAlive: true, maxSockets: concurrency });
  try {
    await inParallel(cases, concurrency, async (sent) => {
      tally.requests += 1;
      const outcome = await sendOverHttp(port, sent, agent);
      if (outcome.kind === 'unsendable') tally.unsendable += 1;
      else if (outcome.kind === 'no-answer') {
        if (/no answer within/.test(outcome.why)) {
          tally.hangs += 1;
          tally.violations.push(`${sent.method} ${sent.target.slice(0, 100)}: ${outcome.why}`);
        } else tally.resets += 1;
      } else {
        tally.answer(`${sent.method} ${sent.target.slice(0, 100)} [${sent.flaws.join('; ').slice(0, 200)}]`, sent.shape, outcome.answer);
      }
    });
  } finally {
    agent.destroy();
  }
}

export async function runRawCases(port: number, cases: readonly RawCase[], tally: MalformedTally, concurrency = 8): Promise<void> {
  await inParallel(cases, concurrency, async (raw) => {
    tally.requests += 1;
    const outcome = await sendRaw(port, raw);
    // Half-closed and never answered nor closed: the daemon holds a connection nobody can use.
    if (outcome.timedOut && raw.then === 'end' && outcome.answers.length === 0) {
      tally.hangs += 1;
      tally.violations.push(`${raw.name}: neither answered nor closed`);
    }
    if (outcome.answers.length === 0) tally.resets += 1;
    for (const answer of outcome.answers) tally.answer(raw.name, raw.shape, answer);
  });
}

/** Frames over `sockets` `/ws` connections at once, each frame counted as one request. */
export async function runWsFrames(port: number, token: string, frames: readonly WsFrameCase[], tally: MalformedTally, sockets = 4): Promise<void> {
  const shares = Array.from({ length: sockets }, (_, i) => frames.filter((_, j) => j % sockets === i));
  await Promise.all(
    shares.map(async (share) => {
      const run = await sendWsFrames(port, token, share);
      tally.requests += run.sent;
      tally.answers += run.replies;
      for (const found of run.violations) tally.violation('/ws', found);
    }),
  );
}

/** Raw frame cases; a close with 1011 (the daemon's own failure) is a 5xx, a `reply` case must get a clean reply. */
export async function runRawWsCases(port: number, token: string, cases: readonly RawWsCase[], tally: MalformedTally, concurrency = 6): Promise<void> {
  await inParallel(cases, concurrency, async (raw) => {
    tally.requests += 1;
    const outcome = await sendRawWs(port, token, raw);
    if (outcome.closeCode === 1011) tally.violation(`/ws raw: ${raw.name}`, { kind: '5xx', detail: 'closed with 1011' });
    if (raw.then === 'close' && outcome.closeCode === undefined) {
      tally.hangs += 1;
      tally.violations.push(`/ws raw: ${raw.name}: the daemon neither refused nor closed`);
    }
    if (raw.then === 'reply' && outcome.replies.length === 0) tally.violation(`/ws raw: ${raw.name}`, { kind: 'shape', detail: 'no reply' });
    for (const reply of outcome.replies) {
      tally.answers += 1;
      tally.violation(`/ws raw: ${raw.name}`, rpcReplyViolation(reply));
    }
  });
}
