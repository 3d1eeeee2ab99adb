/**
 * Staging names carry the writer's identity once the Node file system is loaded (it sets it:
 * adapters/fs/node-writer-identity.ts), so the start-up sweep can tell whose they are; the sweep's parser reads
 * back the pid they were made with.
 */
import { expect, it } from 'vitest';
import '../../../adapters/fs/node-file-system.ts';
import { isWriteInFlight, parseLeftoverName } from '../../../adapters/fs/leftover-names.ts';
import { namespaceTag } from '../../../adapters/fs/node-writer-identity.ts';
import { stagingName } from '../../../core/tree-ops/staging-name.ts';

it('names a staging entry with this process’s pid and namespace tag, never twice the same', () => {
  const first = stagingName('/work/root/src', 'clone-my-repo');
  const second = stagingName('/work/root/src', 'clone-my-repo');
  const name = first.slice('/work/root/src/'.length);
  expect(name).toMatch(new RegExp(`^\\.wsapi-clone-my-repo-${process.pid}-${namespaceTag()}-[0-9a-f]{16}$`));
  expect(parseLeftoverName(name, 'dir')).toEqual({ kind: 'staging-folder', pid: process.pid, tag: namespaceTag() });
  expect(second).not.toBe(first);
});

it('a path is a write in flight when it names a staging folder, lies inside one, or names a temp file — and only then', () => {
  const staging = stagingName('/work/root/src', 'copy');
  expect(isWriteInFlight(staging)).toBe(true);
  expect(isWriteInFlight(`${staging}/deep/file.txt`)).toBe(true);
  expect(isWriteInFlight('src/.wsapi-4242-0badcafe-0123456789abcdef.tmp')).toBe(true);
  expect(isWriteInFlight('.wsapi-0123456789abcdef.tmp')).toBe(true);
  // A user's look-alikes, a temp-file name used as a folder, and our own test folders' names are not.
  expect(isWriteInFlight('/work/root/.wsapi-notes.txt')).toBe(false);
  expect(isWriteInFlight('/work/root/.wsapi-4242-0badcafe-0123456789abcdef.tmp/child')).toBe(false);
  expect(isWriteInFlight('/tmp/wsapi-Ab12Cd/src/a.ts')).toBe(false);
  expect(isWriteInFlight('/work/root/src/a.ts')).toBe(false);
});
