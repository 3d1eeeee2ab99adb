import { z } from 'zod';
import { isFsError } from '../../../../adapters/fs/fs-error.ts';
import { dirname } from '../../../../adapters/fs/posix-path.ts';
import { displayPath } from '../../../../core/tree-ops/display-path.ts';
import { makeFolders } from '../../../../core/tree-ops/make-folders.ts';
import { mutationScope } from '../../../shared/mutation-scope.ts';
import { defineCommand, RpcError } from '../../command.ts';
import { FILE_ALREADY_EXISTS, FOLDER_ALREADY_EXISTS } from './protocol-texts.ts';

/**
 * `create_directory {path}` → null: the folder, and any missing folders above it. Unlike `mkdir -p` (Intentic's
 * `dir`), the folder itself must be new: `Folder already exists` when one is there, `File already exists`
 * when a file or a link holds the name (the workspace root is refused as the core refuses it). The last step is one plain mkdir, so two clients racing for the
 * name get one success and one of these errors; the folders made above it are removed again if it fails.
 */
export const createDirectory = defineCommand({
  args: { path: z.string() },
  async run({ path }, { ctx }) {
    const scope = await mutationScope(ctx, undefined);
    const { fs, root } = scope.view;
    // The name itself, as for create_file: a link there (dangling or not) holds the name, and the folder is
    // never made at the link's target instead.
    const folder = await scope.entry(path, 'create a folder at', 'not-inside');
    const undoParents = await makeFolders(fs, dirname(folder), (at) => displayPath(root, at));
    try {
      await fs.mkdir(folder);
    } catch (error) {
      await undoParents();
      if (isFsError(error, 'exists')) {
        const taken = await fs.lstat(folder).catch(() => undefined);
        throw new RpcError(taken?.type === 'dir' ? FOLDER_ALREADY_EXISTS : FILE_ALREADY_EXISTS);
      }
      throw error;
    }
  },
});
