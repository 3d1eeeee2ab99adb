import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { idleCollector } from '../../../runtime/node/idle-collector.ts';

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

describe('idleCollector', () => {
  it('collects once a quiet spell of quietMs follows work, and not again until more work', () => {
    const gc = vi.fn();
    const idle = idleCollector(1000, gc);
    vi.advanceTimersByTime(5000);
    expect(gc).not.toHaveBeenCalled(); // no work, no collection
    idle.touch();
    vi.advanceTimersByTime(999);
    expect(gc).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(gc).toHaveBeenCalledTimes(1);
    vi.advanceTimersByTime(10_000);
    expect(gc).toHaveBeenCalledTimes(1);
  });

  it('work during the wait pushes the collection to quietMs after the last of it', () => {
    const gc = vi.fn();
    const idle = idleCollector(1000, gc);
    idle.touch();
    for (let i = 0; i < 5; i++) {
      vi.advanceTimersByTime(600);
      idle.touch();
    }
    expect(gc).not.toHaveBeenCalled();
    vi.advanceTimersByTime(999);
    expect(gc).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(gc).toHaveBeenCalledTimes(1);
  });

  it('stop cancels a pending collection; without an exposed gc it does nothing at all', () => {
    const gc = vi.fn();
    const idle = idleCollector(1000, gc);
    idle.touch();
    idle.stop();
    vi.advanceTimersByTime(5000);
    expect(gc).not.toHaveBeenCalled();
    const none = idleCollector(1000, null);
    none.touch();
    expect(vi.getTimerCount()).toBe(0);
  });
});
