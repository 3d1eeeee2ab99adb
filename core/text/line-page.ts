/**
 * workspace-files' `read`: one page of lines from a UTF-8 text file, streamed, so a page costs one page of memory
 * however large the file is, and one giant line fails `too-large` instead of being buffered whole.
 */
import { concatBytes } from '../../adapters/fs/concat-bytes.ts';
import type { FileSystem } from '../../adapters/fs/file-system.ts';
import { WorkspaceError } from '../errors/workspace-error.ts';
import { countNewlines, NEWLINE } from './newlines.ts';
import { decodeText, Utf8Validator } from './utf8.ts';

export interface LinePageRequest {
  /** The page's first line, 1-based. */
  offset: number;
  /** The most lines on the page (≥ 1). */
  limit: number;
  /** Inclusive cap on the page's text in bytes. */
  maxBytes: number;
}

export interface LinePage {
  /** The page's lines joined by `\n`, no terminator after the last; carriage returns kept. */
  text: string;
  /** How many lines the page holds (`a\nb\n\n` holds three; an empty page none). */
  lines: number;
  /** The page includes the file's last line (also: the page starts past the end). */
  eof: boolean;
}

/**
 * Lines end at `\n`, and a final `\n` ends the last line rather than starting an empty one. The lines before
 * the page are counted as they stream past and not kept; each piece of the page is admitted against the cap
 * before it is kept; the stream is cancelled at the first byte past the page (read only to learn `eof`).
 *
 * Failures in workspace-files' gate order: `too-large` ({limit}) when the page's text exceeds `maxBytes`, then
 * `not-text` when the file is not UTF-8 up to the end of the page or the page holds a NUL byte. Bytes past the
 * page are never inspected. `\n` never occurs inside a UTF-8 sequence, so lines are cut on bytes.
 */
export async function readLinePage(fs: FileSystem, path: string, request: LinePageRequest): Promise<LinePage> {
  const { limit, maxBytes } = request;
  const reader = (await fs.readStream(path)).getReader();
  const before = new Utf8Validator();
  let skip = request.offset - 1; // newlines still to pass before the page starts
  const parts: Uint8Array[] = [];
  let kept = 0;
  let endedLines = 0; // page lines whose `\n` we have seen
  let eof = false;
  try {
    page: for (;;) {
      const { done, value } = await reader.read();
      if (done) {
        eof = true;
        break;
      }
      let at = 0;
      if (skip > 0) {
        // A chunk wholly before the page is only counted; the one the page starts in is searched.
        const newlines = countNewlines(value);
        if (newlines < skip) {
          skip -= newlines;
          at = value.byteLength;
        } else {
          for (; skip > 0; skip--) at = value.indexOf(NEWLINE, at) + 1;
        }
      }
      before.push(at === value.byteLength ? value : value.subarray(0, at));
      while (at < value.byteLength) {
        if (endedLines === limit) break page; // a byte past the page: not the end of the file
        const newline = value.indexOf(NEWLINE, at);
        const pieceEnd = newline === -1 ? value.byteLength : newline + 1;
        // The kept bytes are the text plus at most one final `\n`: more than maxBytes + 1 can never fit.
        if (kept + (pieceEnd - at) > maxBytes + 1) throw tooLarge(maxBytes);
        parts.push(value.subarray(at, pieceEnd));
        kept += pieceEnd - at;
        if (newline !== -1) endedLines++;
        at = pieceEnd;
      }
    }
  } finally {
    // At the end of the stream this is a no-op; anywhere else it closes the file.
    await reader.cancel().catch(() => {});
  }

  const bytes = concatBytes(parts);
  const endsWithNewline = kept > 0 && bytes[kept - 1] === NEWLINE;
  const textBytes = endsWithNewline ? bytes.subarray(0, kept - 1) : bytes;
  if (textBytes.byteLength > maxBytes) throw tooLarge(maxBytes);
  const text = before.end() ? decodeText(textBytes) : undefined;
  if (text === undefined) throw new WorkspaceError('not-text', 'file is not UTF-8 text');
  return { text, lines: endedLines + (kept > 0 && !endsWithNewline ? 1 : 0), eof };
}

function tooLarge(maxBytes: number): WorkspaceError {
  return new WorkspaceError('too-large', `page is larger than ${maxBytes} bytes`, { limit: maxBytes });
}
