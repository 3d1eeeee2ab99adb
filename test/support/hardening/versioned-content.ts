/**
 * Contents a reader can check on its own: every write of the kill-under-load harness is one whole version of one
 * file, `WSKILL <lineage> v<version> <marker> <length> <sha256 of the payload>\n` then the payload. A file on disk
 * either parses and its payload hashes to what its header says — wholly one version — or it is torn (short,
 * empty, or a mix of two versions: a header of one and bytes of another never hash right).
 *
 * The marker (`QZMARK_<lineage>_<version>Z`) is one searchable word per version; payloads never hold a `q`, so a
 * case-insensitive search for a marker finds headers only. Payloads are printable 80-byte lines (the text routes take
 * UTF-8 only), cut at a random place and length out of one seeded block, so making them costs nothing.
 */
import { createHash } from 'node:crypto';
import { seededRandom } from '../../core/text/generators.ts';

export const MARKER_PREFIX = 'QZMARK_';
/**
 * Lower-case letters without `q`, no spaces or digits: each payload line is one long word, which the search engine's
 * prose index passes over cheaply (random short words cost it most of a write's time and test nothing here).
 */
const PAYLOAD_ALPHABET = 'abcdefghijklmnoprstuvwxy';
const HEADER = /^WSKILL (\S+) v(\d+) (QZMARK_\S+) (\d+) ([0-9a-f]{64})\n/;

/** Seeded PRNG (mulberry32): the same seed gives the same run, the kill points aside. */
export { seededRandom };

export interface Version {
  lineage: string;
  version: number;
  marker: string;
  bytes: Uint8Array<ArrayBuffer>;
  sha256: string;
}

export class ContentFactory {
  readonly #block: Uint8Array;

  constructor(
    private readonly random: () => number,
    blockBytes = 2 * 1024 * 1024,
  ) {
    const block = new Uint8Array(blockBytes);
    for (let i = 0; i < blockBytes; i++) {
      block[i] = i % 80 === 79 ? 10 : PAYLOAD_ALPHABET.charCodeAt(Math.floor(random() * PAYLOAD_ALPHABET.length));
    }
    this.#block = block;
  }

  /** Version `version` of `lineage`, its payload `payloadBytes` long (at most half the block). */
  make(lineage: string, version: number, payloadBytes: number): Version {
    const length = Math.min(payloadBytes, this.#block.byteLength / 2);
    const start = Math.floor(this.random() * (this.#block.byteLength - length));
    const payload = this.#block.subarray(start, start + length);
    const marker = markerOf(lineage, version);
    const sha256 = sha256Hex(payload);
    const header = new TextEncoder().encode(`WSKILL ${lineage} v${version} ${marker} ${length} ${sha256}\n`);
    const bytes = new Uint8Array(header.byteLength + length);
    bytes.set(header);
    bytes.set(payload, header.byteLength);
    return { lineage, version, marker, bytes, sha256: sha256Hex(bytes) };
  }
}

/** `QZMARK_<lineage>_<version>Z`: the closing `Z` keeps version 1's marker from matching inside version 10's. */
export function markerOf(lineage: string, version: number): string {
  return `${MARKER_PREFIX}${lineage}_${version}Z`;
}

export type Parsed = { whole: true; lineage: string; version: number; marker: string; sha256: string } | { whole: false; reason: string };

/** What a file on disk holds: one whole version, or why it is not. */
export function parseContent(bytes: Uint8Array): Parsed {
  const head = new TextDecoder().decode(bytes.subarray(0, 300));
  const match = HEADER.exec(head);
  if (!match) return { whole: false, reason: bytes.byteLength === 0 ? 'empty' : 'no header' };
  const [line, lineage, version, marker, length, payloadSha] = match;
  const headerBytes = new TextEncoder().encode(line).byteLength;
  const payload = bytes.subarray(headerBytes);
  if (payload.byteLength !== Number(length)) return { whole: false, reason: `payload ${payload.byteLength} bytes, header says ${length}` };
  if (sha256Hex(payload) !== payloadSha) return { whole: false, reason: 'payload does not hash to its header (a mix)' };
  return { whole: true, lineage: lineage!, version: Number(version), marker: marker!, sha256: sha256Hex(bytes) };
}

export function sha256Hex(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}
