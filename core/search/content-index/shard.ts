/** A loaded shard: its tables in memory, its postings read through a ByteSource on demand. */
import type { ByteSource } from './byte-source.ts';
import { decodePostings, indexOfSorted, NO_POSTINGS, type Postings } from './postings.ts';
import type { PostingsCache } from './postings-cache.ts';
import { readShardTables, type ShardTables } from './shard-format.ts';

export class Shard {
  private constructor(
    readonly name: string,
    private readonly tables: ShardTables,
    private readonly source: ByteSource,
    private readonly cache: PostingsCache | undefined,
  ) {}

  /** `cache`: where decoded lists are kept for the next query (shared by the index's shards). */
  static async open(name: string, source: ByteSource, cache?: PostingsCache): Promise<Shard> {
    try {
      return new Shard(name, await readShardTables(source), source, cache);
    } catch (error) {
      // A damaged shard is no Shard, so nobody else could close its source (a disk store's open fd).
      await source.close().catch(() => {});
      throw error;
    }
  }

  get base(): number {
    return this.tables.base;
  }
  get span(): number {
    return this.tables.span;
  }
  get trigramCount(): number {
    return this.tables.trigrams.length;
  }
  /** Bytes this shard keeps in memory (the tables). */
  get residentBytes(): number {
    return this.tables.trigrams.byteLength + this.tables.offsets.byteLength;
  }
  get storedBytes(): number {
    return this.source.size;
  }

  /** Where `trigram` is in the table, or -1 (no file of the shard has it). */
  find(trigram: number): number {
    return indexOfSorted(this.tables.trigrams, trigram);
  }

  /** The size in bytes of the list at table slot `i` (from `find`): the planner's rarity estimate. */
  listBytesAt(i: number): number {
    return this.tables.offsets[i + 1]! - this.tables.offsets[i]!;
  }

  /** The ids (global, ascending) of the files holding `trigram`, with their GramMasks. */
  postings(trigram: number): Promise<Postings> {
    const i = this.find(trigram);
    return i < 0 ? Promise.resolve(NO_POSTINGS) : this.postingsAt(i);
  }

  /** The list at table slot `i` (from `find`); shared with the cache: do not modify. */
  async postingsAt(i: number): Promise<Postings> {
    const key = `${this.name}/${i}`;
    const cached = this.cache?.get(key);
    if (cached !== undefined) return cached;
    const { offsets, postingsAt, base, span } = this.tables;
    const start = offsets[i]!;
    const bytes = await this.source.read(postingsAt + start, offsets[i + 1]! - start);
    let list = decodePostings(bytes, base, span);
    if (this.cache !== undefined) {
      // Decoded into buffers sized for the worst case: keep only what the ids need.
      if (list.ids.byteLength * 2 < list.ids.buffer.byteLength) list = { ids: list.ids.slice(), masks: list.masks.slice() };
      this.cache.set(key, list);
    }
    return list;
  }

  /** Every (trigram, list) of the shard, for merging shards; past the cache (a merge reads each list once). */
  async *lists(): AsyncIterable<[number, Postings]> {
    const { trigrams, offsets, postingsAt, base, span } = this.tables;
    for (let i = 0; i < trigrams.length; i++) {
      const bytes = await this.source.read(postingsAt + offsets[i]!, offsets[i + 1]! - offsets[i]!);
      yield [trigrams[i]!, decodePostings(bytes, base, span)];
    }
  }

  close(): Promise<void> {
    this.cache?.forget(`${this.name}/`);
    return this.source.close();
  }
}
