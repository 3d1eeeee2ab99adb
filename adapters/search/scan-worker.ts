/**
 * A scan-pool worker (./scan-pool.ts): reads each file of a batch with synchronous node:fs calls into one
 * reused buffer and runs core/search/text's matcher on the raw bytes (which decodes only candidate lines).
 * Synchronous reads are the fast path here: a worker has nothing else to do, and each async read would cost a
 * libuv thread-pool round trip per file.
 *
 * Opened with O_NOFOLLOW (a file swapped for a link since the listing is not followed out of the workspace) and
 * O_NONBLOCK (a FIFO swapped in cannot block the open). At most MAX_SEARCHED_FILE_BYTES + 1 bytes are read: one
 * byte past the cap tells a file that grew over it. A file that cannot be opened or read is skipped.
 */
import { closeSync, constants, openSync, readSync } from 'node:fs';
import { parentPort } from 'node:worker_threads';
import { MAX_SEARCHED_FILE_BYTES } from '../../core/search/answer.ts';
import { compileFind, type CompiledFind, type FileTextMatch } from '../../core/search/text/find-query.ts';
import { holdsRequiredTest } from '../../core/search/text/holds-required.ts';
import { landedInside } from '../fs/node-confinement.ts';
import type { ScanBatchMessage, ScanReplyMessage } from './scan-messages.ts';

const OPEN_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;
const LIMIT = MAX_SEARCHED_FILE_BYTES + 1;

let buffer = Buffer.allocUnsafe(256 * 1024);
/** The compiled query of the latest scan: batches of one scan arrive in a row. */
let compiled: { scan: number; find: CompiledFind; holds: ((bytes: Uint8Array) => boolean) | undefined } | undefined;

/** The file's bytes (a view of the shared buffer, valid until the next read), or undefined to skip it. */
function readFile(path: string, within: string | undefined): Uint8Array | undefined {
  let fd: number;
  try {
    fd = openSync(path, OPEN_FLAGS);
  } catch {
    return undefined;
  }
  try {
    // O_NOFOLLOW guards the last name only: a folder on the way swapped for a link out leads elsewhere.
    if (within !== undefined && !landedInside(fd, within)) return undefined;
    let length = 0;
    for (;;) {
      if (length === buffer.length) {
        if (length >= LIMIT) return undefined; // over the cap
        const grown = Buffer.allocUnsafe(Math.min(LIMIT, buffer.length * 2));
        buffer.copy(grown, 0, 0, length);
        buffer = grown;
      }
      const read = readSync(fd, buffer, length, buffer.length - length, null);
      if (read === 0) break;
      length += read;
    }
    return length > MAX_SEARCHED_FILE_BYTES ? undefined : buffer.subarray(0, length);
  } catch {
    return undefined; // a folder, a vanished file, an I/O error: nothing to match
  } finally {
    closeSync(fd);
  }
}

parentPort!.on('message', (batch: ScanBatchMessage) => {
  let reply: ScanReplyMessage;
  try {
    if (compiled?.scan !== batch.scan) {
      const find = compileFind(batch.query);
      compiled = { scan: batch.scan, find, holds: holdsRequiredTest(find) };
    }
    const results: [number, FileTextMatch][] = [];
    const ruledOut: number[] = [];
    const holds = compiled.holds;
    for (const [index, path] of batch.files) {
      const bytes = readFile(path, batch.within);
      if (batch.kind === 'rule-out') {
        // A file not read whole is not ruled out: whoever asked reads it.
        if (bytes !== undefined && holds !== undefined && !holds(bytes)) ruledOut.push(index);
        continue;
      }
      const match = bytes === undefined ? null : compiled.find.matchBytes(bytes);
      if (match !== null) results.push([index, match]);
    }
    reply = { scan: batch.scan, ok: true, results, ...(batch.kind === 'rule-out' ? { ruledOut } : {}) };
  } catch (error) {
    reply = { scan: batch.scan, ok: false, message: error instanceof Error ? error.message : String(error) };
  }
  parentPort!.postMessage(reply);
});
