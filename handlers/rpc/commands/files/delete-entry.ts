import { z } from 'zod';
import { removeEntry } from '../../../../core/tree-ops/remove-entry.ts';
import { WorkspaceError } from '../../../../core/errors/workspace-error.ts';
import { mutationScope } from '../../../shared/mutation-scope.ts';
import { defineCommand, RpcError } from '../../command.ts';
import { PATH_DOES_NOT_EXIST } from './protocol-texts.ts';

/**
 * `delete_entry {path}` → null: the entry and everything under it (core/tree-ops: a link is removed itself,
 * never its target). The workspace root and the agents folder are refused; a missing path is
 * `Path does not exist`.
 */
export const deleteEntry = defineCommand({
  args: { path: z.string() },
  async run({ path }, { ctx }) {
    const scope = await mutationScope(ctx, undefined);
    const entry = await scope.entry(path, 'delete', 'not-inside-or-containing');
    try {
      await removeEntry(scope.view, entry);
    } catch (error) {
      if (error instanceof WorkspaceError && error.code === 'not-found') throw new RpcError(PATH_DOES_NOT_EXIST);
      throw error;
    }
  },
});
