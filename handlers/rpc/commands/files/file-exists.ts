import { z } from 'zod';
import { isFsError } from '../../../../adapters/fs/fs-error.ts';
import { defineCommand } from '../../command.ts';

/**
 * `file_exists {path}` → boolean: anything there (a file or a folder), links followed, so a dangling link is
 * `false`. A path outside the workspace is refused, not answered: "no" would be a lie, "yes" a leak.
 */
export const fileExists = defineCommand({
  args: { path: z.string() },
  async run({ path }, { ctx }) {
    const view = await ctx.view(undefined);
    const resolved = await view.resolve(path);
    try {
      await view.fs.stat(resolved);
      return true;
    } catch (error) {
      if (isFsError(error, 'not-found') || isFsError(error, 'not-directory')) return false;
      throw error;
    }
  },
});
