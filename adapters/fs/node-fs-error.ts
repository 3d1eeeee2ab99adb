/**
 * What node:fs throws, as the FileSystem's FsError: one translation for NodeFileSystem and the confinement beneath it.
 */
import { FsError, type FsErrorCode } from './fs-error.ts';

const ERRNO_TO_CODE: Record<string, FsErrorCode> = {
  ENOENT: 'not-found',
  EEXIST: 'exists',
  ENOTDIR: 'not-directory',
  EISDIR: 'is-directory',
  ENOTEMPTY: 'not-empty',
  EACCES: 'permission-denied',
  EPERM: 'permission-denied',
  ELOOP: 'loop',
  ENAMETOOLONG: 'name-too-long',
  EINVAL: 'invalid',
};

/** Translates anything thrown by node:fs into an FsError for `path` (FsErrors pass through untouched). */
export function toFsError(error: unknown, path: string): FsError {
  if (error instanceof FsError) return error;
  const errno = (error as NodeJS.ErrnoException | undefined)?.code;
  const code = (errno && ERRNO_TO_CODE[errno]) || 'io';
  if (code === 'io') {
    const detail = errno ?? (error instanceof Error ? error.message : String(error));
    return new FsError('io', path, `io: ${path} (${detail})`);
  }
  return new FsError(code, path);
}
