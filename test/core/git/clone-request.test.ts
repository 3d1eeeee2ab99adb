import { describe, expect, it } from 'vitest';
import { checkCloneUrl, checkRepoName } from '../../../core/git/clone-request.ts';

const reasonOf = (fn: () => unknown) => {
  try {
    fn();
    return 'accepted';
  } catch (error) {
    return `${(error as { code?: string }).code}: ${(error as Error).message}`;
  }
};

describe('checkRepoName', () => {
  it('takes one folder name that discovery lists', () => {
    for (const name of ['web', 'Web2', 'my-app', 'a.b_c', '9lives']) expect(checkRepoName(name)).toBe(name);
  });

  it('refuses paths, options, hidden and odd names, and the reserved ones', () => {
    const refused = ['', '.', '..', 'a/b', '../x', '-x', '--upload-pack=x', '.hidden', '_x', 'a b', 'a\nb', 'é', 'node_modules', 'dist',
      'intent', 'desired-state', 'app', 'root', 'refs', 'public'];
    for (const name of refused) expect(reasonOf(() => checkRepoName(name)), JSON.stringify(name)).toBe('bad-request: invalid or reserved repo name');
  });
});

describe('checkCloneUrl', () => {
  it('takes the four remote schemes and scp-like ssh addresses (trimmed)', () => {
    for (const url of [
      'https://github.com/org/repo.git',
      'http://127.0.0.1:8080/repo.git',
      'ssh://git@example.com:2222/org/repo.git',
      'git://example.com/repo.git',
      'git@github.com:org/repo.git',
      'example.com:repo',
      'HTTPS://EXAMPLE.COM/R',
    ]) expect(checkCloneUrl(`  ${url} `)).toBe(url);
  });

  it('refuses local paths, file://, ext:: and other transports, options and control characters', () => {
    const message = 'bad-request: unsupported clone URL: use https://, http://, ssh://, git:// or [user@]host:path (local paths, file:// and ext:: are refused)';
    for (const url of [
      '', '/srv/repo.git', './repo', '../repo', 'repo', 'file:///srv/repo.git', 'FILE:///x', 'ext::sh -c touch% /tmp/pwned',
      'ext::ssh', 'fd::3', '-uhttps://x', '--upload-pack=touch /tmp/x', 'https://', 'ftp://example.com/r.git',
      'https://example.com/r\n.git', 'git@host:repo\u0000', 'host::path', 'C:\\repo', 'rsync://host/r',
    ]) expect(reasonOf(() => checkCloneUrl(url)), JSON.stringify(url)).toBe(message);
  });
});
