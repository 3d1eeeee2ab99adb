import { z } from 'zod';
import type { FileStat, FileSystem } from '../../adapters/fs/file-system.ts';
import { isFsError } from '../../adapters/fs/fs-error.ts';
import { sha256OfFile } from '../../core/hashing/sha256-of-file.ts';
import { writeIfStill, type Pin } from '../../core/versions/write-if-still.ts';
import type { WorkspaceContext } from '../../runtime/context.ts';
import { jsonResponse } from '../../runtime/errors/render.ts';
import { WorkspaceError } from '../../core/errors/workspace-error.ts';
import { entityTag } from '../../runtime/http/entity-tag.ts';
import { parseQuery } from '../../runtime/validation.ts';
import { mutationScope } from '../shared/mutation-scope.ts';
import { servedAgent } from './served-file.ts';

export const uploadQuery = z.object({
  path: z.string({ error: 'missing path' }).min(1, 'missing path'),
  offset: z
    .string()
    .regex(/^\d+$/, 'offset must be a non-negative integer')
    .transform(Number)
    .refine(Number.isSafeInteger, 'offset is too large')
    .optional(),
  // A byte route: its agent is checked by the view, like raw's and media's ({error} with the id).
  agent: servedAgent,
});

const BASE_HASH_HEADER = 'x-intentic-base-hash';
const SHA256_HEX = /^[0-9a-f]{64}$/i;

/**
 * `POST /workspace/upload?path=[&offset=N][&agent=]` (Intentic's byte route; errors `{ "error" }`) → `{ok: true}`
 * with the new version as `ETag`. The body streams to disk, never buffered whole:
 * - no `offset`, or 0: it replaces the whole file atomically (temp file + rename), creating missing folders;
 * - `offset > 0`: it is written in place into the existing file (past its end, or a missing file: 400), so a
 *   large file arrives in parts;
 * - the cap (`maxUploadBytes`, 10 GiB) applies to `offset` + the body: a declared Content-Length over it is
 *   413 before a byte is read, and a chunked body is counted as it streams (413, nothing left behind);
 * - `x-intentic-base-hash: <sha256 hex of the text the client last read>` makes it conditional: a file that
 *   changed (hash mismatch) or was deleted since is 409 and nothing is written. The hash is taken on one
 *   version and the write commits only onto that version (core/versions/write-if-still.ts).
 */
export async function workspaceUpload(request: Request, ctx: WorkspaceContext): Promise<Response> {
  const body = watchedBody(request.body);
  try {
    return await upload(request, ctx, body);
  } catch (error) {
    await body.discard();
    if (body.failed()) throw new WorkspaceError('bad-request', 'the request body ended before it was complete');
    throw error;
  }
}

async function upload(request: Request, ctx: WorkspaceContext, body: WatchedBody): Promise<Response> {
  const { path, offset = 0, agent } = parseQuery(request, uploadQuery);
  const baseHash = parseBaseHash(request.headers.get(BASE_HASH_HEADER));
  const cap = ctx.limits.maxUploadBytes;
  const declared = declaredLength(request);
  if (offset > cap || (declared !== undefined && offset + declared > cap)) throw overCap(cap);
  if (/[/\\]$/.test(path)) throw new WorkspaceError('bad-request', 'path is a directory');
  const scope = await mutationScope(ctx, agent);
  const file = await scope.folder(path);
  const fs = scope.view.fs;
  const maxBytes = cap - offset;

  const commit = (pin: Pin): Promise<FileStat> =>
    offset > 0
      ? fs.writeAt(file, offset, body.stream, { maxBytes, ifVersion: pin.ifVersion })
      : fs.writeStream(file, body.stream, { mkdirs: true, maxBytes, ...pin });

  let written: FileStat;
  try {
    if (baseHash === undefined) {
      if (offset > 0) requirePartTarget(await partTarget(fs, file, offset), offset);
      written = await commit({});
    } else {
      written = await writeIfStill(fs, file, {
        check: async (current) => {
          // A file the client read and that is gone now is a conflict (409), whatever the offset.
          const reason = await baseHashMismatch(fs, file, current, baseHash);
          if (reason === undefined && offset > 0) requirePartTarget(current!, offset);
          return reason;
        },
        commit,
        // The body can be consumed only once: a file that changes between the hash and the commit is a
        // conflict, not a reason to hash again.
        attempts: 1,
        refuse: (reason) => new WorkspaceError('conflict', reason, { path }),
      });
    }
  } catch (error) {
    if (isFsError(error, 'too-large')) throw overCap(cap);
    if (isFsError(error, 'is-directory')) throw new WorkspaceError('bad-request', 'path is a directory');
    if (isFsError(error, 'not-directory')) throw new WorkspaceError('bad-request', 'a parent of path is not a directory');
    // A part's file removed or cut short between our check and the backend's own.
    if (offset > 0 && (isFsError(error, 'not-found') || isFsError(error, 'invalid'))) throw partTargetGone(offset);
    throw error;
  }
  return jsonResponse({ ok: true }, 200, { etag: entityTag(written.version) });
}

