/**
 * Where an index lives between runs: a manifest (the file table) and the shards. The disk store
 * (adapters/search/index-store-disk.ts) keeps them in a cache folder outside the workspace; the memory store
 * (below) serves the memory backend and the Workers runtime, where a restart starts cold anyway.
 */
import { bytesSource, type ByteSource } from './byte-source.ts';

export interface IndexStore {
  /** The last manifest written, or undefined when there is none. */
  readManifest(): Promise<Uint8Array | undefined>;
  /** Replaces the manifest atomically: a crash leaves the old one or the new one. */
  writeManifest(bytes: Uint8Array): Promise<void>;
  /** Stores a shard atomically under a new name. */
  writeShard(name: string, bytes: Uint8Array): Promise<void>;
  /** Opens a stored shard for reading (`not found` rejects). */
  openShard(name: string): Promise<ByteSource>;
  removeShard(name: string): Promise<void>;
  /** Every stored shard's name (to drop the ones no manifest names). */
  shardNames(): Promise<string[]>;
  /** Forgets everything (a corrupt or foreign-format index). */
  clear(): Promise<void>;
}

export class MemoryIndexStore implements IndexStore {
  private manifest: Uint8Array | undefined;
  private readonly shards = new Map<string, Uint8Array>();

  async readManifest(): Promise<Uint8Array | undefined> {
    return this.manifest;
  }
  async writeManifest(bytes: Uint8Array): Promise<void> {
    this.manifest = bytes.slice();
  }
  async writeShard(name: string, bytes: Uint8Array): Promise<void> {
    this.shards.set(name, bytes);
  }
  async openShard(name: string): Promise<ByteSource> {
    const bytes = this.shards.get(name);
    if (bytes === undefined) throw new Error(`no shard ${name}`);
    return bytesSource(bytes);
  }
  async removeShard(name: string): Promise<void> {
    this.shards.delete(name);
  }
  async shardNames(): Promise<string[]> {
    return [...this.shards.keys()];
  }
  async clear(): Promise<void> {
    this.manifest = undefined;
    this.shards.clear();
  }
  /** The bytes stored (tests and diagnostics). */
  get storedBytes(): number {
    let total = this.manifest?.length ?? 0;
    for (const bytes of this.shards.values()) total += bytes.length;
    return total;
  }
}
