/**
 * An entry's kind and permission bits from its central directory record, for every zip adapter alike (yauzl's and
 * the Web one), so core/archive sees the same entries whichever the runtime has.
 */
import type { ZipEntryInfo } from '../zip-adapter.ts';

const S_IFMT = 0o170000;
const S_IFREG = 0o100000;
const S_IFDIR = 0o040000;
const S_IFLNK = 0o120000;
const MADE_BY_UNIX = 3;
const DOS_DIRECTORY = 0x10;

export function entryKindAndMode(name: string, versionMadeBy: number, externalAttributes: number): Pick<ZipEntryInfo, 'kind' | 'mode'> {
  // The high 16 bits of the external attributes are a Unix st_mode only when a Unix host made the entry.
  const unixMode = versionMadeBy >> 8 === MADE_BY_UNIX ? externalAttributes >>> 16 : 0;
  return { kind: kindOf(name, unixMode, externalAttributes), mode: unixMode & 0o7777 ? unixMode & 0o7777 : undefined };
}

function kindOf(name: string, unixMode: number, attributes: number): ZipEntryInfo['kind'] {
  const type = unixMode & S_IFMT;
  if (type === S_IFLNK) return 'symlink';
  if (type !== 0 && type !== S_IFREG && type !== S_IFDIR) return 'other'; // fifo, device, socket
  // A trailing slash is how every zip writer marks a folder; the mode and DOS bits say so too, when set.
  if (name.endsWith('/') || type === S_IFDIR || (type === 0 && attributes & DOS_DIRECTORY)) return 'dir';
  return 'file';
}
