/**
 * A tiny zip writer for tests: the archives a real tool will not make (`../` and absolute names, symlink
 * entries, headers that lie about sizes or CRCs, corrupt data), written by hand to the zip format (APPNOTE
 * 4.3: local headers, the central directory, the end record). No zip64, no data descriptors.
 */
import { crc32, deflateRawSync } from 'node:zlib';

export interface ZipEntrySpec {
  /** The stored name (UTF-8, flagged as such); `nameBytes` stores raw bytes instead (CP437 when unflagged). */
  name: string;
  nameBytes?: Uint8Array;
  data?: Uint8Array | string;
  /** Default 'deflate' (a folder or an empty entry is stored). */
  method?: 'store' | 'deflate';
  /** A Unix st_mode, type bits included (default 0o100644, or 0o040755 for a name ending in '/'). */
  unixMode?: number;
  /** Lies, written into both headers: a declared uncompressed size, a CRC. */
  declaredSize?: number;
  crc?: number;
  /** The entry's stored bytes instead of the compressed data (corrupt data). */
  storedBytes?: Uint8Array;
  /** Header fields as given: a compression method code, general-purpose flags (bit 0: encrypted). */
  methodCode?: number;
  flags?: number;
  /** The central directory's "made by" host (3 Unix, 0 MS-DOS; default 3). */
  madeBy?: number;
}

export interface ZipOptions {
  /** The end record's entry count, when it should lie. */
  entryCount?: number;
}

/** A file entry, a folder entry, and a symlink entry (Info-ZIP's `zip -y` form: the target as its data). */
export const file = (name: string, data: Uint8Array | string = '', extra: Partial<ZipEntrySpec> = {}): ZipEntrySpec => ({
  name,
  data,
  ...extra,
});
export const folder = (name: string, unixMode = 0o040755): ZipEntrySpec => ({ name: name.endsWith('/') ? name : `${name}/`, unixMode });
export const symlink = (name: string, target: string): ZipEntrySpec => ({ name, data: target, method: 'store', unixMode: 0o120777 });

export function buildZip(entries: ZipEntrySpec[], options: ZipOptions = {}): Uint8Array {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const spec of entries) {
    const data = typeof spec.data === 'string' ? Buffer.from(spec.data) : Buffer.from(spec.data ?? new Uint8Array());
    const name = spec.nameBytes ? Buffer.from(spec.nameBytes) : Buffer.from(spec.name, 'utf8');
    const method = spec.method ?? (data.length === 0 ? 'store' : 'deflate');
    const stored = spec.storedBytes ? Buffer.from(spec.storedBytes) : method === 'store' ? data : deflateRawSync(data);
    const crc = spec.crc ?? crc32(data);
    const size = spec.declaredSize ?? data.length;
    const unixMode = spec.unixMode ?? (spec.name.endsWith('/') ? 0o040755 : 0o100644);
    const flags = spec.flags ?? (spec.nameBytes ? 0 : 0x800); // bit 11: the name is UTF-8
    const methodCode = spec.methodCode ?? (method === 'store' ? 0 : 8);

    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4); // version needed: 2.0
    local.writeUInt16LE(flags, 6);
    local.writeUInt16LE(methodCode, 8);
    local.writeUInt16LE(0, 10); // time 00:00:00
    local.writeUInt16LE(0x21, 12); // date 1980-01-01
    local.writeUInt32LE(crc >>> 0, 14);
    local.writeUInt32LE(stored.length, 18);
    local.writeUInt32LE(size, 22);
    local.writeUInt16LE(name.length, 26);
    local.writeUInt16LE(0, 28);
    locals.push(local, name, stored);

    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(((spec.madeBy ?? 3) << 8) | 20, 4); // made by: host, version 2.0
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(flags, 8);
    central.writeUInt16LE(methodCode, 10);
    central.writeUInt16LE(0, 12);
    central.writeUInt16LE(0x21, 14);
    central.writeUInt32LE(crc >>> 0, 16);
    central.writeUInt32LE(stored.length, 20);
    central.writeUInt32LE(size, 24);
    central.writeUInt16LE(name.length, 28);
    // extra, comment, disk start, internal attributes: 0
    const dosDirectory = (unixMode & 0o170000) === 0o040000 ? 0x10 : 0;
    const unixBits = (spec.madeBy ?? 3) === 3 ? unixMode << 16 : 0;
    central.writeUInt32LE((unixBits | dosDirectory) >>> 0, 38);
    central.writeUInt32LE(offset, 42);
    centrals.push(central, name);

    offset += local.length + name.length + stored.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  const count = options.entryCount ?? entries.length;
  end.writeUInt16LE(count, 8);
  end.writeUInt16LE(count, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return new Uint8Array(Buffer.concat([...locals, directory, end]));
}

export const base64 = (bytes: Uint8Array): string => Buffer.from(bytes).toString('base64');
