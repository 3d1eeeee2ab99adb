/**
 * The protocol's file-system commands (docs/noide-protocol.md#file-commands), one row each. They reuse the core the HTTP
 * dialects use: containment (ctx.resolve / the view), atomic writes (FileSystem.write), core/tree-ops for
 * move, copy and delete, core/listing for the walks and core/content-search for `search_in_files`.
 */
import type { RpcCommand } from '../../command.ts';
import { createDirectory } from './create-directory.ts';
import { deleteEntry } from './delete-entry.ts';
import { fileExists } from './file-exists.ts';
import { listFiles } from './list-files.ts';
import { readDirectory } from './read-directory.ts';
import { downloadFile, readFile, readFileBase64 } from './read-file.ts';
import { searchInFiles } from './search-in-files.ts';
import { copyEntryCommand, renameEntry } from './transfer-entry.ts';
import { createFile, uploadFile, writeFile } from './write-file.ts';

export const fileCommands = {
  read_file: readFile,
  read_file_base64: readFileBase64,
  write_file: writeFile,
  upload_file: uploadFile,
  download_file: downloadFile,
  read_directory: readDirectory,
  list_files: listFiles,
  file_exists: fileExists,
  create_file: createFile,
  create_directory: createDirectory,
  rename_entry: renameEntry,
  copy_entry: copyEntryCommand,
  delete_entry: deleteEntry,
  search_in_files: searchInFiles,
} satisfies Record<string, RpcCommand>;
