/**
 * The sweep's rule (adapters/fs/leftover-verdict.ts) on every kind of name, with the writer's state given: this is
 * where pid reuse is decided, which a test cannot stage with real processes.
 */
import { expect, it } from 'vitest';
import { parseLeftoverName, type LeftoverName } from '../../../adapters/fs/leftover-names.ts';
import { FOREIGN_AGE_MS, mayRemove, OLD_NAME_AGE_MS, type VerdictContext } from '../../../adapters/fs/leftover-verdict.ts';
import type { WriterState } from '../../../adapters/fs/writer-liveness.ts';

const NOW = 1_700_000_000_000;
const OWN_TAG = '0a1b2c3d';
const context = (state: WriterState): VerdictContext => ({ ownTag: OWN_TAG, nowMs: NOW, state: () => state });
const ours = (pid: number): LeftoverName => ({ kind: 'temp-file', pid, tag: OWN_TAG });

it('parses our names and nothing else', () => {
  expect(parseLeftoverName(`.wsapi-4242-${OWN_TAG}-0123456789abcdef.tmp`, 'file')).toEqual(ours(4242));
  expect(parseLeftoverName(`.wsapi-clone-my-repo-7-${OWN_TAG}-0123456789abcdef`, 'dir')).toEqual({ kind: 'staging-folder', pid: 7, tag: OWN_TAG });
  expect(parseLeftoverName('.wsapi-0123456789abcdef.tmp', 'file')).toEqual({ kind: 'temp-file', pid: undefined, tag: undefined });
  expect(parseLeftoverName('.wsapi-copy-0123456789abcdef', 'dir')?.pid).toBeUndefined();
  expect(parseLeftoverName('.wsapi-zip-0f1e2d3c-4b5a-6978-8a9b-0c1d2e3f4a5b', 'dir')?.kind).toBe('staging-folder');
  for (const name of ['.wsapi-notes.txt', '.wsapi-0123.tmp', '.wsapi-stuff', 'wsapi-0123456789abcdef.tmp', '.wsapi-0123456789abcdef.tmp.bak'])
    expect([parseLeftoverName(name, 'file'), parseLeftoverName(name, 'dir')]).toEqual([undefined, undefined]);
  // A temp file's name on a folder, a staging folder's on a file: not something we make.
  expect(parseLeftoverName(`.wsapi-4242-${OWN_TAG}-0123456789abcdef.tmp`, 'dir')).toBeUndefined();
  expect(parseLeftoverName(`.wsapi-copy-4242-${OWN_TAG}-0123456789abcdef`, 'file')).toBeUndefined();
});

it('removes a dead writer’s entry at once, whatever its age', () => {
  expect(mayRemove(ours(4242), NOW, context({ alive: false }))).toBe(true);
});

it('keeps a live writer’s entry, and removes one whose pid now runs a newer process', () => {
  const started = NOW - 60_000;
  expect(mayRemove(ours(4242), started + 5, context({ alive: true, startedAtMs: started }))).toBe(false); // changed after its writer started
  expect(mayRemove(ours(4242), started - 10_000, context({ alive: true, startedAtMs: started }))).toBe(true); // older than the process: reused pid
  expect(mayRemove(ours(4242), started - 1000, context({ alive: true, startedAtMs: started }))).toBe(false); // within the boot time's rounding: kept
  expect(mayRemove(ours(4242), NOW - 10 * OLD_NAME_AGE_MS, context({ alive: true }))).toBe(false); // no start time known: kept
});

it('leaves other namespaces’ and old names to age', () => {
  const foreign: LeftoverName = { kind: 'temp-file', pid: 4242, tag: 'ffffffff' };
  const old: LeftoverName = { kind: 'staging-folder', pid: undefined, tag: undefined };
  const dead = context({ alive: false });
  expect(mayRemove(foreign, NOW - OLD_NAME_AGE_MS * 2, dead)).toBe(false);
  expect(mayRemove(foreign, NOW - FOREIGN_AGE_MS - 1, dead)).toBe(true);
  expect(mayRemove(old, NOW - 60_000, dead)).toBe(false);
  expect(mayRemove(old, NOW - OLD_NAME_AGE_MS - 1, dead)).toBe(true);
});
