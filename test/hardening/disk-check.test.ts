/**
 * The kill harness's disk check (test/support/hardening/disk-check.ts) is sharp: on a folder staged by hand it
 * finds each kind of damage a broken write path could leave — a torn file, a mix of two versions, an
 * acknowledged write rolled back or lost, a move at both names, half a copy, a stray file, a temp leftover — and
 * passes a folder that is as the ledger allows.
 */
import { mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { checkDisk, problemsOf } from '../support/hardening/disk-check.ts';
import { ContentFactory, seededRandom, type Version } from '../support/hardening/versioned-content.ts';
import { ABSENT, WriteLedger } from '../support/hardening/write-ledger.ts';

let root: string;
const factory = new ContentFactory(seededRandom(1), 64 * 1024);

beforeEach(async () => {
  root = await realpath(await mkdtemp(join(tmpdir(), 'disk-check-')));
});

afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

async function put(path: string, bytes: Uint8Array): Promise<void> {
  await mkdir(dirname(join(root, path)), { recursive: true });
  await writeFile(join(root, path), bytes);
}

function version(ledger: WriteLedger, lineage: string, number: number): Version & { key: string } {
  const made = factory.make(lineage, number, 1000 + number);
  const key = WriteLedger.key(lineage, number);
  ledger.record(key, made.sha256);
  return { ...made, key };
}

it('passes a folder as the ledger allows: an acknowledged version, or one sent after it', async () => {
  const ledger = new WriteLedger();
  const [v1, v2] = [version(ledger, 'f1', 1), version(ledger, 'f1', 2)];
  ledger.acknowledge('f1.txt', v1.key);
  ledger.attempt('f1.txt', v2.key); // in flight at the kill
  await put('f1.txt', v2.bytes);
  ledger.attempt('never.txt', version(ledger, 'n', 1).key); // never acknowledged, never landed
  const check = await checkDisk(root, ledger);
  expect(problemsOf(check)).toEqual([]);
  expect(check.markers.get('f1.txt')).toBe(v2.marker);
  expect([...ledger.statesOf('f1.txt')]).toEqual([v2.key]); // what the disk showed is the truth from now on
  expect([...ledger.statesOf('never.txt')]).toEqual([ABSENT]);
});

it('finds torn, mixed, rolled-back, lost, split, partial, stray and leftover entries', async () => {
  const ledger = new WriteLedger();
  const [a1, a2] = [version(ledger, 'a', 1), version(ledger, 'a', 2)];
  ledger.acknowledge('torn.txt', a1.key);
  await put('torn.txt', a1.bytes.subarray(0, a1.bytes.byteLength - 10));
  ledger.acknowledge('mixed.txt', a2.key);
  await put('mixed.txt', new Uint8Array([...a2.bytes.subarray(0, 200), ...a1.bytes.subarray(200)]));
  ledger.acknowledge('rolled-back.txt', a2.key);
  await put('rolled-back.txt', a1.bytes);
  ledger.acknowledge('lost.txt', a1.key);
  const m = version(ledger, 'm', 1);
  ledger.acknowledge('from.txt', m.key);
  ledger.statesOf('from.txt').add(ABSENT);
  ledger.attempt('to.txt', m.key);
  ledger.moves.push({ from: 'from.txt', to: 'to.txt', acknowledged: false });
  await put('from.txt', m.bytes);
  await put('to.txt', m.bytes);
  const [c1, c2] = [version(ledger, 'c1', 1), version(ledger, 'c2', 1)];
  ledger.attempt('copy/a.txt', c1.key);
  ledger.attempt('copy/b.txt', c2.key);
  ledger.copies.push({ files: ['copy/a.txt', 'copy/b.txt'], acknowledged: false });
  await put('copy/a.txt', c1.bytes);
  await put('stray.txt', a1.bytes);
  await put('sub/.wsapi-123-0a1b2c3d-0123456789abcdef.tmp', a2.bytes);

  const check = await checkDisk(root, ledger);

  expect(check.torn.map((line) => line.split(':')[0]).sort()).toEqual(['mixed.txt', 'torn.txt']);
  expect(check.wrongVersion.map((line) => line.split(':')[0])).toEqual(['rolled-back.txt']);
  expect(check.lost.map((line) => line.split(':')[0])).toEqual(['lost.txt']);
  expect(check.splitMoves).toEqual(['from.txt → to.txt: at both']);
  expect(check.partialCopies).toHaveLength(1);
  expect(check.unknown).toEqual(['stray.txt']);
  expect(check.leftovers).toEqual(['sub/.wsapi-123-0a1b2c3d-0123456789abcdef.tmp']);
});
