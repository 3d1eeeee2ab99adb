import { isFsError, type FsErrorCode } from '../../adapters/fs/fs-error.ts';

/**
 * The one error type handlers throw. Each dialect renders it in its own wire shape
 * (runtime/errors/render.ts); `code` is dialect-neutral and `status` is the HTTP status.
 */
export type WorkspaceErrorCode =
  | 'bad-request'
  | 'unauthorized'
  | 'forbidden'
  | 'outside-workspace'
  | 'not-found'
  | 'conflict'
  | 'not-regular-file'
  | 'not-directory'
  | 'precondition-failed'
  | 'too-large'
  | 'not-text'
  | 'range-not-satisfiable'
  | 'too-many'
  | 'not-implemented'
  | 'internal';

const defaultStatus: Record<WorkspaceErrorCode, number> = {
  'bad-request': 400,
  unauthorized: 401,
  forbidden: 403,
  'outside-workspace': 403,
  'not-found': 404,
  conflict: 409,
  'not-regular-file': 409,
  'not-directory': 409,
  'precondition-failed': 412,
  'too-large': 413,
  'not-text': 415,
  'range-not-satisfiable': 416,
  'too-many': 429,
  'not-implemented': 501,
  internal: 500,
};

export class WorkspaceError extends Error {
  override readonly name = 'WorkspaceError';
  readonly status: number;
  constructor(
    readonly code: WorkspaceErrorCode,
    message: string,
    readonly details: Record<string, unknown> = {},
    status?: number,
  ) {
    super(message);
    this.status = status ?? defaultStatus[code];
  }
}

const fromFsCode: Record<FsErrorCode, [WorkspaceErrorCode, string]> = {
  'not-found': ['not-found', 'no such file or directory'],
  exists: ['conflict', 'already exists'],
  'not-directory': ['not-directory', 'not a directory'],
  'is-directory': ['not-regular-file', 'is a directory'],
  'not-empty': ['conflict', 'directory not empty'],
  'permission-denied': ['forbidden', 'permission denied'],
  loop: ['bad-request', 'too many levels of symbolic links'],
  'name-too-long': ['bad-request', 'file name too long'],
  invalid: ['bad-request', 'invalid operation'],
  'version-mismatch': ['precondition-failed', 'version mismatch'],
  'too-large': ['too-large', 'data too large'],
  io: ['internal', 'i/o error'],
};

/**
 * Turns anything a handler threw into a WorkspaceError. FsErrors map to their HTTP meaning; an unknown
 * error becomes `internal` (500) — that is a bug to fix, never an answer to bad input.
 */
export function toWorkspaceError(error: unknown): WorkspaceError {
  if (error instanceof WorkspaceError) return error;
  if (isFsError(error)) {
    const [code, message] = fromFsCode[error.code];
    return new WorkspaceError(code, message, { fsCode: error.code });
  }
  return new WorkspaceError('internal', 'internal error');
}
