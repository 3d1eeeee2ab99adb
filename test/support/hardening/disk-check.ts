/**
 * Reads the whole workspace after a restart and holds it against the ledger (./write-ledger.ts): torn or mixed
 * files, versions a path may not show, acknowledged writes that are gone, moves found at both names or neither,
 * half copies, files nobody wrote, and any of our temp entries (`.wsapi-…`) the sweep should have removed. Links
 * are not followed (the harness makes none).
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseContent, sha256Hex } from './versioned-content.ts';
import { ABSENT, WriteLedger } from './write-ledger.ts';

export interface DiskCheck {
  /** Regular files on disk (our temp entries excluded). */
  files: number;
  /** path → the marker of the version it holds, for every whole file. */
  markers: Map<string, string>;
  /** Not wholly one version: `path: reason`. */
  torn: string[];
  /** Whole, but a version the path may not show (or bytes that differ from that version's). */
  wrongVersion: string[];
  /** Absent, though a write to it was acknowledged and nothing since could remove it. */
  lost: string[];
  /** Moves at both names or at neither; folder copies in part. */
  splitMoves: string[];
  partialCopies: string[];
  /** Files nobody wrote. */
  unknown: string[];
  /** Our temp files and staging folders. */
  leftovers: string[];
}

export async function checkDisk(root: string, ledger: WriteLedger): Promise<DiskCheck> {
  const check: DiskCheck = { files: 0, markers: new Map(), torn: [], wrongVersion: [], lost: [], splitMoves: [], partialCopies: [], unknown: [], leftovers: [] };
  const present = new Set<string>();
  const observed = new Map<string, string>();
  await walk(root, '', async (path, isLeftover) => {
    if (isLeftover) return void check.leftovers.push(path);
    check.files += 1;
    present.add(path);
    const states = ledger.possible.get(path);
    if (states === undefined) return void check.unknown.push(path);
    const bytes = await readFile(join(root, path));
    const parsed = parseContent(bytes);
    if (!parsed.whole) return void check.torn.push(`${path}: ${parsed.reason}`);
    const key = WriteLedger.key(parsed.lineage, parsed.version);
    if (!states.has(key) || ledger.hashes.get(key) !== sha256Hex(bytes)) {
      return void check.wrongVersion.push(`${path}: holds ${key}, may hold ${[...states].join(' | ')}`);
    }
    check.markers.set(path, parsed.marker);
    observed.set(path, key);
  });
  for (const [path, states] of ledger.possible) {
    if (!present.has(path) && !states.has(ABSENT)) check.lost.push(`${path}: absent, must hold ${[...states].join(' | ')}`);
  }
  for (const move of ledger.moves) {
    if (present.has(move.from) === present.has(move.to)) check.splitMoves.push(`${move.from} → ${move.to}: ${present.has(move.from) ? 'at both' : 'at neither'}`);
  }
  for (const copy of ledger.copies) {
    const found = copy.files.filter((path) => present.has(path)).length;
    if (found !== 0 && found !== copy.files.length) check.partialCopies.push(`${copy.files.join(', ')}: ${found} of ${copy.files.length}`);
  }
  // What the disk shows is the truth from now on: a version that did not land cannot turn up by the next check.
  for (const path of ledger.possible.keys()) ledger.observe(path, observed.get(path) ?? (present.has(path) ? [...ledger.statesOf(path)][0]! : ABSENT));
  return check;
}

/** Every regular file and every `.wsapi-` entry under `folder` (root-relative, `/`); leftovers are not entered. */
async function walk(root: string, folder: string, visit: (path: string, isLeftover: boolean) => Promise<void>): Promise<void> {
  for (const entry of await readdir(join(root, folder), { withFileTypes: true })) {
    const path = folder === '' ? entry.name : `${folder}/${entry.name}`;
    if (entry.name.startsWith('.wsapi-')) await visit(path, true);
    else if (entry.isDirectory()) await walk(root, path, visit);
    else if (entry.isFile()) await visit(path, false);
  }
}

/** Every problem the check found, one line each (empty: the disk is as the ledger allows). */
export function problemsOf(check: DiskCheck): string[] {
  return [
    ...check.torn.map((line) => `torn: ${line}`),
    ...check.wrongVersion.map((line) => `wrong version: ${line}`),
    ...check.lost.map((line) => `lost: ${line}`),
    ...check.splitMoves.map((line) => `split move: ${line}`),
    ...check.partialCopies.map((line) => `partial copy: ${line}`),
    ...check.unknown.map((line) => `unknown file: ${line}`),
    ...check.leftovers.map((line) => `leftover: ${line}`),
  ];
}
