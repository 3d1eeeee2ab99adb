/**
 * Whether a file's raw bytes hold the literals every match of a query needs (./required-literals.ts): each
 * clause has an alternative somewhere in the file. Nothing is decoded and no line is split, so the answer is a
 * superset of what any line matcher built from the same query finds — `find`'s, and `search_in_files`' own, which
 * keeps a byte order mark in line 1 and matches a folder's files as they are (docs/noide-protocol.md#search_in_files):
 * a required string never holds U+FFFD, so wherever lenient decoding shows it, the bytes hold its UTF-8 encoding;
 * case-insensitive needles are cut to what folds by ASCII rules alone (./byte-prefilter.ts).
 */
import { bytePrefilter } from './byte-prefilter.ts';
import type { CompiledFind } from './find-query.ts';

/** The test, or undefined when the query needs no literal (every file may match: nothing to rule out). */
export function holdsRequiredTest(compiled: Pick<CompiledFind, 'required' | 'caseSensitive'>): ((bytes: Uint8Array) => boolean) | undefined {
  const prefilter = bytePrefilter(compiled.required, compiled.caseSensitive);
  if (prefilter === undefined) return undefined;
  return (bytes) => prefilter.fileMayMatch(bytes, bytes.length) && prefilter.candidates(bytes, bytes.length).next(0) >= 0;
}
