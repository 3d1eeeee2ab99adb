/**
 * `mayHoldMatch` (./engine-types.ts) while the content index cannot answer yet (the list's first walk, or the
 * index's first build: a daemon just started on a big tree). The files the engine would search are read on the
 * scanner's worker threads and each one read whole that lacks the query's required literals is ruled out
 * (core/search/text/holds-required.ts); `search_in_files` then reads only the rest on the main thread, in its own
 * walk order, under its own rules (docs/noide-protocol.md#search_in_files). Without it, that search read the whole
 * kernel tree on the main thread, 4 files ahead, and ran out of its 10 s budget.
 *
 * - Conservative: a file the prefilter did not read whole (not listed by the engine — ignored, a package store, a
 *   link —, gone, over the 1 MiB cap, or written meanwhile to something the prefilter never saw) is never ruled
 *   out. The files are the list's once its first walk has ended, else those of a direct walk of the disk
 *   (core/search/file-list/walk-searchable.ts); the list's own walk gives way meanwhile, as it does to a query.
 * - The direct walk covers the whole root, so it is used only when the search does too; a subfolder's search
 *   while the list is still walking reads its files itself, as before (a whole-tree walk would cost more).
 * - Bounded by the caller's deadline; past it, or on any failure, undefined: the search reads every file, and
 *   its own budget (the same deadline) says it ran out.
 * - With the direct walk, the list's own walk waits until the caller's search has ended (`searched`), since that
 *   search then walks and reads on the same 2 cores; never longer than list-gives-way.ts's bound.
 */
import type { FileSystem } from '../../../adapters/fs/file-system.ts';
import { walkSearchable } from '../file-list/walk-searchable.ts';
import type { ListedFile } from '../file-list/listed-file.ts';
import { compileFind, type FindQuery } from '../text/find-query.ts';
import { holdsRequiredTest } from '../text/holds-required.ts';
import type { TextScanner } from '../text/scanner.ts';
import type { EngineParts } from './engine-parts.ts';
import type { ListGivesWay } from './list-gives-way.ts';

export interface BuildingPrefilterRequest {
  fs: FileSystem;
  engine: EngineParts;
  scanner: TextScanner;
  walkingQueries: ListGivesWay;
  query: FindQuery;
  /** The absolute real path the search covers (default: the root). */
  under?: string;
  deadlineMs: number;
  /** The caller's search has ended (MayHoldMatchScope.searched): the list's walk waits until then. */
  searched?: Promise<unknown>;
}

export async function buildingPrefilter(request: BuildingPrefilterRequest): Promise<((absolutePath: string) => boolean) | undefined> {
  const { engine, scanner, query } = request;
  if (scanner.ruleOut === undefined) return undefined;
  const compiled = compileFind(query);
  // A pattern that does not compile is the caller's to report; a query with no required literal rules nothing out.
  if (compiled.ranAsLiteral || holdsRequiredTest(compiled) === undefined) return undefined;
  const under = request.under ?? engine.root;
  const covers = (file: ListedFile) => under === engine.root || file.absolutePath.startsWith(under + '/');
  let files: readonly ListedFile[] | AsyncIterable<readonly ListedFile[]>;
  let ended = () => {};
  if (engine.listed) {
    if (!engine.fileList.isReady) return undefined;
    files = engine.fileList.files({ includeIgnored: false }).filter(covers);
  } else {
    if (under !== engine.root) return undefined;
    files = walkedFiles(request);
    ended = request.walkingQueries.begin();
  }
  try {
    const ruledOut = await scanner.ruleOut({ query, files, deadlineMs: request.deadlineMs });
    return (absolutePath) => !ruledOut.has(absolutePath);
  } catch {
    return undefined; // the search reads every file, within what is left of its budget
  } finally {
    if (request.searched === undefined) ended();
    else void request.searched.finally(ended);
  }
}

async function* walkedFiles({ fs, engine }: BuildingPrefilterRequest): AsyncGenerator<readonly ListedFile[]> {
  for await (const batch of walkSearchable({ fs, root: engine.root, exclude: engine.exclude, includeIgnored: false })) yield batch.files;
}
