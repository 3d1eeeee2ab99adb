/**
 * `extract_zip` (docs/noide-protocol.md#extract_zip): all or nothing. In order, before anything is written: the archive
 * opens, the entry cap (from the end record), the size caps on the declared sizes (core/archive/zip-caps.ts),
 * then every entry's name and kind (core/archive/entry-path.ts; links and special files are refused) and
 * where it lands (core/archive/extraction-plan.ts). Then every file is inflated into a staging
 * folder inside the destination (same file system, so moving a file into place is one rename), its bytes
 * counted against what the entry declared; only when every entry inflated fine are the folders made and the
 * files renamed into place. A failure before that (corrupt data, a CRC, a lying size) removes the staging
 * folder, and the destination if this call made it, so the destination is left as it was.
 *
 * Moving into place is a rename per file, not one atomic step: a failure there (a full disk, a link swapped
 * into the destination meanwhile — checked again just before) can leave some files moved. Everything the
 * archive itself can get wrong is found before that.
 */
import type { ZipAdapter, ZipArchive, ZipEntryInfo } from '../../adapters/archive/zip-adapter.ts';
import type { FileSystem } from '../../adapters/fs/file-system.ts';
import { isFsError } from '../../adapters/fs/fs-error.ts';
import { dirname, join } from '../../adapters/fs/posix-path.ts';
import { WorkspaceError } from '../errors/workspace-error.ts';
import { makeFolders } from '../tree-ops/make-folders.ts';
import { stagingName } from '../tree-ops/staging-name.ts';
import { cannotExtract, planExtraction, type ExtractionPlan } from './extraction-plan.ts';
import { checkDeclaredSizes, checkEntryCount, type ZipCaps } from './zip-caps.ts';

export interface ExtractZipOptions {
  fs: FileSystem;
  zip: ZipAdapter;
  /** The context's `resolve`: a path's real path, refusing one outside the workspace. */
  resolve(path: string): Promise<string>;
  caps: ZipCaps;
  /** A real folder no entry may land in (the agents folder): such an entry refuses the archive. */
  excluded?: string;
}

/**
 * Extracts `bytes` (a zip archive) into `destination`, the real path of a folder inside the workspace
 * (made, with its parents, if missing). Returns every entry's absolute path, in archive order.
 */
export async function extractZip(bytes: Uint8Array, destination: string, options: ExtractZipOptions): Promise<string[]> {
  const { fs, caps } = options;
  const archive = await asBadInput(() => options.zip.open(bytes));
  try {
    checkEntryCount(archive.entryCount, caps);
    const entries = await asBadInput(() => archive.readEntries());
    checkEntryCount(entries.length, caps);
    checkDeclaredSizes(entries, caps);
    const plan = await planExtraction(entries, { fs, destination, resolve: options.resolve, excluded: options.excluded });

    const undoDestination = await makeFolders(fs, destination, (path) => path);
    // `.wsapi-zip-…`: random, so two extractions never share one; named like every staging entry, so a killed
    // daemon's is swept at the next start (core/tree-ops/staging-name.ts).
    const staging = stagingName(destination, 'zip');
    try {
      await fs.mkdir(staging);
      const staged = await stageFiles(fs, archive, plan, staging);
      await moveIntoPlace(fs, plan, staged);
    } catch (error) {
      await removeQuietly(fs, staging);
      await undoDestination();
      throw error;
    }
    await removeQuietly(fs, staging);
    return [...plan.extracted];
  } finally {
    archive.close();
  }
}

/** Inflates every file into `staging` (one file per entry, named by its index); returns their paths. */
async function stageFiles(fs: FileSystem, archive: ZipArchive, plan: ExtractionPlan, staging: string): Promise<string[]> {
  const staged: string[] = [];
  for (const [index, { entry }] of plan.files.entries()) {
    const path = join(staging, String(index));
    let source: ReadableStream<Uint8Array>;
    try {
      source = await archive.open(entry);
    } catch (error) {
      throw cannotExtract(entry.name, messageOf(error));
    }
    // A backend reports a failing source as its own write error (Node: `io`); the entry's own failure is
    // what the client must hear, so it is kept aside as it happens.
    let failure: WorkspaceError | undefined;
    try {
      await fs.writeStream(path, heldToDeclaredSize(entry, source, (error) => (failure = error)));
    } catch (error) {
      throw failure ?? error;
    }
    if (entry.mode !== undefined) await fs.chmod(path, entry.mode & 0o777); // no setuid, setgid or sticky bits
    staged.push(path);
  }
  return staged;
}

/**
 * The entry's bytes, counted by us whatever the adapter checks: never more than declared (the caps were
 * checked on the declared sizes, so they hold for the bytes written) and, at the end, exactly as many. Any
 * failure, ours or the adapter's, is reported to `onFailure` as the client's error before the stream errors.
 */
function heldToDeclaredSize(
  entry: ZipEntryInfo,
  source: ReadableStream<Uint8Array>,
  onFailure: (error: WorkspaceError) => void,
): ReadableStream<Uint8Array> {
  const reader = source.getReader();
  const declared = entry.uncompressedSize;
  let seen = 0;
  const fail = (controller: ReadableStreamDefaultController<Uint8Array>, reason: string) => {
    const error = cannotExtract(entry.name, reason);
    onFailure(error);
    controller.error(error);
    reader.cancel(error).catch(() => {});
  };
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        let next: ReadableStreamReadResult<Uint8Array>;
        try {
          next = await reader.read();
        } catch (error) {
          fail(controller, messageOf(error));
          return;
        }
        if (next.done) {
          if (seen === declared) controller.close();
          else fail(controller, `its data inflates to ${seen} bytes, not the declared ${declared}`);
          return;
        }
        seen += next.value.byteLength;
        if (seen > declared) fail(controller, `its data inflates past the declared ${declared} bytes`);
        else controller.enqueue(next.value);
      },
      cancel(reason) {
        return reader.cancel(reason);
      },
    },
    { highWaterMark: 0 },
  );
}

async function moveIntoPlace(fs: FileSystem, plan: ExtractionPlan, staged: readonly string[]): Promise<void> {
  for (const folder of plan.folders) await fs.mkdir(folder, { recursive: true });
  // The plan resolved every folder to its real path; one replaced by a link since would redirect the renames.
  for (const folder of new Set(plan.files.map((file) => dirname(file.target)))) {
    if ((await fs.realpath(folder)) !== folder) {
      throw new WorkspaceError('conflict', `the destination changed during extraction: ${folder}`, { path: folder });
    }
  }
  for (const [index, file] of plan.files.entries()) await fs.rename(staged[index]!, file.target, { overwrite: true });
}

/** The archive's own failures (not a zip, a malformed directory) are the client's bad input. */
async function asBadInput<T>(read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (error) {
    throw new WorkspaceError('bad-request', messageOf(error));
  }
}

async function removeQuietly(fs: FileSystem, path: string): Promise<void> {
  try {
    await fs.remove(path, { recursive: true });
  } catch (error) {
    if (!isFsError(error, 'not-found')) console.error(`workspace-api: could not remove the zip staging folder ${path}:`, error);
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
