/**
 * The manifest: which shards make the index and the file table (path, size, version → id, flags). Lines of
 * JSON: a header line (format number, next id, shard names, row count), then the table in columns, a few
 * thousand values a line. Columns of primitives parse several times faster than one object per file, and lines
 * let a large table (78k files ≈ 7 MB) be written and read in slices that yield to the event loop. Anything that
 * does not parse as this format (damaged, foreign, older) is refused with CorruptIndexError, and the index is
 * rebuilt.
 */
import { CorruptIndexError } from './shard-format.ts';

export const MANIFEST_FORMAT = 2;

/** The file table, one array per field, row i being one file. */
export interface ManifestFiles {
  paths: string[];
  sizes: number[];
  versions: string[];
  ids: number[];
  flags: number[];
}

export interface Manifest extends ManifestFiles {
  nextId: number;
  shards: string[];
}

const COLUMNS = ['paths', 'sizes', 'versions', 'ids', 'flags'] as const;
const VALUES_PER_LINE = 4096;
const noPause = async () => {};

/** `pause` is awaited between lines (the index passes its event-loop yield). */
export async function encodeManifest(manifest: Manifest, pause: () => Promise<void> = noPause): Promise<Uint8Array> {
  const rows = manifest.paths.length;
  const lines = [JSON.stringify({ format: MANIFEST_FORMAT, nextId: manifest.nextId, shards: manifest.shards, rows })];
  for (const column of COLUMNS) {
    const values = manifest[column];
    if (values.length !== rows) throw new Error(`manifest column ${column} has ${values.length} rows, not ${rows}`);
    for (let at = 0; at < rows; at += VALUES_PER_LINE) {
      lines.push(JSON.stringify([column, values.slice(at, at + VALUES_PER_LINE)]));
      await pause();
    }
  }
  return new TextEncoder().encode(lines.join('\n') + '\n');
}

const isCount = (value: unknown): value is number => Number.isSafeInteger(value) && (value as number) >= 0;
const isString = (value: unknown): value is string => typeof value === 'string';

function parseLine(line: string): unknown {
  try {
    return JSON.parse(line);
  } catch {
    throw new CorruptIndexError('manifest line does not parse');
  }
}

export async function decodeManifest(bytes: Uint8Array, pause: () => Promise<void> = noPause): Promise<Manifest> {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new CorruptIndexError('manifest is not UTF-8');
  }
  if (!text.endsWith('\n')) throw new CorruptIndexError('manifest is cut short');
  const lines = text.slice(0, -1).split('\n');
  const head = parseLine(lines[0]!) as Record<string, unknown> | null;
  if (typeof head !== 'object' || head === null || Array.isArray(head)) throw new CorruptIndexError('manifest header');
  if (head.format !== MANIFEST_FORMAT) throw new CorruptIndexError('manifest format differs');
  const { nextId, shards, rows } = head;
  if (!isCount(nextId) || !isCount(rows) || !Array.isArray(shards) || !shards.every(isString)) {
    throw new CorruptIndexError('manifest header fields');
  }
  const checks: Record<(typeof COLUMNS)[number], (value: unknown) => boolean> = {
    paths: isString,
    sizes: isCount,
    versions: isString,
    ids: (id) => isCount(id) && id < nextId,
    flags: (flag) => isCount(flag) && flag < 8,
  };
  const table: ManifestFiles = { paths: [], sizes: [], versions: [], ids: [], flags: [] };
  for (let i = 1; i < lines.length; i++) {
    const line = parseLine(lines[i]!);
    if (!Array.isArray(line) || line.length !== 2 || !Array.isArray(line[1])) throw new CorruptIndexError('manifest line');
    const [column, values] = line as [string, unknown[]];
    if (!(COLUMNS as readonly string[]).includes(column)) throw new CorruptIndexError('manifest column');
    const key = column as (typeof COLUMNS)[number];
    const check = checks[key];
    for (const value of values) if (!check(value)) throw new CorruptIndexError(`manifest ${column} value`);
    (table[key] as unknown[]).push(...values);
    await pause();
  }
  for (const column of COLUMNS) if (table[column].length !== rows) throw new CorruptIndexError(`manifest ${column} rows`);
  return { nextId, shards: shards as string[], ...table };
}
