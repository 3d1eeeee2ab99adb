import { lastCharacterEnd } from '../../../../core/text/utf8.ts';

/** Command output is whatever bytes a program wrote: decoded lossily (U+FFFD per bad sequence), byte order mark kept. */
const lossyDecoder = new TextDecoder('utf-8', { ignoreBOM: true });

/** Marks output cut at the cap (docs/noide-protocol.md#run_command). */
export const TRUNCATION_MARK = '\n[output truncated]';

/**
 * `run_command`'s answer from the combined output bytes. Output cut at the cap loses a character the cut
 * went through rather than ending in a replacement character that the program never wrote.
 */
export function commandOutputText(output: Uint8Array, truncated: boolean): string {
  if (!truncated) return lossyDecoder.decode(output);
  return lossyDecoder.decode(output.subarray(0, lastCharacterEnd(output, 0, output.byteLength))) + TRUNCATION_MARK;
}
