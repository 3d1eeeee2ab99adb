/**
 * The escape oracle: what must hold after every batch of hostile requests.
 *
 * 1. No answer (HTTP body, `/ws` frame) holds the marker — plain, or base64 inside a JSON string (byte reads
 *    answer base64) — the marker lives only in the outside folder's file contents and in one outside file's name.
 * 2. Everything outside the root is as it was (the outside folder, the root's parent, the decoy paths): a snapshot
 *    before and after, lstat-based, so a link created out there shows too.
 * 3. No file inside the root holds the marker (a copy or move that read an outside file into the root).
 *
 * Statuses and refusal shapes are judged per answer by the runner (./path-fuzz-run.ts).
 */

/** A tree as text: relPath → `<dir>`, `-> link text`, or the file's bytes as latin1. */
export type Snapshot = Record<string, string>;

/** What the oracle reads a tree through: node:fs for the disk, the FileSystem for memory and the Durable Object. */
export interface TreeReader {
  /** Entries of a folder (never following a link), or undefined when it does not exist. */
  list(path: string): Promise<{ name: string; type: 'file' | 'dir' | 'symlink' | 'other' }[] | undefined>;
  readlink(path: string): Promise<string>;
  read(path: string): Promise<Uint8Array>;
}

/** Everything under `folder`, skipping the absolute paths in `skip` (the root itself, when snapshotting around it). */
export async function snapshotTree(reader: TreeReader, folder: string, skip: ReadonlySet<string> = new Set()): Promise<Snapshot> {
  const out: Snapshot = {};
  async function walk(path: string, prefix: string): Promise<void> {
    const entries = await reader.list(path);
    if (entries === undefined) return;
    for (const { name, type } of entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
      const abs = path === '/' ? `/${name}` : `${path}/${name}`;
      if (skip.has(abs)) continue;
      const rel = prefix + name;
      if (type === 'symlink') out[rel] = `-> ${await reader.readlink(abs)}`;
      else if (type === 'dir') {
        out[rel] = '<dir>';
        await walk(abs, `${rel}/`);
      } else if (type === 'file') out[rel] = Buffer.from(await reader.read(abs)).toString('latin1');
      else out[rel] = '<special>';
    }
  }
  await walk(folder, '');
  return out;
}

/** The differences between two snapshots, as lines (`+ new`, `- gone`, `~ changed`). */
export function snapshotDiff(before: Snapshot, after: Snapshot): string[] {
  const lines: string[] = [];
  for (const key of Object.keys(after)) if (!(key in before)) lines.push(`+ ${key}`);
  for (const key of Object.keys(before)) {
    if (!(key in after)) lines.push(`- ${key}`);
    else if (before[key] !== after[key]) lines.push(`~ ${key}`);
  }
  return lines;
}

/** Finds the marker in bytes or text, plain or base64-encoded inside a JSON string. */
export class MarkerScanner {
  readonly #bytes: Buffer;

  constructor(readonly marker: string) {
    this.#bytes = Buffer.from(marker, 'latin1');
  }

  inBytes(bytes: Uint8Array): boolean {
    return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).includes(this.#bytes);
  }

  /** `text` as sent (a JSON body, a `/ws` frame): the marker itself, or in any base64-looking string value. */
  inText(text: string): boolean {
    if (text.includes(this.marker)) return true;
    for (const match of text.matchAll(/"([A-Za-z0-9+/]{16,}={0,2})"/g)) {
      if (Buffer.from(match[1]!, 'base64').includes(this.#bytes)) return true;
    }
    return false;
  }

  /** Files (by relPath) of a snapshot whose name or content holds the marker. */
  inSnapshot(snapshot: Snapshot): string[] {
    return Object.entries(snapshot)
      .filter(([path, content]) => path.includes(this.marker) || content.includes(this.marker))
      .map(([path]) => path);
  }
}
