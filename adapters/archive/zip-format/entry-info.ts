/**
 * What the adapter reports of a central directory record: its name, declared sizes, kind and mode, read from
 * the external attributes exactly as adapters/archive/yauzl-zip-adapter.ts reads them, so core/archive sees the
 * same entries whichever adapter the runtime has.
 */
import type { ZipEntryInfo } from '../zip-adapter.ts';
import type { DirectoryEntry } from './central-directory.ts';
import { entryName } from './entry-name.ts';

const S_IFMT = 0o170000;
const S_IFREG = 0o100000;
const S_IFDIR = 0o040000;
const S_IFLNK = 0o120000;
const MADE_BY_UNIX = 3;
const DOS_DIRECTORY = 0x10;

export function describeEntry(entry: DirectoryEntry): ZipEntryInfo {
  const name = entryName(entry.flags, entry.nameBytes, entry.extraFields);
  // The high 16 bits of the external attributes are a Unix st_mode only when a Unix host made the entry.
  const unixMode = entry.versionMadeBy >> 8 === MADE_BY_UNIX ? entry.externalAttributes >>> 16 : 0;
  return {
    name,
    compressedSize: entry.compressedSize,
    uncompressedSize: entry.uncompressedSize,
    kind: kindOf(name, unixMode, entry.externalAttributes),
    mode: unixMode & 0o7777 ? unixMode & 0o7777 : undefined,
  };
}

function kindOf(name: string, unixMode: number, attributes: number): ZipEntryInfo['kind'] {
  const type = unixMode & S_IFMT;
  if (type === S_IFLNK) return 'symlink';
  if (type !== 0 && type !== S_IFREG && type !== S_IFDIR) return 'other'; // fifo, device, socket
  // A trailing slash is how every zip writer marks a folder; the mode and DOS bits say so too, when set.
  if (name.endsWith('/') || type === S_IFDIR || (type === 0 && attributes & DOS_DIRECTORY)) return 'dir';
  return 'file';
}
