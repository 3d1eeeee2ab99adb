/**
 * An entry's name as yauzl-zip-adapter.ts reports it: flagged UTF-8 (bit 11), or the Info-ZIP Unicode Path
 * field (0x7075) when its CRC matches the stored name, else CP437. Like that adapter, an unflagged name whose
 * bytes are valid UTF-8 is read as UTF-8: Info-ZIP's `zip` on Linux stores UTF-8 names without the flag, and a
 * real CP437 name with accents is almost never valid UTF-8. Backslashes stay backslashes, for core/archive to
 * refuse by name.
 */
import { u32 } from './bytes.ts';
import type { ExtraField } from './central-directory.ts';
import { crc32 } from './crc32.ts';

const UTF8_FLAG = 0x800;
const UNICODE_PATH_FIELD = 0x7075;

/** For the unflagged guess: throws on bad bytes (then CP437); a leading BOM is dropped, as the Node adapter's is. */
const strictUtf8 = new TextDecoder('utf-8', { fatal: true });
/** For declared UTF-8: bad bytes become U+FFFD and a BOM stays, as yauzl's `Buffer#toString('utf8')` has it. */
const lenientUtf8 = new TextDecoder('utf-8', { ignoreBOM: true });

// IBM code page 437, byte by byte (yauzl's table: 0x00 is NUL, 0x01–0x1F the graphic glyphs, 0xFF NBSP).
const CP437 =
  '\u0000☺☻♥♦♣♠•◘○◙♂♀♪♫☼►◄↕‼¶§▬↨↑↓→←∟↔▲▼ !"#$%&\'()*+,-./0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[\\]^_`abcdefghijklmno' +
  'pqrstuvwxyz{|}~⌂ÇüéâäàåçêëèïîìÄÅÉæÆôöòûùÿÖÜ¢£¥₧ƒáíóúñÑªº¿⌐¬½¼¡«»░▒▓│┤╡╢╖╕╣║╗╝╜╛┐└┴┬├─┼╞╟╚╔╩╦╠═╬╧╨╤╥╙╘╒╓╫╪┘┌█▄▌▐▀αßΓπΣσµτΦΘΩδ∞φε∩≡±≥≤⌠⌡÷≈°∙·√ⁿ²■\u00a0';

export function entryName(flags: number, nameBytes: Uint8Array, extraFields: readonly ExtraField[]): string {
  const declared = flags & UTF8_FLAG || extraFields.some((field) => field.id === UNICODE_PATH_FIELD);
  if (!declared) {
    try {
      return strictUtf8.decode(nameBytes);
    } catch {
      // not UTF-8: CP437, as the format says
    }
  }
  const unicodePath = unicodePathOf(nameBytes, extraFields);
  if (unicodePath !== undefined) return unicodePath;
  return flags & UTF8_FLAG ? lenientUtf8.decode(nameBytes) : cp437(nameBytes);
}

/**
 * The Unicode Path field's name (version 1, then the CRC-32 of the stored name, then UTF-8): a field whose
 * CRC does not match was written for another name (the entry was renamed since), and is ignored.
 */
function unicodePathOf(nameBytes: Uint8Array, extraFields: readonly ExtraField[]): string | undefined {
  for (const { id, data } of extraFields) {
    if (id !== UNICODE_PATH_FIELD || data.length < 6 || data[0] !== 1) continue;
    if (u32(data, 1) !== crc32(nameBytes)) continue;
    return lenientUtf8.decode(data.subarray(5));
  }
  return undefined;
}

export function cp437(bytes: Uint8Array): string {
  let name = '';
  for (const byte of bytes) name += CP437[byte];
  return name;
}
