import { z } from 'zod';
import { decodeBase64, InvalidBase64Error } from '../../../../core/text/base64.ts';
import { defineCommand, RpcError } from '../../command.ts';
import { writeWholeFile } from './write-whole-file.ts';

/** `write_file {path, content}` → null: the text as UTF-8, replacing the file or creating it (and its folders). */
export const writeFile = defineCommand({
  args: { path: z.string(), content: z.string() },
  async run({ path, content }, { ctx }) {
    await writeWholeFile(ctx, path, content);
  },
});

/**
 * `upload_file {path, content}` → null: `content` is base64 (one frame carries the whole upload; the socket's
 * message cap bounds it). Decoded strictly before the disk is touched: bad base64 is `Invalid base64: …` and
 * writes nothing.
 */
export const uploadFile = defineCommand({
  args: { path: z.string(), content: z.string() },
  async run({ path, content }, { ctx }) {
    await writeWholeFile(ctx, path, decodeStrict(content));
  },
});

/** `create_file {path, content?}` → null; `File already exists` when anything is at the path, which is left as it was. */
export const createFile = defineCommand({
  args: { path: z.string(), content: z.string().optional() },
  async run({ path, content }, { ctx }) {
    await writeWholeFile(ctx, path, content ?? '', { exclusive: true });
  },
});

function decodeStrict(content: string): Uint8Array {
  try {
    return decodeBase64(content);
  } catch (error) {
    if (error instanceof InvalidBase64Error) throw new RpcError(error.message);
    throw error;
  }
}
