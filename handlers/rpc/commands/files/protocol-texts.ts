/**
 * The error texts the NoIDE frontend shows, verbatim (docs/noide-protocol.md#errors). They are protocol strings, not
 * messages to improve: the UI may match on them. Thrown as `RpcError`; every other failure carries the
 * core's own clear message.
 */
export const FILE_ALREADY_EXISTS = 'File already exists';
export const FOLDER_ALREADY_EXISTS = 'Folder already exists';
export const SOURCE_DOES_NOT_EXIST = 'Source does not exist';
export const TARGET_ALREADY_EXISTS = 'Target already exists';
export const PATH_DOES_NOT_EXIST = 'Path does not exist';
