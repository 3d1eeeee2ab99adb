/**
 * `rename_entry {from, to}` and `copy_entry {from, to}` → null, over the core's move and copy
 * (core/tree-ops): the entry itself (a link is moved or copied as a link), never an overwrite, missing
 * folders above `to` made (and removed again on failure), a copy all-or-nothing under the copy caps. The
 * core's refusals that the UI knows by text become the protocol's strings: `Source does not exist`,
 * `Target already exists`; the rest (onto itself, into its own subfolder, over the caps, the workspace root,
 * the agents folder) keep the core's message.
 */
import { z } from 'zod';
import type { WorkspaceView } from '../../../../core/agents/workspace-view.ts';
import { copyEntry } from '../../../../core/tree-ops/copy-entry.ts';
import { displayPath } from '../../../../core/tree-ops/display-path.ts';
import { moveEntry } from '../../../../core/tree-ops/move-entry.ts';
import { targetExists } from '../../../../core/tree-ops/transfer-checks.ts';
import type { WorkspaceContext } from '../../../../runtime/context.ts';
import { WorkspaceError } from '../../../../core/errors/workspace-error.ts';
import { mutationScope } from '../../../shared/mutation-scope.ts';
import { defineCommand, RpcError } from '../../command.ts';
import { SOURCE_DOES_NOT_EXIST, TARGET_ALREADY_EXISTS } from './protocol-texts.ts';

type Transfer = (view: WorkspaceView, from: string, to: string) => Promise<void>;

export const renameEntry = defineCommand({
  args: { from: z.string(), to: z.string() },
  run: ({ from, to }, { ctx }) => transfer(ctx, from, to, 'move', moveEntry),
});

export const copyEntryCommand = defineCommand({
  args: { from: z.string(), to: z.string() },
  run: ({ from, to }, { ctx }) =>
    transfer(ctx, from, to, 'copy', (view, source, target) =>
      copyEntry(view, source, target, { maxEntries: ctx.limits.maxCopyEntries, maxBytes: ctx.limits.maxCopyBytes }),
    ),
});

async function transfer(ctx: WorkspaceContext, from: string, to: string, action: 'move' | 'copy', run: Transfer): Promise<void> {
  const scope = await mutationScope(ctx, undefined);
  const source = await scope.entry(from, action, 'not-inside-or-containing');
  const target = await scope.entry(to, `${action} onto`, 'not-inside');
  try {
    await run(scope.view, source, target);
  } catch (error) {
    if (error instanceof WorkspaceError) {
      // The core's only `not-found` for a transfer is its source check (core/tree-ops/transfer-checks.ts).
      if (error.code === 'not-found') throw new RpcError(SOURCE_DOES_NOT_EXIST);
      if (error.message === targetExists(displayPath(scope.view.root, target)).message) throw new RpcError(TARGET_ALREADY_EXISTS);
    }
    throw error;
  }
}
