/** The forgetting map behind the long-lived caches (core/caching/two-generation-map.ts). */
import { describe, expect, it } from 'vitest';
import { TwoGenerationMap } from '../../../core/caching/two-generation-map.ts';

describe('TwoGenerationMap', () => {
  it('remembers the last `capacity` keys set, and never more than twice as many', () => {
    const map = new TwoGenerationMap<string, number>(4);
    for (let i = 0; i < 100; i++) {
      map.set(`k${i}`, i);
      expect(map.size).toBeLessThanOrEqual(8);
      for (let back = 0; back < Math.min(4, i + 1); back++) expect(map.get(`k${i - back}`)).toBe(i - back);
    }
    expect(map.has('k0')).toBe(false);
    expect(map.get('k0')).toBeUndefined();
  });

  it('keeps a key that is read, however many others are set meanwhile', () => {
    const map = new TwoGenerationMap<string, string>(3);
    map.set('hot', 'kept');
    for (let i = 0; i < 50; i++) {
      map.set(`cold${i}`, 'x');
      expect(map.get('hot')).toBe('kept');
    }
    expect(map.has('cold0')).toBe(false);
  });

  it('sets over an older copy, deletes from both generations, and keeps undefined-free values exact', () => {
    const map = new TwoGenerationMap<string, string | null>(2);
    map.set('a', 'one');
    map.set('b', null);
    map.set('c', 'three'); // a and b now in the older generation
    map.set('a', 'two');
    expect(map.get('a')).toBe('two');
    expect(map.get('b')).toBeNull();
    expect(map.delete('b')).toBe(true);
    expect(map.delete('b')).toBe(false);
    expect(map.has('b')).toBe(false);
    expect(map.size).toBe(2);
  });

  it('refuses a capacity that is not a positive integer', () => {
    expect(() => new TwoGenerationMap(0)).toThrow(RangeError);
    expect(() => new TwoGenerationMap(1.5)).toThrow(RangeError);
  });
});
