/** What the Web adapter reports of a central directory record: its name, declared sizes, kind and mode. */
import type { ZipEntryInfo } from '../zip-adapter.ts';
import type { DirectoryEntry } from './central-directory.ts';
import { entryKindAndMode } from './entry-kind.ts';
import { entryName } from './entry-name.ts';

export function describeEntry(entry: DirectoryEntry): ZipEntryInfo {
  const name = entryName(entry.flags, entry.nameBytes, entry.extraFields);
  return {
    name,
    compressedSize: entry.compressedSize,
    uncompressedSize: entry.uncompressedSize,
    ...entryKindAndMode(name, entry.versionMadeBy, entry.externalAttributes),
  };
}
