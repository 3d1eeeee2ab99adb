import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { OutputCoalescer } from '../../../adapters/pty/output-coalescer.ts';

const bytes = (...values: number[]) => new Uint8Array(values);

describe('OutputCoalescer', () => {
  let out: Uint8Array[];
  let coalescer: OutputCoalescer;
  beforeEach(() => {
    vi.useFakeTimers();
    out = [];
    coalescer = new OutputCoalescer((data) => out.push(data), { windowMs: 2, maxBytes: 8 });
  });
  afterEach(() => vi.useRealTimers());

  it('sends the first read after a quiet spell at once (a keystroke echo waits for nothing)', () => {
    coalescer.push(bytes(1));
    expect(out).toEqual([bytes(1)]);
    vi.advanceTimersByTime(5); // quiet: the window closes with nothing held
    coalescer.push(bytes(2));
    expect(out).toEqual([bytes(1), bytes(2)]);
  });

  it('joins reads that follow within the window and sends them when it ends, in order', () => {
    coalescer.push(bytes(1));
    coalescer.push(bytes(2, 3));
    coalescer.push(bytes(4));
    expect(out).toEqual([bytes(1)]);
    vi.advanceTimersByTime(2);
    expect(out).toEqual([bytes(1), bytes(2, 3, 4)]);
    // Still streaming: a new window opened, so the next read is held too.
    coalescer.push(bytes(5));
    expect(out).toHaveLength(2);
    vi.advanceTimersByTime(2);
    expect(out).toEqual([bytes(1), bytes(2, 3, 4), bytes(5)]);
  });

  it('sends as soon as maxBytes are held, without waiting for the window', () => {
    coalescer.push(bytes(0));
    coalescer.push(bytes(1, 2, 3, 4));
    coalescer.push(bytes(5, 6, 7, 8));
    expect(out).toEqual([bytes(0), bytes(1, 2, 3, 4, 5, 6, 7, 8)]);
  });

  it('never hands on more than maxBytes at once: what is held goes before a read that would pass it; a big read in pieces', () => {
    coalescer.push(bytes(0));
    coalescer.push(bytes(1, 2, 3, 4, 5));
    coalescer.push(bytes(6, 7, 8, 9)); // 5 + 4 would be 9
    expect(out).toEqual([bytes(0), bytes(1, 2, 3, 4, 5)]);
    coalescer.push(bytes(10, 11, 12, 13, 14, 15, 16, 17, 18, 19)); // 4 held + 10: the held first, then 8 + 2
    expect(out).toEqual([bytes(0), bytes(1, 2, 3, 4, 5), bytes(6, 7, 8, 9), bytes(10, 11, 12, 13, 14, 15, 16, 17), bytes(18, 19)]);
  });

  it('flush sends what is held at once (before an exit) and closes the window', () => {
    coalescer.push(bytes(1));
    coalescer.push(bytes(2));
    coalescer.flush();
    expect(out).toEqual([bytes(1), bytes(2)]);
    coalescer.push(bytes(3)); // the window is closed: straight out
    expect(out).toEqual([bytes(1), bytes(2), bytes(3)]);
    coalescer.flush();
    expect(out).toHaveLength(3); // nothing held, nothing sent
  });

  it('loses and duplicates nothing over a long random stream', () => {
    const sent: number[] = [];
    let value = 0;
    for (let i = 0; i < 500; i++) {
      const size = 1 + ((i * 7) % 5);
      const chunk = new Uint8Array(size).map(() => value++ & 0xff);
      sent.push(...chunk);
      coalescer.push(chunk);
      if (i % 13 === 0) vi.advanceTimersByTime(1);
      if (i % 41 === 0) vi.advanceTimersByTime(3);
    }
    coalescer.flush();
    expect(out.flatMap((chunk) => [...chunk])).toEqual(sent);
  });
});
