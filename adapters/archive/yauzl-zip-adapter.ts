/**
 * ZipAdapter over yauzl: it reads the central directory (the index the zip format defines as the truth;
 * local headers are ignored, so an entry cannot hide behind a second, different name), supports zip64, and
 * makes an entry's stream fail when its data inflates to more or fewer bytes than declared, so the declared
 * sizes that core/archive checks its caps on can be trusted. yauzl does not check CRC-32: we do, here.
 *
 * Names are decoded with yauzl's `getFileNameLowLevel` (UTF-8 flag, Info-ZIP Unicode Path field, else CP437)
 * in strict mode, so a backslash stays a backslash and core/archive refuses it, rather than yauzl turning
 * it into a separator; yauzl's own name validation is off (`decodeStrings: false`) because it stops the whole
 * listing with a message that names no entry, where core/archive names the entry it refuses. One departure:
 * an unflagged name whose bytes are valid UTF-8 is read as UTF-8, not CP437. Info-ZIP's `zip` on Linux (and
 * most Unix tools) stores UTF-8 names without the flag, and `unzip` there writes those bytes as they are; a
 * real CP437 name with accents is almost never valid UTF-8.
 */
import type { Readable } from 'node:stream';
import { crc32 } from 'node:zlib';
import { fromBufferPromise, getFileNameLowLevel, type Entry, type ZipFile } from 'yauzl';
import type { ZipAdapter, ZipArchive, ZipEntryInfo } from './zip-adapter.ts';
import { entryKindAndMode } from './zip-format/entry-kind.ts';

export class YauzlZipAdapter implements ZipAdapter {
  async open(bytes: Uint8Array): Promise<ZipArchive> {
    let zipfile: ZipFile;
    try {
      zipfile = await fromBufferPromise(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), {
        lazyEntries: true,
        decodeStrings: false,
        validateEntrySizes: true,
      });
    } catch (error) {
      throw new Error(`Not a zip archive: ${messageOf(error)}`);
    }
    return new YauzlArchive(zipfile);
  }
}

class YauzlArchive implements ZipArchive {
  readonly #zipfile: ZipFile;
  readonly #raw = new WeakMap<ZipEntryInfo, Entry>();
  #read = false;

  constructor(zipfile: ZipFile) {
    this.#zipfile = zipfile;
  }

  get entryCount(): number {
    return this.#zipfile.entryCount;
  }

  readEntries(): Promise<readonly ZipEntryInfo[]> {
    if (this.#read) return Promise.reject(new Error('readEntries: the entries were read already'));
    this.#read = true;
    const zipfile = this.#zipfile;
    const infos: ZipEntryInfo[] = [];
    return new Promise((resolve, reject) => {
      zipfile.on('entry', (entry: Entry) => {
        const info = describeEntry(entry);
        this.#raw.set(info, entry);
        infos.push(info);
        zipfile.readEntry();
      });
      zipfile.once('end', () => resolve(infos));
      zipfile.once('error', (error: unknown) => reject(new Error(`Malformed zip archive: ${messageOf(error)}`)));
      zipfile.readEntry();
    });
  }

  async open(info: ZipEntryInfo): Promise<ReadableStream<Uint8Array>> {
    const entry = this.#raw.get(info);
    if (!entry) throw new Error('open: not an entry of this archive');
    if (entry.isEncrypted()) throw new Error('encrypted entries are not supported');
    if (entry.compressionMethod !== 0 && entry.compressionMethod !== 8) {
      throw new Error(`compression method ${entry.compressionMethod} is not supported (only stored and deflated)`);
    }
    let source: Readable;
    try {
      source = await this.#zipfile.openReadStreamPromise(entry);
    } catch (error) {
      throw new Error(describeDataError(error));
    }
    return checkedStream(source, entry.crc32);
  }

  close(): void {
    this.#zipfile.close();
  }
}

const UTF8_FLAG = 0x800;
const UNICODE_PATH_FIELD = 0x7075;
const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

function describeEntry(entry: Entry): ZipEntryInfo {
  const name = entryName(entry);
  return {
    name,
    compressedSize: entry.compressedSize,
    uncompressedSize: entry.uncompressedSize,
    ...entryKindAndMode(name, entry.versionMadeBy, entry.externalFileAttributes),
  };
}

function entryName(entry: Entry): string {
  const declared = entry.generalPurposeBitFlag & UTF8_FLAG || entry.extraFields.some((field) => field.id === UNICODE_PATH_FIELD);
  if (!declared) {
    try {
      return strictUtf8.decode(entry.fileNameRaw);
    } catch {
      // not UTF-8: CP437, as the format says
    }
  }
  return getFileNameLowLevel(entry.generalPurposeBitFlag, entry.fileNameRaw, entry.extraFields, true);
}


/**
 * yauzl's stream as a Web stream, paused whenever the consumer has a chunk waiting (backpressure reaches the
 * inflater), failing at the end when the CRC-32 of the bytes it produced is not the declared one.
 * Listening starts at once: yauzl's size check runs as the inflater writes, before anyone reads, and it
 * forwards zlib's errors with a bare `emit('error')` that leaves the stream neither ended nor destroyed, so
 * a listener attached later (an async iterator's) would miss the error and wait forever.
 */
function checkedStream(source: Readable, expectedCrc: number): ReadableStream<Uint8Array> {
  let crc = 0;
  let settled = false;
  return new ReadableStream<Uint8Array>(
    {
      start(controller) {
        const settle = (error?: Error) => {
          if (settled) return;
          settled = true;
          if (error) {
            controller.error(error);
            source.destroy();
          } else controller.close();
        };
        source.on('data', (chunk: Buffer) => {
          if (settled) return;
          crc = crc32(chunk, crc);
          controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
          if ((controller.desiredSize ?? 0) <= 0) source.pause();
        });
        source.on('end', () => settle(crc >>> 0 === expectedCrc >>> 0 ? undefined : new Error('CRC-32 mismatch: the data is corrupt')));
        source.on('error', (error: unknown) => settle(new Error(describeDataError(error))));
      },
      pull() {
        source.resume();
      },
      cancel() {
        settled = true;
        source.destroy(); // yauzl's destroy also stops its inflater
      },
    },
    { highWaterMark: 0 },
  );
}

/** yauzl's and zlib's messages, said about the entry's data. */
function describeDataError(error: unknown): string {
  const message = messageOf(error);
  const tooMany = /^too many bytes in the stream\. expected (\d+)/.exec(message);
  if (tooMany) return `its data inflates past the declared ${tooMany[1]} bytes`;
  const tooFew = /^not enough bytes in the stream\. expected (\d+)\. got only (\d+)/.exec(message);
  if (tooFew) return `its data inflates to ${tooFew[2]} bytes, not the declared ${tooFew[1]}`;
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && code.startsWith('Z_')) return `invalid compressed data (${message})`;
  return message;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
