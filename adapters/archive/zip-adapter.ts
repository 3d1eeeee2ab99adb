/**
 * Reading zip archives (the protocol's `extract_zip`): type-only and edge-clean; the Node implementation
 * (yauzl-zip-adapter.ts) arrives through the context. What may be extracted, and where, is decided above
 * this layer (core/archive): the adapter only reports entries as the central directory lists them and
 * streams an entry's bytes, failing if they are not what the directory declared.
 *
 * Every rejection and stream error carries a message about the archive's bytes, fit for the client (the
 * archive's: "Not a zip archive: …"; an entry's, said of that entry: "CRC-32 mismatch: the data is corrupt"):
 * the archive is the client's input, so whatever fails in it is bad input, never the daemon's fault.
 */
export interface ZipEntryInfo {
  /** The entry's name as stored (decoded as the zip's flags say: UTF-8 or CP437), unvalidated. */
  name: string;
  /** Sizes as the central directory declares them. */
  compressedSize: number;
  uncompressedSize: number;
  kind: 'file' | 'dir' | 'symlink' | 'other';
  /** Unix permission bits when the archive records them. */
  mode: number | undefined;
}

export interface ZipArchive {
  /**
   * How many entries the end-of-central-directory record declares, known before any entry is read: an
   * entry cap refuses a million-entry archive without building a million entries first.
   */
  readonly entryCount: number;
  /** Reads the central directory: every entry, in archive order. Once per archive. */
  readEntries(): Promise<readonly ZipEntryInfo[]>;
  /** The entry's bytes; the stream errors if they do not match the declared size or CRC. */
  open(entry: ZipEntryInfo): Promise<ReadableStream<Uint8Array>>;
  close(): void;
}

export interface ZipAdapter {
  /** Rejects with a message fit for the client ("Not a zip archive: …") for a malformed archive. */
  open(bytes: Uint8Array): Promise<ZipArchive>;
}
