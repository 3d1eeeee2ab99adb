import { describe, expect, it } from 'vitest';
import type { FileSystem } from '../../../adapters/fs/file-system.ts';
import { FsError } from '../../../adapters/fs/fs-error.ts';
import { MemoryFileSystem } from '../../../adapters/fs/memory-file-system.ts';
import type { WorkspaceView } from '../../../core/agents/workspace-view.ts';
import { refuseAgentsFolder } from '../../../core/tree-ops/agents-folder-guard.ts';
import { copyEntry } from '../../../core/tree-ops/copy-entry.ts';
import { moveEntry } from '../../../core/tree-ops/move-entry.ts';
import { resolveInsideRoot } from '../../../core/paths/resolve-inside-root.ts';
import { instrumented } from './faulty-file-system.ts';

function view(fs: FileSystem): WorkspaceView {
  return { fs, root: '/ws', agent: undefined, resolve: (p) => resolveInsideRoot(fs, '/ws', p), isShared: async () => true };
}

async function list(fs: FileSystem, folder: string): Promise<string[]> {
  return (await fs.readdir(folder)).map((e) => e.name).sort();
}

const caps = { maxEntries: 1000, maxBytes: 1_000_000 };

describe('copyEntry: all or nothing', () => {
  it('removes the staged copy and the folders it made when the final rename fails', async () => {
    const memory = new MemoryFileSystem({ '/ws/src/a.txt': 'a', '/ws/src/sub/b.txt': 'b' });
    const { fs, failOn } = instrumented(memory);
    failOn((method) => method === 'rename', new FsError('io', '/ws/x', 'io: disk trouble'));
    await expect(copyEntry(view(fs), '/ws/src', '/ws/new/deep/copy', caps)).rejects.toMatchObject({ code: 'io' });
    expect(await list(memory, '/ws')).toEqual(['src']);
  });

  it('removes the partial copy when copying itself fails', async () => {
    const memory = new MemoryFileSystem({ '/ws/src/a.txt': 'a' });
    const { fs, failOn } = instrumented(memory);
    // The backend wrote the staged folder, then failed (as the disk does when it fills up midway).
    failOn((method, args) => {
      if (method !== 'copy') return false;
      void memory.mkdir(args[1] as string);
      return true;
    }, new FsError('io', '/ws/x', 'io: ENOSPC'));
    await expect(copyEntry(view(fs), '/ws/src', '/ws/copy', caps)).rejects.toMatchObject({ code: 'io' });
    expect(await list(memory, '/ws')).toEqual(['src']);
  });

  it('reports a target that appeared during the copy as CONFLICT, and leaves that target alone', async () => {
    const memory = new MemoryFileSystem({ '/ws/src/a.txt': 'a' });
    const { fs, failOn } = instrumented(memory);
    failOn((method) => {
      if (method !== 'rename') return false;
      void memory.write('/ws/copy', 'someone else');
      return true;
    }, new FsError('exists', '/ws/copy'));
    await expect(copyEntry(view(fs), '/ws/src', '/ws/copy', caps)).rejects.toMatchObject({
      code: 'conflict',
      message: 'target already exists: copy',
    });
    expect(await list(memory, '/ws')).toEqual(['copy', 'src']);
    expect(new TextDecoder().decode(await memory.read('/ws/copy'))).toBe('someone else');
  });
});

describe('moveEntry', () => {
  it('removes the folders it made for the target when the rename fails', async () => {
    const memory = new MemoryFileSystem({ '/ws/a.txt': 'a', '/ws/keep/k.txt': 'k' });
    const { fs, failOn } = instrumented(memory);
    failOn((method) => method === 'rename', new FsError('io', '/ws/a.txt', 'io: EXDEV'));
    await expect(moveEntry(view(fs), '/ws/a.txt', '/ws/keep/new/deeper/a.txt')).rejects.toMatchObject({ code: 'io' });
    expect(await list(memory, '/ws')).toEqual(['a.txt', 'keep']);
    expect(await list(memory, '/ws/keep')).toEqual(['k.txt']);
  });
});

describe('refuseAgentsFolder', () => {
  const agents = '/ws/tools/agents';
  it('refuses the folder and anything inside it under both rules', () => {
    for (const rule of ['not-inside', 'not-inside-or-containing'] as const) {
      expect(() => refuseAgentsFolder('/ws/tools/agents', agents, rule, 'p')).toThrow('the agents folder');
      expect(() => refuseAgentsFolder('/ws/tools/agents/bob/x', agents, rule, 'p')).toThrow('the agents folder');
    }
  });
  it('refuses a folder that contains it only as a source', () => {
    expect(() => refuseAgentsFolder('/ws/tools', agents, 'not-inside-or-containing', 'tools')).toThrow(
      'contains the agents folder, which is not part of the workspace tree: tools',
    );
    expect(() => refuseAgentsFolder('/ws/tools', agents, 'not-inside', 'tools')).not.toThrow();
  });
  it('lets siblings and look-alike names through', () => {
    expect(() => refuseAgentsFolder('/ws/tools/agents-old', agents, 'not-inside-or-containing', 'x')).not.toThrow();
    expect(() => refuseAgentsFolder('/ws/tool', agents, 'not-inside-or-containing', 'x')).not.toThrow();
  });
});
