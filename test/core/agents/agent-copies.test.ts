import { execFileSync } from 'node:child_process';
import { lstat, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { FileSystem } from '../../../adapters/fs/file-system.ts';
import { MemoryFileSystem } from '../../../adapters/fs/memory-file-system.ts';
import { NodeFileSystem } from '../../../adapters/fs/node-file-system.ts';
import { GitWorktreeAdapter } from '../../../adapters/git/git-worktree-adapter.ts';
import { createAgentCopies, type AgentCopiesOptions } from '../../../core/agents/agent-copies.ts';
import type { AgentCopies } from '../../../core/agents/workspace-view.ts';
import { tempWorkspace, type TempWorkspace } from '../../support/workspace.ts';

const decoder = new TextDecoder();
const CAPS = { maxEntries: 10_000, maxBytes: 64 * 1024 * 1024 };

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@e', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@e' },
  }).trim();
}

function agentsOver(fs: FileSystem, root: string, extra: Partial<AgentCopiesOptions> = {}): AgentCopies {
  return createAgentCopies({
    fs,
    root: async () => root,
    configuredRoot: root,
    dir: `${root}/.agents`,
    copyCaps: CAPS,
    ...extra,
  });
}

async function text(fs: FileSystem, path: string): Promise<string> {
  return decoder.decode(await fs.read(path));
}

