import { z } from 'zod';
import { walkListing, type ListingEntry } from '../../../../core/listing/walk-listing.ts';
import { LISTING_MAX_DEPTH, LISTING_MAX_ENTRIES } from '../../../../core/listing/skipped-names.ts';
import { defineCommand } from '../../command.ts';
import { listingScope, topFolderError } from './listing-scope.ts';

/** §002: `maxDepth` defaults to 3 (the top entries and three levels below them). */
const DEFAULT_MAX_DEPTH = 3;

/** The protocol's tree node; optional keys are absent, never null. */
export interface FileNode {
  name: string;
  /** Absolute. */
  path: string;
  isDirectory: boolean;
  /** A folder's entries when the walk opened it; absent when it was left closed (too deep, over the cap, a link). */
  children?: FileNode[];
  /** Files: the text after the last dot, without it, as written ("tar.gz" → "gz"; none for "Makefile", ".env"). */
  extension?: string;
  /** Files: bytes. */
  size?: number;
  /** Whole Unix seconds. */
  modified?: number;
}

/**
 * `read_directory {path, maxDepth?}` → FileNode[]: the folder as a tree, folders first then names
 * case-insensitively, the §002 skip list left out, at most LISTING_MAX_DEPTH levels deep and
 * LISTING_MAX_ENTRIES entries in all (core/listing/walk-listing.ts, which also says how links appear).
 */
export const readDirectory = defineCommand({
  args: { path: z.string(), maxDepth: z.number().int().min(0).optional() },
  async run({ path, maxDepth = DEFAULT_MAX_DEPTH }, { ctx }) {
    const { place, top } = await listingScope(ctx, path);
    const walk = walkListing(place, top, {
      maxDepth: Math.min(maxDepth, LISTING_MAX_DEPTH),
      maxEntries: LISTING_MAX_ENTRIES,
      details: true,
    });
    let tree: ListingEntry[] | undefined;
    try {
      for await (const folder of walk) tree ??= folder.entries;
    } catch (error) {
      throw topFolderError(error, path);
    }
    return tree!.map(toFileNode);
  },
});

function toFileNode(entry: ListingEntry): FileNode {
  const node: FileNode = { name: entry.name, path: entry.path, isDirectory: entry.type === 'dir' };
  if (entry.children) node.children = entry.children.map(toFileNode);
  if (!node.isDirectory) {
    const extension = extensionOf(entry.name);
    if (extension !== undefined) node.extension = extension;
    if (entry.size !== undefined) node.size = entry.size;
  }
  if (entry.mtimeMs !== undefined) node.modified = Math.floor(entry.mtimeMs / 1000);
  return node;
}

/** As Rust's `Path::extension` (the original's): none for a name without a dot or with only a leading one. */
function extensionOf(name: string): string | undefined {
  const dot = name.lastIndexOf('.');
  return dot <= 0 || dot === name.length - 1 ? undefined : name.slice(dot + 1);
}
