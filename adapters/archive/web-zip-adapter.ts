/**
 * ZipAdapter on Web APIs only (no `node:*`, no dependency), for runtimes without yauzl: Cloudflare Workers, and
 * any other with DecompressionStream('deflate-raw'). It parses the archive itself (./zip-format/): the end
 * record and its zip64 forms, the central directory as the truth (local headers only locate the data),
 * stored and deflated entries, CRC-32 checked as the bytes stream. What it reports, refuses and fails with is
 * what yauzl-zip-adapter.ts does, message for message, so core/archive and the client cannot tell the two
 * apart (test/adapters/archive/zip-adapter-contract.ts runs one suite over both).
 *
 * The archive is the caller's bytes, held as they are: entries, and the compressed data fed to the inflater, are
 * views into it; the chunks a stream hands out never are (./zip-format/entry-stream.ts says why).
 */
import { readCentralDirectory, type DirectoryEntry } from './zip-format/central-directory.ts';
import { readEndRecord, type EndRecord } from './zip-format/end-record.ts';
import { describeEntry } from './zip-format/entry-info.ts';
import { deflatedStream, storedStream } from './zip-format/entry-stream.ts';
import { entryData } from './zip-format/local-header.ts';
import type { ZipAdapter, ZipArchive, ZipEntryInfo } from './zip-adapter.ts';

const STORED = 0;
const DEFLATED = 8;
const ENCRYPTED = 0x1;

export class WebZipAdapter implements ZipAdapter {
  async open(bytes: Uint8Array): Promise<ZipArchive> {
    let end: EndRecord;
    try {
      end = readEndRecord(bytes);
    } catch (error) {
      throw new Error(`Not a zip archive: ${messageOf(error)}`);
    }
    return new WebZipArchive(bytes, end);
  }
}

class WebZipArchive implements ZipArchive {
  readonly #bytes: Uint8Array;
  readonly #end: EndRecord;
  readonly #raw = new WeakMap<ZipEntryInfo, DirectoryEntry>();
  #read = false;
  #closed = false;

  constructor(bytes: Uint8Array, end: EndRecord) {
    this.#bytes = bytes;
    this.#end = end;
  }

  get entryCount(): number {
    return this.#end.entryCount;
  }

  async readEntries(): Promise<readonly ZipEntryInfo[]> {
    if (this.#read) throw new Error('readEntries: the entries were read already');
    this.#read = true;
    let entries: DirectoryEntry[];
    try {
      entries = readCentralDirectory(this.#bytes, this.#end);
    } catch (error) {
      throw new Error(`Malformed zip archive: ${messageOf(error)}`);
    }
    return entries.map((entry) => {
      const info = describeEntry(entry);
      this.#raw.set(info, entry);
      return info;
    });
  }

  async open(info: ZipEntryInfo): Promise<ReadableStream<Uint8Array>> {
    const entry = this.#raw.get(info);
    if (!entry) throw new Error('open: not an entry of this archive');
    if (entry.flags & ENCRYPTED) throw new Error('encrypted entries are not supported');
    if (entry.method !== STORED && entry.method !== DEFLATED) {
      throw new Error(`compression method ${entry.method} is not supported (only stored and deflated)`);
    }
    // As yauzl: closing ends the opening of entries; streams already open read on, from their own views.
    if (this.#closed) throw new Error('closed');
    const data = entryData(this.#bytes, entry.localHeaderOffset, entry.compressedSize);
    return entry.method === STORED ? storedStream(data, entry) : deflatedStream(data, entry);
  }

  close(): void {
    this.#closed = true;
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
