import { z } from 'zod';
import { isFsError } from '../../../../adapters/fs/fs-error.ts';
import { defineCommand } from '../../command.ts';

/**
 * `file_exists {path}` → boolean: anything there (a file or a folder), links followed, so a dangling link, or one
 * in a loop of links (nothing it leads to exists), is `false`. A path outside the workspace is refused, not
 * answered: "no" would be a lie, "yes" a leak.
 */
export const fileExists = defineCommand({
  args: { path: z.string() },
  async run({ path }, { ctx }) {
    const view = await ctx.view(undefined);
    try {
      await view.fs.stat(await view.resolve(path)); // resolving follows the links: a loop fails there already
      return true;
    } catch (error) {
      if (isFsError(error, 'not-found') || isFsError(error, 'not-directory') || isFsError(error, 'loop')) return false;
      throw error;
    }
  },
});
