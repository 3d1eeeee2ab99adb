/**
 * Typed file-system errors, modeled on VS Code's FileSystemProviderErrorCode: every backend throws
 * these (never raw errno errors), so handlers map one small set of codes to HTTP statuses.
 */
export type FsErrorCode =
  | 'not-found' // the path (or a parent) does not exist
  | 'exists' // the target exists and the call asked for exclusive creation / no overwrite
  | 'not-directory' // a directory was expected (or a parent is a file)
  | 'is-directory' // a file was expected
  | 'not-empty' // removing a non-empty directory without `recursive`
  | 'permission-denied'
  | 'loop' // too many symbolic links (a cycle)
  | 'name-too-long' // a segment over 255 bytes or a path over 4096 bytes (Linux NAME_MAX / PATH_MAX)
  | 'invalid' // the call makes no sense for this node (readlink of a non-link, moving a folder into itself)
  | 'version-mismatch' // a conditional write whose `ifVersion` no longer matches
  | 'too-large' // a streamed write's data ran past its `maxBytes`
  | 'io'; // anything else

export class FsError extends Error {
  override readonly name = 'FsError';
  constructor(
    readonly code: FsErrorCode,
    readonly path: string,
    message?: string,
  ) {
    super(message ?? `${code}: ${path}`);
  }
}

export function isFsError(error: unknown, code?: FsErrorCode): error is FsError {
  return error instanceof FsError && (code === undefined || error.code === code);
}
