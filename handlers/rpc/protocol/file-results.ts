/**
 * The results of the file, archive and shell commands (docs/noide-protocol.md#file-commands): text, base64,
 * booleans, path lists, the listing's tree and the search's matches. Strict objects where a row builds the
 * object: optional keys are absent, never null.
 */
import { z } from 'zod';
import type { FileNode } from '../commands/files/read-directory.ts';
import { entry, noResult } from './result-entry.ts';

const FILES = 'docs/noide-protocol.md#file-commands';
const LISTING = 'docs/noide-protocol.md#listing';

/** read_directory's node; named, so the document holds it once and refers to it (it is recursive). */
export const fileNode: z.ZodType<FileNode> = z
  .lazy(() =>
    z.strictObject({
      name: z.string(),
      path: z.string().describe('absolute'),
      isDirectory: z.boolean(),
      children: z.array(fileNode).optional(),
      extension: z.string().describe('files: the text after the last dot, without it').optional(),
      size: z.number().int().min(0).describe('files: bytes').optional(),
      modified: z.number().int().describe('whole Unix seconds').optional(),
    }),
  )
  .meta({ id: 'FileNode' });

export const searchMatch = z.strictObject({
  file: z.string().describe('absolute'),
  lineNumber: z.number().int().min(1),
  lineText: z.string(),
  matchStart: z.number().int().min(0).describe('UTF-16 code units within lineText'),
  matchEnd: z.number().int().min(0),
});

export const fileResults = {
  read_file: entry(z.string().describe('the UTF-8 text'), FILES),
  read_file_base64: entry(z.base64(), FILES),
  download_file: entry(z.base64(), FILES),
  write_file: noResult(FILES),
  upload_file: noResult(FILES),
  create_file: noResult(FILES),
  create_directory: noResult(FILES),
  rename_entry: noResult(FILES),
  copy_entry: noResult(FILES),
  delete_entry: noResult(FILES),
  file_exists: entry(z.boolean(), FILES),
  read_directory: entry(z.array(fileNode), LISTING),
  list_files: entry(z.array(z.string().describe('relative to `path`, `/`-separated')), LISTING),
  search_in_files: entry(z.array(searchMatch), 'docs/noide-protocol.md#search_in_files'),
  extract_zip: entry(z.array(z.string().describe('absolute')), 'docs/noide-protocol.md#extract_zip'),
  run_command: entry(z.string().describe('stdout and stderr as written, whatever the exit code'), 'docs/noide-protocol.md#run_command'),
  get_cwd: entry(z.string().describe('the workspace root, absolute'), FILES),
};