function parseBaseHash(header: string | null): string | undefined {
  if (header === null) return undefined;
  const value = header.trim();
  if (!SHA256_HEX.test(value)) {
    throw new WorkspaceError('bad-request', `${BASE_HASH_HEADER} must be a SHA-256 digest in hex (64 characters)`);
  }
  return value.toLowerCase();
}

/** Content-Length when the client declared one (the HTTP layer already holds the body to it). */
function declaredLength(request: Request): number | undefined {
  const header = request.headers.get('content-length');
  if (header === null || !/^\d+$/.test(header.trim())) return undefined;
  return Number(header.trim());
}

/** Why a base-hash upload must not land on `current` (undefined: the file is gone), or undefined to go ahead. */
async function baseHashMismatch(
  fs: FileSystem,
  file: string,
  current: FileStat | undefined,
  baseHash: string,
): Promise<string | undefined> {
  if (!current) return 'the file was deleted since it was read';
  if (current.type === 'dir') throw new WorkspaceError('bad-request', 'path is a directory');
  if (current.type !== 'file') throw new WorkspaceError('bad-request', 'not a regular file');
  const hash = await sha256OfFile(fs, file, current.size);
  return hash === baseHash ? undefined : 'the file changed since it was read';
}

/** The file a part lands in (a missing one is 400: docs/intentic.md#byte-routes). */
async function partTarget(fs: FileSystem, file: string, offset: number): Promise<FileStat> {
  try {
    return await fs.stat(file);
  } catch (error) {
    if (isFsError(error, 'not-found')) throw partTargetGone(offset);
    throw error;
  }
}

/** A part lands in a regular file, at or before its end (else 400). */
function requirePartTarget(stat: FileStat, offset: number): void {
  if (stat.type === 'dir') throw new WorkspaceError('bad-request', 'path is a directory');
  if (stat.type !== 'file') throw new WorkspaceError('bad-request', 'not a regular file');
  if (offset > stat.size) {
    throw new WorkspaceError('bad-request', `offset ${offset} is past the end of the file (${stat.size} bytes)`, {
      offset,
      size: stat.size,
    });
  }
}

function partTargetGone(offset: number): WorkspaceError {
  return new WorkspaceError('bad-request', `offset ${offset} needs an existing file at least that long`, { offset });
}

function overCap(cap: number): WorkspaceError {
  return new WorkspaceError('too-large', `upload exceeds the ${cap}-byte limit`, { limit: cap });
}

interface WatchedBody {
  readonly stream: ReadableStream<Uint8Array>;
  /** True when reading the request body itself failed (the client went away mid-upload). */
  failed(): boolean;
  /** Cancels the body if nothing has read it (a refusal before the write began). */
  discard(): Promise<void>;
}

/**
 * The request body (empty when absent) as the stream the backend reads, noting whether the body itself failed:
 * the backend reports that as an i/o error, but it is the client's doing, not the disk's.
 */
function watchedBody(source: ReadableStream<Uint8Array> | null): WatchedBody {
  let failed = false;
  const reader = source?.getReader();
  const stream = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        if (!reader) return controller.close();
        try {
          const { done, value } = await reader.read();
          if (done) controller.close();
          else controller.enqueue(value);
        } catch (error) {
          failed = true;
          controller.error(error);
        }
      },
      async cancel(reason) {
        await reader?.cancel(reason).catch(() => {});
      },
    },
    { highWaterMark: 0 },
  );
  return {
    stream,
    failed: () => failed,
    async discard() {
      if (!stream.locked) await stream.cancel().catch(() => {});
    },
  };
}
