import { describe, expect, it } from 'vitest';
import { resolveRepoScope } from '../../../core/projects/repo-scope.ts';
import { WorkspaceError } from '../../../core/errors/workspace-error.ts';
import { BACKENDS, treesFor } from '../../support/backends.ts';

describe.each(BACKENDS)('resolveRepoScope (%s)', (backend) => {
  const build = treesFor(backend);
  const seed = {
    'shop/.git/HEAD': '',
    'shop/vendor/lib/.git/HEAD': '', // inside a repo: discovery never lists it
    'group/web/.git': 'gitdir: /elsewhere\n', // a worktree's `.git` file
    'group/plain/': '',
    'a/b/c/d/.git/HEAD': '',
    'a/b/c/d/e/.git/HEAD': '',
    'public/x/.git/HEAD': '', // reserved top-level name: no ids below it
    'notes.txt': 'n',
    'group/linked-repo': { link: '../shop' },
  };
  const refusal = async (t: Awaited<ReturnType<typeof build>>, repo: string) => {
    try {
      await resolveRepoScope(t.fs, t.root, repo);
    } catch (error) {
      if (error instanceof WorkspaceError) return { code: error.code, message: error.message };
      throw error;
    }
    throw new Error(`"${repo}" resolved`);
  };

  it('root, a top-level folder (repo or not) and a repo id', async () => {
    const t = await build({ ...seed, linked: { link: '$OUTSIDE' } });
    expect(await resolveRepoScope(t.fs, t.root, 'root')).toEqual({ id: 'root', dir: t.root, relative: '' });
    expect(await resolveRepoScope(t.fs, t.root, 'shop')).toEqual({ id: 'shop', dir: `${t.root}/shop`, relative: 'shop' });
    expect(await resolveRepoScope(t.fs, t.root, 'group')).toEqual({ id: 'group', dir: `${t.root}/group`, relative: 'group' });
    expect(await resolveRepoScope(t.fs, t.root, 'public')).toEqual({ id: 'public', dir: `${t.root}/public`, relative: 'public' });
    expect(await resolveRepoScope(t.fs, t.root, 'group/web')).toEqual({ id: 'group/web', dir: `${t.root}/group/web`, relative: 'group/web' });
    expect(await resolveRepoScope(t.fs, t.root, 'a/b/c/d')).toEqual({ id: 'a/b/c/d', dir: `${t.root}/a/b/c/d`, relative: 'a/b/c/d' });
  });

  it('a malformed segment is BAD_REQUEST naming the value', async () => {
    const t = await build(seed);
    for (const repo of ['', '.git', 'shop/', '/shop', 'shop//x', '../x', 'shop/..', '-x', 'a b', 'x\\y', 'ünï']) {
      expect(await refusal(t, repo)).toEqual({ code: 'bad-request', message: `invalid repo "${repo}"` });
    }
  });

  it('no such folder, a file, a link, a non-repo below the top, a repo inside a repo, too deep: NOT_FOUND naming it', async () => {
    const t = await build(seed);
    for (const repo of [
      'nope',
      'notes.txt',
      'group/plain',
      'group/linked-repo',
      'shop/vendor/lib',
      'a/b/c/d/e',
      'public/x',
      'node_modules',
      'group/nope',
    ]) {
      expect(await refusal(t, repo)).toEqual({ code: 'not-found', message: `no repo named "${repo}"` });
    }
  });
});
