import { describe, expect, it } from 'vitest';
import { decodeManifest, encodeManifest, type Manifest } from '../../../../core/search/content-index/manifest.ts';
import { CorruptIndexError } from '../../../../core/search/content-index/shard-format.ts';

describe('manifest', () => {
  const rows = 10_000; // several lines per column
  const manifest: Manifest = {
    nextId: rows + 5,
    shards: ['0-5000-a', '5000-5005-b'],
    paths: Array.from({ length: rows }, (_, i) => `src/dir ${i % 7}/file-"${i}".ts`),
    sizes: Array.from({ length: rows }, (_, i) => i * 3),
    versions: Array.from({ length: rows }, (_, i) => `${1_700_000_000_000_000_000n + BigInt(i)}-${i}-9`),
    ids: Array.from({ length: rows }, (_, i) => i + 5),
    flags: Array.from({ length: rows }, (_, i) => i % 5 === 0 ? 1 : i % 7 === 0 ? 4 : 0),
  };

  it('round-trips, pausing between lines', async () => {
    let pauses = 0;
    const bytes = await encodeManifest(manifest, async () => void pauses++);
    expect(pauses).toBe(5 * Math.ceil(rows / 4096));
    expect(await decodeManifest(bytes)).toEqual(manifest);
  });

  it('an empty table round-trips', async () => {
    const empty: Manifest = { nextId: 0, shards: [], paths: [], sizes: [], versions: [], ids: [], flags: [] };
    expect(await decodeManifest(await encodeManifest(empty))).toEqual(empty);
  });

  it('refuses a cut or altered manifest', async () => {
    const bytes = await encodeManifest(manifest);
    const text = new TextDecoder().decode(bytes);
    const lines = text.split('\n');
    for (const damaged of [
      bytes.subarray(0, bytes.length - 100),
      new TextEncoder().encode(lines.filter((_, i) => i !== 3).join('\n')), // a line of one column gone
      new TextEncoder().encode(text.replace('"format":2', '"format":1')),
      new TextEncoder().encode(text.replace('["ids",[5,', '["ids",[-5,')),
      Uint8Array.of(0xff, 0xfe, 0x0a),
    ]) {
      await expect(decodeManifest(damaged)).rejects.toBeInstanceOf(CorruptIndexError);
    }
  });
});
