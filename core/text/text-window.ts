/**
 * Intentic's `file` window (docs/intentic.md#file): a byte window of a text file, cut to whole lines and whole
 * characters, read without reading the rest of the file.
 */
import type { FileSystem } from '../../adapters/fs/file-system.ts';
import { WorkspaceError } from '../errors/workspace-error.ts';
import { NEWLINE } from './newlines.ts';
import { decodeText, firstCharacterStart, lastCharacterEnd } from './utf8.ts';

export interface TextWindowRequest {
  /** First byte; negative counts from the end (a tail read: size + offset, clamped at 0). Default 0. */
  offset?: number;
  /** Largest window in bytes (≥ 1); omitted or above `cap` means `cap`. */
  limit?: number;
}

export interface TextWindow {
  content: string;
  /** Where the served window starts: `offset + bytes` is where the next window starts. */
  offset: number;
  /** The served window's length in bytes. */
  bytes: number;
}

/**
 * Reads the window `request` asks for from the `size`-byte file at `path` and cuts it:
 * - a partial first line is dropped, unless the window starts at the file start or right after a newline;
 * - the end is cut back to just after the last newline, unless the window reaches the end of the file;
 * - a window holding no newline at all keeps its bytes: only a character cut at either edge is dropped.
 * Whole lines start and end on character boundaries, so only that last case needs the UTF-8 cut.
 *
 * Reads `[start - 1, end)`: the one byte before the window says whether it starts right after a newline.
 * An offset at or past the end gives an empty window at the end. `not-text` (415) when the served bytes are
 * not UTF-8 or hold a NUL byte: the content is exact or refused, never lossy, because an editor saves it back.
 */
export async function readTextWindow(
  fs: FileSystem,
  path: string,
  size: number,
  request: TextWindowRequest,
  cap: number,
): Promise<TextWindow> {
  const offset = request.offset ?? 0;
  const limit = Math.min(request.limit ?? cap, cap);
  const start = offset >= 0 ? Math.min(offset, size) : Math.max(0, size + offset);
  const end = Math.min(size, start + limit);
  if (start >= end) return { content: '', offset: start, bytes: 0 };

  const lead = start > 0 ? 1 : 0;
  const wanted = end - start + lead;
  const raw = await fs.read(path, { offset: start - lead, length: wanted });
  // A file that shrank since its stat ends where the read ended: that is its end now.
  const reachesEnd = end === size || raw.byteLength < wanted;
  if (raw.byteLength <= lead) return { content: '', offset: start - lead + raw.byteLength, bytes: 0 };
  const atLineStart = lead === 0 || raw[0] === NEWLINE;

  let from = lead;
  let to = raw.byteLength;
  const firstNewline = raw.indexOf(NEWLINE, from);
  if (firstNewline === -1) {
    if (!atLineStart) from = firstCharacterStart(raw, from, to);
    if (!reachesEnd) to = lastCharacterEnd(raw, from, to);
  } else {
    if (!atLineStart) from = firstNewline + 1;
    if (!reachesEnd) to = raw.lastIndexOf(NEWLINE, to - 1) + 1; // ≥ firstNewline + 1 ≥ from
  }

  const content = decodeText(raw.subarray(from, to));
  if (content === undefined) throw new WorkspaceError('not-text', 'file is not UTF-8 text');
  return { content, offset: start - lead + from, bytes: to - from };
}
