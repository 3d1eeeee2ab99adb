import { describe, expect, it } from 'vitest';
import { createCursorCodec } from '../../../../core/search/query/cursor.ts';

describe('search cursors', () => {
  const key = new Uint8Array(32).fill(7);
  const codec = createCursorCodec(key);

  it('opens what it issued, for the same query only', () => {
    const cursor = codec.issue('["widget","find"]', 42);
    expect(cursor).toMatch(/^42\.[A-Za-z0-9_-]{22}$/);
    expect(codec.open(cursor, '["widget","find"]')).toBe(42);
    expect(codec.open(cursor, '["widget","files"]')).toBeUndefined();
  });

  it('refuses an edited offset, a made-up MAC, garbage, and another instance\'s cursors', () => {
    const cursor = codec.issue('q', 3);
    const [, mac] = cursor.split('.');
    expect(codec.open(`4.${mac}`, 'q')).toBeUndefined();
    expect(codec.open('3.AAAAAAAAAAAAAAAAAAAAAA', 'q')).toBeUndefined();
    for (const garbage of ['', '3', '3.', '.abc', 'x.AAAAAAAAAAAAAAAAAAAAAA', '1234567890.AAAAAAAAAAAAAAAAAAAAAA', `${cursor}=`]) {
      expect(codec.open(garbage, 'q')).toBeUndefined();
    }
    expect(createCursorCodec().open(cursor, 'q')).toBeUndefined();
    expect(createCursorCodec(key).open(cursor, 'q')).toBe(3);
  });
});