describe('agent copies in a git repository: worktrees', () => {
  let ws: TempWorkspace;
  afterEach(() => ws.cleanup());

  async function repository(): Promise<string> {
    ws = await tempWorkspace({
      'README.md': 'committed readme\n',
      'src/app.ts': 'committed app\n',
      '.gitignore': 'node_modules/\n',
    });
    git(ws.root, 'init', '-q', '-b', 'main');
    git(ws.root, 'add', '-A');
    git(ws.root, 'commit', '-q', '-m', 'initial');
    await writeFile(join(ws.root, 'notes.txt'), 'untracked notes\n');
    await mkdir(join(ws.root, 'node_modules/pkg'), { recursive: true });
    await writeFile(join(ws.root, 'node_modules/pkg/index.js'), 'pkg\n');
    return ws.root;
  }

  it('gives each agent a worktree on its own branch; untracked and ignored files fall back to the shared tree', async () => {
    const root = await repository();
    const fs = new NodeFileSystem();
    const agents = agentsOver(fs, root, { worktrees: new GitWorktreeAdapter() });
    await agents.create('a1');
    const copy = join(root, '.agents', 'a1');
    expect(git(copy, 'rev-parse', '--abbrev-ref', 'HEAD')).toBe('agent/a1');
    expect(git(root, 'worktree', 'list', '--porcelain')).toContain(`worktree ${copy}\n`);
    expect((await lstat(join(copy, '.git'))).isFile()).toBe(true);
    expect(JSON.parse(await readFile(join(root, '.agents/.state/a1.json'), 'utf8'))).toEqual({
      kind: 'worktree',
      base: '',
      branch: 'agent/a1',
    });
    // The agents folder is excluded locally, so the main worktree's status stays as it was.
    expect(git(root, 'status', '--porcelain')).toBe('?? notes.txt');

    const view = await agents.view('a1');
    expect(view.root).toBe(root);
    expect(await text(view.fs, await view.resolve('README.md'))).toBe('committed readme\n');
    expect(await view.isShared('README.md')).toBe(false);
    expect(await text(view.fs, await view.resolve('notes.txt'))).toBe('untracked notes\n');
    expect(await view.isShared('notes.txt')).toBe(true);
    expect(await view.isShared(join(root, 'node_modules/pkg/index.js'))).toBe(true);

    await view.fs.write(await view.resolve('src/app.ts'), 'agent app\n');
    await view.fs.remove(await view.resolve('notes.txt'));
    expect(await readFile(join(copy, 'src/app.ts'), 'utf8')).toBe('agent app\n');
    expect(await readFile(join(root, 'src/app.ts'), 'utf8')).toBe('committed app\n');
    expect(await readFile(join(root, 'notes.txt'), 'utf8')).toBe('untracked notes\n');
    // The whiteout lives beside the worktree: git sees the edit and nothing else.
    expect(git(copy, 'status', '--porcelain')).toBe('M src/app.ts');
    expect(JSON.parse(await readFile(join(root, '.agents/.state/a1.whiteouts.json'), 'utf8'))).toEqual(['notes.txt']);
    await expect(view.fs.stat(await view.resolve('notes.txt'))).rejects.toMatchObject({ code: 'not-found' });
  });

  it('agents are known across a restart, and removal deletes the worktree and a branch with no new commits', async () => {
    const root = await repository();
    const fs = new NodeFileSystem();
    const first = agentsOver(fs, root, { worktrees: new GitWorktreeAdapter() });
    await first.create('a1');
    const view = await first.view('a1');
    await view.fs.write(await view.resolve('src/app.ts'), 'agent app\n');
    await view.fs.remove(await view.resolve('notes.txt'));

    const restarted = agentsOver(fs, root, { worktrees: new GitWorktreeAdapter() });
    expect(await restarted.list()).toEqual(['a1']);
    const again = await restarted.view('a1');
    expect(await text(again.fs, join(root, 'src/app.ts'))).toBe('agent app\n');
    await expect(again.fs.stat(join(root, 'notes.txt'))).rejects.toMatchObject({ code: 'not-found' });
    await expect(restarted.create('a1')).rejects.toMatchObject({ code: 'conflict', message: 'agent already exists: a1' });

    await restarted.remove('a1');
    await expect(lstat(join(root, '.agents/a1'))).rejects.toMatchObject({ code: 'ENOENT' });
    expect(git(root, 'worktree', 'list', '--porcelain')).not.toContain('.agents/a1');
    expect(git(root, 'branch', '--list', 'agent/a1')).toBe('');
    expect(await restarted.list()).toEqual([]);
    await expect(restarted.view('a1')).rejects.toMatchObject({ code: 'not-found', message: 'unknown agent: a1' });
    await expect(restarted.remove('a1')).rejects.toMatchObject({ code: 'not-found' });
  });

  it("keeps a branch that holds the agent's commits, and an agent made again under that id resumes it", async () => {
    const root = await repository();
    const agents = agentsOver(new NodeFileSystem(), root, { worktrees: new GitWorktreeAdapter() });
    await agents.create('a2');
    const copy = join(root, '.agents', 'a2');
    await writeFile(join(copy, 'feature.ts'), 'feature\n');
    git(copy, 'add', 'feature.ts');
    git(copy, 'commit', '-q', '-m', 'feature');
    await writeFile(join(copy, 'scratch.txt'), 'uncommitted\n');
    await agents.remove('a2');
    expect(git(root, 'branch', '--list', 'agent/a2')).toBe('agent/a2');
    await agents.create('a2');
    expect(await readFile(join(copy, 'feature.ts'), 'utf8')).toBe('feature\n');
    await expect(lstat(join(copy, 'scratch.txt'))).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('a root below the top of its repository maps onto the same folder inside the worktree', async () => {
    ws = await tempWorkspace({ 'packages/app/index.ts': 'committed index\n', 'top.txt': 'top\n' });
    git(ws.root, 'init', '-q', '-b', 'main');
    git(ws.root, 'add', '-A');
    git(ws.root, 'commit', '-q', '-m', 'initial');
    const root = join(ws.root, 'packages/app');
    const agents = agentsOver(new NodeFileSystem(), root, { worktrees: new GitWorktreeAdapter() });
    await agents.create('a3');
    const view = await agents.view('a3');
    await view.fs.write(join(root, 'index.ts'), 'agent index\n');
    expect(await readFile(join(root, '.agents/a3/packages/app/index.ts'), 'utf8')).toBe('agent index\n');
    expect(await readFile(join(root, 'index.ts'), 'utf8')).toBe('committed index\n');
    expect((await view.fs.readdir(root)).map((e) => e.name).sort()).toEqual(['index.ts']);
    expect(git(ws.root, 'status', '--porcelain')).toBe('');
  });

  it('a repository without a commit gets a plain copy', async () => {
    ws = await tempWorkspace({ 'a.txt': 'a\n' });
    git(ws.root, 'init', '-q');
    const agents = agentsOver(new NodeFileSystem(), ws.root, { worktrees: new GitWorktreeAdapter() });
    await agents.create('p1');
    expect(JSON.parse(await readFile(join(ws.root, '.agents/.state/p1.json'), 'utf8'))).toEqual({ kind: 'copy', base: '' });
    expect(await readFile(join(ws.root, '.agents/p1/a.txt'), 'utf8')).toBe('a\n');
    await expect(lstat(join(ws.root, '.agents/p1/.git'))).rejects.toMatchObject({ code: 'ENOENT' });
  });
});

describe('agent copies without git: plain copies (memory)', () => {
  const seeded = () =>
    new MemoryFileSystem({
      '/ws/README.md': 'readme',
      '/ws/src/app.ts': 'app',
      '/ws/.gitignore': 'build/\n*.log\n',
      '/ws/build/out.js': 'built',
      '/ws/debug.log': 'log',
      '/ws/node_modules/pkg/index.js': 'pkg',
      '/ws/.git/HEAD': 'ref: refs/heads/main',
      '/ws/venv/pyvenv.cfg': 'home = /usr',
      '/ws/venv/lib/site.py': 'site',
    });

  it('copies what is not ignored; links stay links; the agents folder is never copied into itself', async () => {
    const fs = seeded();
    await fs.symlink('src/app.ts', '/ws/app-link');
    const agents = agentsOver(fs, '/ws');
    await agents.create('c1');
    await agents.create('c2');
    const names = async (path: string) => (await fs.readdir(path)).map((e) => e.name).sort();
    expect(await names('/ws/.agents/c2')).toEqual(['.gitignore', 'README.md', 'app-link', 'src']);
    expect(await fs.readlink('/ws/.agents/c2/app-link')).toBe('src/app.ts');
    expect(await names('/ws/.agents')).toEqual(['.state', 'c1', 'c2']);
    const view = await agents.view('c2');
    expect(await text(view.fs, '/ws/build/out.js')).toBe('built');
    expect(await view.isShared('build/out.js')).toBe(true);
    expect(await view.isShared('README.md')).toBe(false);
    expect((await view.fs.readdir('/ws')).map((e) => e.name).sort()).toEqual([
      '.git', '.gitignore', 'README.md', 'app-link', 'build', 'debug.log', 'node_modules', 'src', 'venv',
    ]);
  });

  it('refuses a tree past the byte cap before writing anything', async () => {
    const fs = seeded();
    const agents = agentsOver(fs, '/ws', { copyCaps: { maxEntries: 100, maxBytes: 10 } });
    await expect(agents.create('c1')).rejects.toMatchObject({ code: 'too-large', status: 413 });
    expect((await fs.readdir('/ws/.agents')).map((e) => e.name)).toEqual(['.state']);
    await expect(agents.view('c1')).rejects.toMatchObject({ code: 'not-found' });
  });

  it('two creates of one id at once: one copy, one CONFLICT', async () => {
    const agents = agentsOver(seeded(), '/ws');
    const results = await Promise.allSettled([agents.create('same'), agents.create('same')]);
    expect(results.map((r) => r.status).sort()).toEqual(['fulfilled', 'rejected']);
    expect(results.find((r) => r.status === 'rejected')).toMatchObject({ reason: { code: 'conflict' } });
    expect(await agents.list()).toEqual(['same']);
  });

  it('an agents folder outside the root works the same, and ids are checked before anything', async () => {
    const fs = seeded();
    const agents = createAgentCopies({ fs, root: async () => '/ws', configuredRoot: '/ws', dir: '/copies', copyCaps: CAPS });
    await agents.create('o1');
    expect(agents.dir).toBe('/copies');
    const view = await agents.view('o1');
    await view.fs.write('/ws/README.md', 'mine');
    expect(await text(fs, '/copies/o1/README.md')).toBe('mine');
    expect(await text(fs, '/ws/README.md')).toBe('readme');
    await expect(agents.view('../o1')).rejects.toMatchObject({ code: 'bad-request', status: 400 });
    await expect(agents.create('')).rejects.toMatchObject({ code: 'bad-request' });
  });
});

describe("a view's changes", () => {
  it('the shared view drops the agents folder; an agent view maps its copy to the root and drops what it shadows', async () => {
    const fs = new MemoryFileSystem({ '/ws/shared.txt': 's', '/ws/both.txt': 'b', '/ws/gone.txt': 'g' });
    const agents = agentsOver(fs, '/ws');
    await agents.create('a1');
    const shared = await agents.view(undefined);
    expect(await shared.mapChange!({ absolutePath: '/ws/.agents/a1/both.txt', version: '1' })).toBeUndefined();
    expect(await shared.mapChange!({ absolutePath: '/ws/both.txt', version: '1' })).toEqual({ absolutePath: '/ws/both.txt', version: '1' });

    const view = await agents.view('a1');
    await view.fs.remove('/ws/gone.txt');
    await fs.write('/ws/late.txt', 'new in the shared tree');
    const map = view.mapChange!;
    expect(await map({ absolutePath: '/ws/.agents/a1/both.txt', version: '7' })).toEqual({ absolutePath: '/ws/both.txt', version: '7' });
    expect(await map({ absolutePath: '/ws/.agents/a1', version: '7' })).toEqual({ absolutePath: '/ws', version: '7' });
    expect(await map({ absolutePath: '/ws/both.txt', version: '8' })).toBeUndefined(); // the agent has its own copy
    expect(await map({ absolutePath: '/ws/late.txt', version: '9' })).toEqual({ absolutePath: '/ws/late.txt', version: '9' });
    expect(await map({ absolutePath: '/ws/gone.txt', version: '9' })).toBeUndefined(); // the agent removed it
    expect(await map({ absolutePath: '/ws/vanished.txt', absent: true })).toEqual({ absolutePath: '/ws/vanished.txt', absent: true });
    expect(await map({ absolutePath: '/ws/.agents/other/x', version: '1' })).toBeUndefined();
    expect(await map({ absolutePath: '/ws/.agents/.state/a1.whiteouts.json', version: '1' })).toBeUndefined();
  });
});
