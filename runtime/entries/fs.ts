/**
 * `workspace-api/fs`: the storage interface every backend implements and the in-memory backend, a full one
 * (tests, previews, Workers) (docs/architecture.md#the-filesystem-adapter). Edge-clean.
 */
export type {
  ByteRange,
  BytesWithStat,
  DirEntry,
  FileStat,
  FileSystem,
  FileSystemCapabilities,
  FileType,
  ReadStreamOptions,
  StreamLimit,
  WatchEvent,
  WriteAtOptions,
  WriteOptions,
} from '../../adapters/fs/file-system.ts';
export { FsError, isFsError, type FsErrorCode } from '../../adapters/fs/fs-error.ts';
export { MemoryFileSystem } from '../../adapters/fs/memory-file-system.ts';
