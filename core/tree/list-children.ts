/**
 * Intentic's `children` (docs/intentic.md#children): one folder's direct entries, shaped as the tree's (without `children`),
 * sorted the same way and capped by the same budget, `hidden` counting the rest. This is how a client opens a
 * folder the walk left closed, ignored ones included: inside an ignored folder every entry is `ignored`.
 */
import type { IgnoreRules } from '../ignore/ignore-rules.ts';
import {
  firstThatFit,
  folderNodes,
  IGNORE_EVERYTHING,
  listTreeFolder,
  matcherFor,
  settle,
  startSizes,
  toEntries,
} from './folder-nodes.ts';
import type { TreeListing } from './tree-entry.ts';
import type { TreePlace } from './tree-place.ts';

export interface ListChildrenOptions {
  budget: number;
  rules: IgnoreRules;
}

/**
 * Lists the folder at real path `real`, presented at root-relative `rel` (a link's path, when it was opened
 * through one). Errors reading the folder itself propagate (FsError: not-found, not-directory, …).
 */
export async function listChildren(place: TreePlace, real: string, rel: string, options: ListChildrenOptions): Promise<TreeListing> {
  const { rules } = options;
  const folderIgnored = rel !== '' && (await rules.isIgnored(rel, true));
  const listing = await listTreeFolder(place, real);
  const matcher = folderIgnored ? IGNORE_EVERYTHING : await matcherFor(rules, rel, listing);
  const nodes = folderNodes(place, real, rel, listing, matcher);
  const { kept, hidden } = await firstThatFit(nodes, Math.max(0, Math.floor(options.budget)));
  startSizes(place, kept);
  await settle(kept);
  return { entries: toEntries(kept), hidden };
}
