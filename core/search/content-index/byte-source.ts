/** Bytes that may stay on disk: a shard's postings are read through one of these, a list at a time (pread). */
export interface ByteSource {
  readonly size: number;
  /** Exactly `length` bytes from `offset` (fewer only past the end). */
  read(offset: number, length: number): Promise<Uint8Array>;
  close(): Promise<void>;
}

/** A ByteSource over bytes already in memory (the memory store, tests, a freshly built shard). */
export function bytesSource(bytes: Uint8Array): ByteSource {
  return {
    size: bytes.length,
    read: async (offset, length) => bytes.subarray(offset, Math.min(bytes.length, offset + length)),
    close: async () => {},
  };
}
