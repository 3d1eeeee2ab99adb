import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { AdmissionGate, type Refusal } from '../../../runtime/http/admission-gate.ts';

/** A piece of work that runs until finish() (or fail()) is called; started tells whether it has begun. */
function pending(name: string, log: string[]) {
  let finish!: () => void;
  let fail!: (error: Error) => void;
  let started = false;
  const work = () => {
    started = true;
    log.push(`start ${name}`);
    return new Promise<string>((resolve, reject) => {
      finish = () => resolve(name);
      fail = reject;
    });
  };
  return {
    work,
    finish: () => finish(),
    fail: (error: Error) => fail(error),
    get started() {
      return started;
    },
  };
}

const refuse = (why: Refusal) => `refused: ${why}`;

/** Lets every settled promise's continuations run. */
const settle = () => vi.advanceTimersByTimeAsync(0);

describe('AdmissionGate', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('works on maxActive at once; the rest start in arrival order as turns are given back', async () => {
    const gate = new AdmissionGate({ maxActive: 2, maxQueued: 10, maxWaitMs: 1000 });
    const log: string[] = [];
    const jobs = ['a', 'b', 'c', 'd', 'e'].map((name) => pending(name, log));
    const answers = jobs.map((job) => gate.run(job.work, refuse));
    await settle();
    expect(log).toEqual(['start a', 'start b']);
    expect(gate.load).toEqual({ active: 2, waiting: 3 });

    jobs[1]!.finish();
    await settle();
    expect(log).toEqual(['start a', 'start b', 'start c']);
    jobs[0]!.finish();
    jobs[2]!.finish();
    await settle();
    expect(log).toEqual(['start a', 'start b', 'start c', 'start d', 'start e']);
    expect(gate.load).toEqual({ active: 2, waiting: 0 });
    jobs[3]!.finish();
    jobs[4]!.finish();
    expect(await Promise.all(answers)).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(gate.load).toEqual({ active: 0, waiting: 0 });
  });

  it('refuses at once when maxQueued are already waiting', async () => {
    const gate = new AdmissionGate({ maxActive: 1, maxQueued: 2, maxWaitMs: 1000 });
    const log: string[] = [];
    const jobs = ['a', 'b', 'c', 'd'].map((name) => pending(name, log));
    const answers = jobs.map((job) => gate.run(job.work, refuse));
    expect(await answers[3]).toBe('refused: queue-full');
    expect(jobs[3]!.started).toBe(false);
    jobs[0]!.finish();
    await settle();
    jobs[1]!.finish();
    await settle();
    jobs[2]!.finish();
    expect(await Promise.all(answers.slice(0, 3))).toEqual(['a', 'b', 'c']);
  });

  it('refuses a request that waited maxWaitMs; its place goes to the next in line, never to it', async () => {
    const gate = new AdmissionGate({ maxActive: 1, maxQueued: 10, maxWaitMs: 1000 });
    const log: string[] = [];
    const a = pending('a', log);
    const b = pending('b', log);
    const answerA = gate.run(a.work, refuse);
    const answerB = gate.run(b.work, refuse);
    await vi.advanceTimersByTimeAsync(600);
    const c = pending('c', log);
    const answerC = gate.run(c.work, refuse);
    await vi.advanceTimersByTimeAsync(400); // b has waited 1000 ms, c 400
    expect(await answerB).toBe('refused: waited-too-long');
    expect(gate.load).toEqual({ active: 1, waiting: 1 });
    a.finish();
    await settle();
    expect(log).toEqual(['start a', 'start c']);
    expect(b.started).toBe(false);
    c.finish();
    expect([await answerA, await answerC]).toEqual(['a', 'c']);
    expect(gate.load).toEqual({ active: 0, waiting: 0 });
  });

  it('a thousand and more that waited too long while every turn was held leave the line in order for those after them', async () => {
    const gate = new AdmissionGate({ maxActive: 1, maxQueued: 10_000, maxWaitMs: 100 });
    const log: string[] = [];
    const a = pending('a', log);
    const answerA = gate.run(a.work, refuse);
    const expired = Array.from({ length: 1200 }, (_, i) => gate.run(pending(`x${i}`, log).work, refuse));
    await vi.advanceTimersByTimeAsync(100);
    expect(new Set(await Promise.all(expired))).toEqual(new Set(['refused: waited-too-long']));
    const c = pending('c', log);
    const d = pending('d', log);
    const answers = [gate.run(c.work, refuse), gate.run(d.work, refuse)];
    expect(gate.load).toEqual({ active: 1, waiting: 2 });
    a.finish();
    await settle();
    expect(log).toEqual(['start a', 'start c']);
    c.finish();
    await settle();
    expect(log).toEqual(['start a', 'start c', 'start d']);
    d.finish();
    expect([await answerA, ...(await Promise.all(answers))]).toEqual(['a', 'c', 'd']);
    expect(gate.load).toEqual({ active: 0, waiting: 0 });
  });

  it('a turn is given back when the work throws, and the throw reaches the caller', async () => {
    const gate = new AdmissionGate({ maxActive: 1, maxQueued: 10, maxWaitMs: 1000 });
    const log: string[] = [];
    const a = pending('a', log);
    const b = pending('b', log);
    const answerA = gate.run(a.work, refuse);
    const answerB = gate.run(b.work, refuse);
    await settle();
    a.fail(new Error('handler failed'));
    await expect(answerA).rejects.toThrow('handler failed');
    await settle();
    expect(log).toEqual(['start a', 'start b']);
    b.finish();
    expect(await answerB).toBe('b');
    expect(gate.load).toEqual({ active: 0, waiting: 0 });
  });

  it('keeps order across thousands of waiters (the line is compacted as it is served)', async () => {
    const gate = new AdmissionGate({ maxActive: 1, maxQueued: 10_000, maxWaitMs: 60_000 });
    const order: number[] = [];
    const answers = Array.from({ length: 5000 }, (_, i) =>
      gate.run(async () => {
        order.push(i);
        await Promise.resolve();
        return String(i);
      }, refuse),
    );
    expect(await Promise.all(answers)).toEqual(Array.from({ length: 5000 }, (_, i) => String(i)));
    expect(order).toEqual(Array.from({ length: 5000 }, (_, i) => i));
    expect(gate.load).toEqual({ active: 0, waiting: 0 });
  });
});
