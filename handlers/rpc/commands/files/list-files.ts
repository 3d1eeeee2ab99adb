import { z } from 'zod';
import { relativeTo } from '../../../../adapters/fs/posix-path.ts';
import { LISTING_MAX_DEPTH, LISTING_MAX_ENTRIES } from '../../../../core/listing/skipped-names.ts';
import { isReadableFile, walkListing } from '../../../../core/listing/walk-listing.ts';
import { defineCommand } from '../../command.ts';
import { listingScope, topFolderError } from './listing-scope.ts';

/**
 * `list_files {path}` → string[]: the files under the folder as paths relative to it (`/`-separated),
 * sorted in code-unit order, from the same walk as `read_directory` (its skip list, depth and entry caps;
 * core/listing/walk-listing.ts). Files only, and only what `read_file` could open: a link to a file inside
 * the workspace is listed at its own path; folders, dangling links and links out of the workspace are not.
 */
export const listFiles = defineCommand({
  args: { path: z.string() },
  async run({ path }, { ctx }) {
    const { place, top } = await listingScope(ctx, path);
    const files: string[] = [];
    try {
      for await (const folder of walkListing(place, top, { maxDepth: LISTING_MAX_DEPTH, maxEntries: LISTING_MAX_ENTRIES })) {
        for (const entry of folder.entries) if (isReadableFile(entry)) files.push(relativeTo(top, entry.path));
      }
    } catch (error) {
      throw topFolderError(error, path);
    }
    return files.sort();
  },
});
