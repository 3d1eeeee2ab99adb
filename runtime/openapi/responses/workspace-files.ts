import { z } from 'zod';

/** docs/workspace-files.md: every file answer starts with the entry's stat. */
const fileStat = {
  absolutePath: z.string(),
  version: z.string(),
  bytes: z.number().int().min(0),
};

export const statAnswer = z.strictObject(fileStat);

export const readAnswer = z.strictObject({
  ...fileStat,
  offset: z.number().int().min(1).describe('the 1-based first line of the page'),
  text: z.string(),
  lines: z.number().int().min(0),
  eof: z.boolean(),
});

export const readBytesAnswer = z.strictObject({
  ...fileStat,
  offset: z.number().int().min(0),
  data: z.string().describe('the window, base64'),
  eof: z.boolean(),
});

export const listAnswer = z.strictObject({
  path: z.string().describe('root-relative'),
  entries: z.array(
    z.strictObject({
      name: z.string(),
      type: z.enum(['file', 'directory', 'other']),
      size: z.number().int().min(0).optional(),
    }),
  ),
  truncated: z.boolean(),
});
