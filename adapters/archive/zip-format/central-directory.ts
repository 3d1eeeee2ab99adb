/**
 * The central directory (APPNOTE 4.3.12): the index the format defines as the truth. Local headers are read
 * later only to find where an entry's data starts (./local-header.ts), so an entry cannot hide behind a second,
 * different name in its local header. Sizes and the local header's offset come from the zip64 extra field
 * when the 32-bit field says so (0xffffffff). Checks and messages are yauzl's, in yauzl's order.
 */
import { span, u16, u32, u64 } from './bytes.ts';
import type { EndRecord } from './end-record.ts';

export interface ExtraField {
  id: number;
  data: Uint8Array;
}

/** One central directory record, its fields as stored (views into the archive, no copies). */
export interface DirectoryEntry {
  versionMadeBy: number;
  flags: number;
  method: number;
  crc32: number;
  compressedSize: number;
  uncompressedSize: number;
  externalAttributes: number;
  localHeaderOffset: number;
  nameBytes: Uint8Array;
  extraFields: ExtraField[];
}

const SIGNATURE = 0x02014b50;
const FIXED_SIZE = 46;
const ENCRYPTED = 0x1;
const STRONG_ENCRYPTION = 0x40;
/** Traditional PKWARE encryption puts a 12-byte header before the data. */
const ENCRYPTION_HEADER = 12;
const ZIP64_FIELD = 0x0001;
const ZIP64_MARK = 0xffffffff;

export function readCentralDirectory(bytes: Uint8Array, end: EndRecord): DirectoryEntry[] {
  const entries: DirectoryEntry[] = [];
  let cursor = end.centralDirectoryOffset;
  // The declared count bounds the loop, not an allocation: a count larger than the records present ends at the
  // first bytes that are not one (the end record, or the archive's end), one record per 46 bytes at most.
  for (let read = 0; read < end.entryCount; read++) {
    const header = span(bytes, cursor, FIXED_SIZE);
    const signature = u32(header, 0);
    if (signature !== SIGNATURE) throw new Error(`invalid central directory file header signature: 0x${signature.toString(16)}`);
    const flags = u16(header, 8);
    if (flags & STRONG_ENCRYPTION) throw new Error('strong encryption is not supported');
    const nameLength = u16(header, 28);
    const extraLength = u16(header, 30);
    const commentLength = u16(header, 32);
    cursor += FIXED_SIZE;
    const variable = span(bytes, cursor, nameLength + extraLength + commentLength);
    cursor += nameLength + extraLength + commentLength;
    const entry: DirectoryEntry = {
      versionMadeBy: u16(header, 4),
      flags,
      method: u16(header, 10),
      crc32: u32(header, 16),
      compressedSize: u32(header, 20),
      uncompressedSize: u32(header, 24),
      externalAttributes: u32(header, 38),
      localHeaderOffset: u32(header, 42),
      nameBytes: variable.subarray(0, nameLength),
      extraFields: parseExtraFields(variable.subarray(nameLength, nameLength + extraLength)),
    };
    applyZip64Field(entry);
    checkStoredSizes(entry);
    entries.push(entry);
  }
  return entries;
}

/** Every (id, length, data) field; a field whose length runs past the extra area is an error, not ignored. */
export function parseExtraFields(area: Uint8Array): ExtraField[] {
  const fields: ExtraField[] = [];
  let at = 0;
  // yauzl's bound: a tail of 3 bytes or fewer (too short for a header) is padding, not a field.
  while (at < area.length - 3) {
    const dataStart = at + 4;
    const dataEnd = dataStart + u16(area, at + 2);
    if (dataEnd > area.length) throw new Error('extra field length exceeds extra field buffer size');
    fields.push({ id: u16(area, at), data: area.subarray(dataStart, dataEnd) });
    at = dataEnd;
  }
  return fields;
}

/** The zip64 extended information field (APPNOTE 4.5.3): only the marked fields are in it, in this order. */
function applyZip64Field(entry: DirectoryEntry): void {
  const field = entry.extraFields.find((candidate) => candidate.id === ZIP64_FIELD);
  if (!field) return;
  let at = 0;
  const next = (what: string): number => {
    if (at + 8 > field.data.length) throw new Error(`zip64 extended information extra field does not include ${what}`);
    const value = u64(field.data, at);
    at += 8;
    return value;
  };
  if (entry.uncompressedSize === ZIP64_MARK) entry.uncompressedSize = next('uncompressed size');
  if (entry.compressedSize === ZIP64_MARK) entry.compressedSize = next('compressed size');
  if (entry.localHeaderOffset === ZIP64_MARK) entry.localHeaderOffset = next('relative header offset');
}

/**
 * A stored entry's data is its content: two sizes that differ mean one of them lies. Refused when listing,
 * so the declared size the caps are checked on is the number of bytes the entry's stream can produce.
 */
function checkStoredSizes(entry: DirectoryEntry): void {
  if (entry.method !== 0) return;
  const expected = entry.uncompressedSize + (entry.flags & ENCRYPTED ? ENCRYPTION_HEADER : 0);
  if (entry.compressedSize !== expected) {
    throw new Error(`compressed/uncompressed size mismatch for stored file: ${entry.compressedSize} != ${entry.uncompressedSize}`);
  }
}
