/**
 * The SQLite stores on their own, inside workerd (../durable-object-search.test.ts asserts what these observe):
 * SqlIndexStore's manifest and shards in parts (ranged reads across part boundaries, a shard removed while open,
 * a missing part, clear) and SqlFileFactsStore's rows (versions, removal, retain, a format change, a value too big).
 */
import type { DurableObjectSqlStorage } from '../../../../adapters/fs/durable-object-file-system.ts';
import { MAX_VALUE_BYTES, proseCodec, SqlFileFactsStore } from '../../../../adapters/search/sql-file-facts-store.ts';
import { PART_BYTES, SqlIndexStore } from '../../../../adapters/search/sql-index-store.ts';

/** Deterministic bytes: byte i of stream `seed`. */
function pattern(length: number, seed: number): Uint8Array {
  const out = new Uint8Array(length);
  for (let i = 0; i < length; i++) out[i] = (i * 31 + seed * 7 + (i >>> 9)) & 0xff;
  return out;
}

const same = (a: Uint8Array, b: Uint8Array) => a.byteLength === b.byteLength && a.every((byte, i) => byte === b[i]);

async function rejects(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
    return 'resolved';
  } catch (error) {
    return error instanceof Error ? error.name : 'thrown';
  }
}

export async function indexStoreChecks(storage: DurableObjectSqlStorage) {
  const store = new SqlIndexStore(storage);
  const parts = (name: string) => Number(storage.sql.exec('SELECT count(*) AS n FROM search_index_parts WHERE name = ?', name).one().n);
  const emptyManifest = (await store.readManifest()) === undefined;

  const manifest = pattern(3 * PART_BYTES + 5, 1);
  await store.writeManifest(manifest);
  await store.writeManifest(manifest.subarray(0, PART_BYTES + 1)); // replaced whole, fewer parts
  const manifestBack = await store.readManifest();

  const shard = pattern(2 * PART_BYTES + 100, 2);
  await store.writeShard('s1', shard);
  const source = await store.openShard('s1');
  const across = await source.read(PART_BYTES - 10, 20);
  const tail = await source.read(shard.byteLength - 10, 100);
  const whole = await source.read(0, shard.byteLength);
  const within = await source.read(5, 7);

  await store.writeShard('s2', pattern(10, 3));
  const kept = await store.openShard('s2');
  await store.removeShard('s2'); // while open: gone from the list, still readable
  const namesAfterRemove = (await store.shardNames()).sort();
  const readAfterRemove = same(await kept.read(0, 10), pattern(10, 3));
  const partsWhileOpen = parts('s2');
  await kept.close();
  const partsAfterClose = parts('s2');

  await source.close();
  const partsOfClosed = parts('s1'); // closed, not removed: kept

  storage.sql.exec('DELETE FROM search_index_parts WHERE name = ? AND part = 1', 's1').toArray();
  const damaged = await store.openShard('s1');
  const missingPart = await rejects(damaged.read(PART_BYTES, 10));
  const beforeMissing = same(await damaged.read(0, 10), shard.subarray(0, 10));
  await damaged.close();

  const unknown = await rejects(store.openShard('nope'));
  await store.clear();
  return {
    emptyManifest,
    manifestBack: manifestBack !== undefined && same(manifestBack, manifest.subarray(0, PART_BYTES + 1)),
    across: same(across, shard.subarray(PART_BYTES - 10, PART_BYTES + 10)),
    tail: same(tail, shard.subarray(shard.byteLength - 10)),
    whole: same(whole, shard),
    within: same(within, shard.subarray(5, 12)),
    namesAfterRemove,
    readAfterRemove,
    partsWhileOpen,
    partsAfterClose,
    partsOfClosed,
    missingPart,
    beforeMissing,
    unknown,
    afterClear: { manifest: (await store.readManifest()) === undefined, shards: await store.shardNames(), stored: store.storedBytes() },
  };
}

export async function factsStoreChecks(storage: DurableObjectSqlStorage) {
  const open = (format: string) => new SqlFileFactsStore(storage, { table: 'search_check_prose', format, codec: proseCodec });
  const terms = { length: 3, counts: new Map([['alpha', 2], ['beta', 1]]) };
  let store = open('f1');
  await store.put('a.md', 'v1', { terms, text: 'alpha alpha beta' });
  await store.put('b.md', 'v1', { terms });
  const back = await store.get('a.md', 'v1');
  const otherVersion = await store.get('a.md', 'v2');
  await store.remove('b.md');
  const removed = await store.get('b.md', 'v1');
  await store.put('c.md', 'v1', { terms });
  await store.put('d.md', 'v1', { terms });
  await store.retain((path) => path !== 'c.md');
  const retained = [await store.get('c.md', 'v1'), await store.get('d.md', 'v1')].map((value) => value !== undefined);
  // Too big with its text: kept without it. A reopened store of the same format keeps its rows.
  const big = 'x'.repeat(MAX_VALUE_BYTES);
  await store.put('big.md', 'v1', { terms, text: big });
  store = open('f1');
  const bigBack = await store.get('big.md', 'v1');
  const sameFormat = (await store.get('a.md', 'v1')) !== undefined;
  storage.sql.exec("UPDATE search_check_prose SET value = '{' WHERE path = 'd.md'").toArray();
  const undecodable = await store.get('d.md', 'v1');
  store = open('f2'); // another format: what the table held was derived by other rules
  const afterFormatChange = await store.get('a.md', 'v1');
  return {
    back: back === undefined ? undefined : { length: back.terms.length, counts: [...back.terms.counts], text: back.text },
    otherVersion: otherVersion === undefined,
    removed: removed === undefined,
    retained,
    bigBack: bigBack === undefined ? 'none' : bigBack.text === undefined ? 'terms only' : 'with text',
    sameFormat,
    undecodable: undecodable === undefined,
    afterFormatChange: afterFormatChange === undefined,
  };
}
