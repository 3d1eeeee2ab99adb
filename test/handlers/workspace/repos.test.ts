import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { MAX_FOLDERS } from '../../../core/git/discover-repos.ts';
import { intenticClient } from '../../support/intentic-contract.ts';
import { appOver, BACKENDS, buildTree, type BuiltTree, type Seed } from '../../support/backends.ts';

/** Repos by the rules of docs/intentic.md#repos, and the folders the walk must pass over. */
const SPEC: Seed = {
  '.git/HEAD': 'ref: refs/heads/main\n', // the root's own repo: never an id
  'alpha/.git/HEAD': 'ref: refs/heads/main\n',
  'alpha/nested/.git/HEAD': 'x', // inside a repo: not entered
  'Zeta/.git/': '', // sorted by UTF-16 units: before `alpha`
  'group/one/.git/': '',
  'group/two/.git': 'gitdir: ../../.git/worktrees/two\n', // a worktree's or submodule's .git file
  'group/public/.git/': '', // reserved only at the top level
  'group/plain/file.txt': 'no repo here',
  'a/b/c/d/.git/': '', // 4 segments: the deepest id
  'a/b/c/d2/e/.git/': '', // 5: too deep
  'root/.git/': '',
  'refs/.git/': '',
  'public/.git/': '',
  '.hidden/r/.git/': '',
  'node_modules/pkg/.git/': '',
  'dist/r/.git/': '',
  'sub/.venv/r/.git/': '',
  'bad name/.git/': '',
  '_under/.git/': '',
  '-dash/.git/': '',
  'ok.name_1-2/.git/': '',
  '.agents/a1/copy/.git/': '',
  'linked': { link: 'alpha' }, // a link to a repo is not a folder of the workspace
};

const EXPECTED = ['Zeta', 'a/b/c/d', 'alpha', 'group/one', 'group/public', 'group/two', 'ok.name_1-2'];

for (const backend of BACKENDS) {
  describe(`GET /workspace/repos (${backend})`, () => {
    let built: BuiltTree;
    afterEach(() => built.cleanup());

    it('lists every repo id by the discovery rules, sorted, through Intentic’s client', async () => {
      built = await buildTree(backend, SPEC);
      expect(await intenticClient(appOver(built)).workspace.repos({})).toEqual({ repos: EXPECTED });
    });

    it('an empty workspace, or one that is itself the only repo, has none', async () => {
      built = await buildTree(backend, { '.git/HEAD': 'x', 'src/a.ts': 'a' });
      expect(await intenticClient(appOver(built)).workspace.repos({})).toEqual({ repos: [] });
    });
  });
}

describe('GET /workspace/repos over real repositories', () => {
  let built: BuiltTree;
  afterEach(() => built.cleanup());

  it('finds a repo made by git init and a linked worktree of it, not the files inside them', async () => {
    built = await buildTree('node', { 'apps/web/README.md': 'web\n', 'notes.txt': 'n' });
    const web = join(built.root, 'apps/web');
    const git = (...args: string[]) => execFileSync('git', ['-C', web, ...args], { stdio: 'pipe', env: { ...process.env, GIT_CEILING_DIRECTORIES: built.root } });
    git('init', '-q', '-b', 'main');
    git('-c', 'user.name=t', '-c', 'user.email=t@e', 'commit', '-q', '--allow-empty', '-m', 'first');
    git('worktree', 'add', '-q', join(built.root, 'apps/web-feature'), '-b', 'feature');
    expect(await intenticClient(appOver(built)).workspace.repos({})).toEqual({ repos: ['apps/web', 'apps/web-feature'] });
  });

  it(`reads at most ${MAX_FOLDERS} folders: a repo only reachable past that is not found, and the call still answers`, async () => {
    const seed: Seed = { 'aaa/deep/.git/': '', 'zzz/deep/.git/': '' };
    for (let i = 0; i < MAX_FOLDERS; i++) seed[`m${String(i).padStart(5, '0')}/`] = '';
    built = await buildTree('memory', seed);
    // Breadth-first: the root, then aaa (its repo found), then the m folders fill the budget before zzz is read.
    expect(await intenticClient(appOver(built)).workspace.repos({})).toEqual({ repos: ['aaa/deep'] });
  });
});
