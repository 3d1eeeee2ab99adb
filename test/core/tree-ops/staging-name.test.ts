/**
 * Staging names carry the writer's identity once the Node file system is loaded (it sets it:
 * adapters/fs/node-writer-identity.ts), so the start-up sweep can tell whose they are; the sweep's parser reads
 * back the pid they were made with.
 */
import { expect, it } from 'vitest';
import '../../../adapters/fs/node-file-system.ts';
import { parseLeftoverName } from '../../../adapters/fs/leftover-names.ts';
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
