import { z } from 'zod';
import { encodeBase64 } from '../../../../core/text/base64.ts';
import { decodeText } from '../../../../core/text/utf8.ts';
import { WorkspaceError } from '../../../../core/errors/workspace-error.ts';
import { defineCommand } from '../../command.ts';
import { readWholeFile } from './whole-file.ts';

/**
 * `read_file {path}` → the file's text. UTF-8 only: bytes that are not UTF-8, or a NUL byte (the mark of a
 * binary file, as for every text read in this project: core/text/utf8.ts), are an error rather than text
 * with replacement characters, which the editor would write back over the file on the first save.
 */
export const readFile = defineCommand({
  args: { path: z.string() },
  async run({ path }, { ctx }) {
    const text = decodeText(await readWholeFile(ctx, path, 'read_file'));
    if (text === undefined) {
      throw new WorkspaceError('not-text', `Not a UTF-8 text file: ${path} (read_file_base64 reads any file)`, { path });
    }
    return text;
  },
});

/** `read_file_base64 {path}` → the bytes as standard padded base64 (images and other binaries). */
export const readFileBase64 = defineCommand({
  args: { path: z.string() },
  async run({ path }, { ctx }) {
    return encodeBase64(await readWholeFile(ctx, path, 'read_file_base64'));
  },
});

/** `download_file {path}` → base64, as `read_file_base64` (the UI saves it as a download). */
export const downloadFile = defineCommand({
  args: { path: z.string() },
  async run({ path }, { ctx }) {
    return encodeBase64(await readWholeFile(ctx, path, 'download_file'));
  },
});
