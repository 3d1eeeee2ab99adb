/**
 * Archives in the forms test/support/zip-writer.ts does not write, by hand to APPNOTE 4.3/4.5: zip64 (every size
 * and offset moved into the zip64 extra field, the counts into the zip64 end record that a locator points to),
 * extra fields of our choosing (the Info-ZIP Unicode Path field), and an archive comment. Files only, stored or
 * deflated, Unix "made by", no data descriptors.
 */
import { crc32, deflateRawSync } from 'node:zlib';

export interface Zip64EntrySpec {
  name: string;
  /** Raw name bytes instead of `name`'s UTF-8 (flagged only if `flags` says so). */
  nameBytes?: Uint8Array;
  data?: Uint8Array | string;
  method?: 'store' | 'deflate';
  /** Default: bit 11 (UTF-8) unless `nameBytes` is given. */
  flags?: number;
  /** Extra fields written after the zip64 field, in both headers. */
  extra?: Array<{ id: number; data: Uint8Array }>;
}

export interface Zip64Options {
  /** Default true: every 32-bit size and offset is 0xffffffff and the counts 0xffff, the values in zip64 records. */
  zip64?: boolean;
  comment?: Uint8Array;
}

const MARK32 = 0xffffffff;
const MARK16 = 0xffff;

export function buildZip64(entries: Zip64EntrySpec[], options: Zip64Options = {}): Uint8Array {
  const zip64 = options.zip64 ?? true;
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const spec of entries) {
    const data = typeof spec.data === 'string' ? Buffer.from(spec.data) : Buffer.from(spec.data ?? new Uint8Array());
    const name = spec.nameBytes ? Buffer.from(spec.nameBytes) : Buffer.from(spec.name, 'utf8');
    const method = spec.method ?? 'deflate';
    const stored = method === 'store' ? data : deflateRawSync(data);
    const flags = spec.flags ?? (spec.nameBytes ? 0 : 0x800);
    const crc = crc32(data);

    // Local header: both sizes in its zip64 field. Central: uncompressed, compressed, local header offset.
    const localZip64 = zip64 ? extraField(0x0001, u64(data.length), u64(stored.length)) : Buffer.alloc(0);
    const centralZip64 = zip64 ? extraField(0x0001, u64(data.length), u64(stored.length), u64(offset)) : Buffer.alloc(0);
    const others = Buffer.concat((spec.extra ?? []).map((field) => extraField(field.id, Buffer.from(field.data))));

    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(zip64 ? 45 : 20, 4);
    local.writeUInt16LE(flags, 6);
    local.writeUInt16LE(method === 'store' ? 0 : 8, 8);
    local.writeUInt16LE(0x21, 12);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(zip64 ? MARK32 : stored.length, 18);
    local.writeUInt32LE(zip64 ? MARK32 : data.length, 22);
    local.writeUInt16LE(name.length, 26);
    local.writeUInt16LE(localZip64.length + others.length, 28);
    locals.push(local, name, localZip64, others, stored);

    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE((3 << 8) | 45, 4);
    central.writeUInt16LE(zip64 ? 45 : 20, 6);
    central.writeUInt16LE(flags, 8);
    central.writeUInt16LE(method === 'store' ? 0 : 8, 10);
    central.writeUInt16LE(0x21, 14);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(zip64 ? MARK32 : stored.length, 20);
    central.writeUInt32LE(zip64 ? MARK32 : data.length, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt16LE(centralZip64.length + others.length, 30);
    central.writeUInt32LE((0o100644 << 16) >>> 0, 38);
    central.writeUInt32LE(zip64 ? MARK32 : offset, 42);
    centrals.push(central, name, centralZip64, others);

    offset += local.length + name.length + localZip64.length + others.length + stored.length;
  }
  const directory = Buffer.concat(centrals);
  const tail: Buffer[] = [];
  if (zip64) {
    const record = Buffer.alloc(56);
    record.writeUInt32LE(0x06064b50, 0);
    record.writeBigUInt64LE(44n, 4); // the record's size after this field
    record.writeUInt16LE((3 << 8) | 45, 12);
    record.writeUInt16LE(45, 14);
    record.writeBigUInt64LE(BigInt(entries.length), 24);
    record.writeBigUInt64LE(BigInt(entries.length), 32);
    record.writeBigUInt64LE(BigInt(directory.length), 40);
    record.writeBigUInt64LE(BigInt(offset), 48);
    const locator = Buffer.alloc(20);
    locator.writeUInt32LE(0x07064b50, 0);
    locator.writeBigUInt64LE(BigInt(offset + directory.length), 8);
    locator.writeUInt32LE(1, 16);
    tail.push(record, locator);
  }
  const comment = Buffer.from(options.comment ?? new Uint8Array());
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(zip64 ? MARK16 : entries.length, 8);
  end.writeUInt16LE(zip64 ? MARK16 : entries.length, 10);
  end.writeUInt32LE(zip64 ? MARK32 : directory.length, 12);
  end.writeUInt32LE(zip64 ? MARK32 : offset, 16);
  end.writeUInt16LE(comment.length, 20);
  return new Uint8Array(Buffer.concat([...locals, directory, ...tail, end, comment]));
}

/** The Info-ZIP Unicode Path field (0x7075): version 1, the CRC-32 of the header's name bytes, the UTF-8 name. */
export function unicodePathField(utf8Name: string, storedNameBytes: Uint8Array): { id: number; data: Uint8Array } {
  const head = Buffer.alloc(5);
  head.writeUInt8(1, 0);
  head.writeUInt32LE(crc32(storedNameBytes), 1);
  return { id: 0x7075, data: new Uint8Array(Buffer.concat([head, Buffer.from(utf8Name, 'utf8')])) };
}

function extraField(id: number, ...parts: Buffer[]): Buffer {
  const data = Buffer.concat(parts);
  const header = Buffer.alloc(4);
  header.writeUInt16LE(id, 0);
  header.writeUInt16LE(data.length, 2);
  return Buffer.concat([header, data]);
}

function u64(value: number): Buffer {
  const buffer = Buffer.alloc(8);
  buffer.writeBigUInt64LE(BigInt(value));
  return buffer;
}
