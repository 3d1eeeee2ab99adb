import { execFileSync } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import type { FileSystem } from '../../../adapters/fs/file-system.ts';
import { BACKENDS, createFixture, filesError, type Fixture, type FixtureOptions, type Seed } from '../../support/backends.ts';
import { withOverrides } from '../../support/with-overrides.ts';

const seed: Seed = {
  'b.txt': 'bee',
  'a.txt': 'a',
  '.hidden': 'dot',
  'Zed.md': 'zed!',
  'sub/inner.txt': 'inner',
  'sub/deeper/': '',
  'empty/': '',
  'link-to-file': { link: 'b.txt' },
  'link-to-dir': { link: 'sub' },
  'dangling': { link: 'nowhere' },
  'to-outside': { link: '$OUTSIDE/secret.txt' },
  'loop': { link: 'loop' },
  '.agents/someone/file.txt': 'agent copy',
};

/** Counts what the app asks of its FileSystem, to show the listing work is bounded. */
function countingCalls(inner: FileSystem) {
  const calls = { readdir: [] as { path: string; limit?: number }[], lstat: 0, stat: 0, realpath: 0 };
  const fs = withOverrides(inner, {
    readdir: (path: string, options?: { limit?: number }) => {
      calls.readdir.push({ path, ...(options?.limit !== undefined ? { limit: options.limit } : {}) });
      return inner.readdir(path, options);
    },
    lstat: (path: string) => (calls.lstat++, inner.lstat(path)),
    stat: (path: string) => (calls.stat++, inner.stat(path)),
    realpath: (path: string) => (calls.realpath++, inner.realpath(path)),
  });
  return { fs, calls };
}

describe.each(BACKENDS)('GET /workspace-files/list (%s)', (backend) => {
  let fx: Fixture;
  afterEach(() => fx.cleanup());
  const open = async (options: FixtureOptions = {}, extra: Seed = {}) => {
    fx = await createFixture(backend, { ...seed, ...extra }, options);
  };
  const list = (path: string, extra: Record<string, string> = {}) => fx.get('/workspace-files/list', { path, ...extra });

  it('lists the root as path "" in name order: dotfiles in, links as their targets, the agents folder out', async () => {
    await open();
    const res = await list('.');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      path: '',
      entries: [
        { name: '.hidden', type: 'file', size: 3 },
        { name: 'Zed.md', type: 'file', size: 4 },
        { name: 'a.txt', type: 'file', size: 1 },
        { name: 'b.txt', type: 'file', size: 3 },
        { name: 'dangling', type: 'other' },
        { name: 'empty', type: 'directory' },
        { name: 'link-to-dir', type: 'directory' },
        { name: 'link-to-file', type: 'file', size: 3 },
        { name: 'loop', type: 'other' },
        { name: 'sub', type: 'directory' },
        { name: 'to-outside', type: 'other' }, // outside the workspace: not ours to describe
      ],
      truncated: false,
    });
    expect((await list(fx.root)).body).toEqual(res.body);
  });

  it('reports a folder root-relative, also when reached by an absolute path or through a link', async () => {
    await open();
    const expected = {
      path: 'sub',
      entries: [
        { name: 'deeper', type: 'directory' },
        { name: 'inner.txt', type: 'file', size: 5 },
      ],
      truncated: false,
    };
    expect((await list('sub')).body).toEqual(expected);
    expect((await list('sub/')).body).toEqual(expected);
    expect((await list(`${fx.root}/sub`)).body).toEqual(expected);
    expect((await list('empty')).body).toEqual({ path: 'empty', entries: [], truncated: false });
  });

  it('cuts at maxEntries and says so; the agents folder takes no place', async () => {
    await open({ limits: { listMaxEntries: 11 } });
    expect((await list('.')).body).toMatchObject({ truncated: false });
    expect(((await list('.')).body as { entries: unknown[] }).entries).toHaveLength(11);
    await fx.fs.write(`${fx.root}/c.txt`, 'c');
    const cut = (await list('.')).body as { entries: { name: string }[]; truncated: boolean };
    expect(cut.truncated).toBe(true);
    expect(cut.entries).toHaveLength(11);
    const names = cut.entries.map((entry) => entry.name);
    expect(names).toEqual([...names].sort());
    expect(names).not.toContain('.agents');
  });

  it('bounds the work: asks the backend for maxEntries + 1 names and stats only what it returns', async () => {
    const many: Seed = {};
    for (let i = 0; i < 200; i++) many[`big/f${String(i).padStart(3, '0')}.txt`] = String(i);
    let counted!: ReturnType<typeof countingCalls>;
    await open(
      {
        limits: { listMaxEntries: 10 },
        wrap: (fs) => (counted = countingCalls(fs)).fs,
      },
      many,
    );
    const res = await list('big');
    expect(res.status).toBe(200);
    const body = res.body as { entries: { name: string; type: string; size: number }[]; truncated: boolean };
    expect(body.truncated).toBe(true);
    expect(body.entries).toHaveLength(10);
    for (const entry of body.entries) expect(entry).toEqual({ name: entry.name, type: 'file', size: Number(entry.name.slice(1, 4)).toString().length });
    expect(counted.calls.readdir).toEqual([{ path: `${fx.root}/big`, limit: 11 }]);
    expect(counted.calls.lstat).toBeLessThanOrEqual(10 + 1); // the entries kept, and the folder itself
    expect(counted.calls.stat).toBe(0);
  });

  it('runs the gates: a file or a link is not-directory with its kind, outside 403, missing 404', async () => {
    await open();
    const file = await list('a.txt');
    expect(file.status).toBe(409);
    expect(file.body).toEqual(filesError('workspace-file/not-directory', 'not a directory (file)', { path: 'a.txt', kind: 'file' }));
    const link = await list('link-to-dir');
    expect(link.status).toBe(409);
    expect(link.body).toEqual(filesError('workspace-file/not-directory', 'not a directory (symlink)', { path: 'link-to-dir', kind: 'symlink' }));
    for (const path of ['..', '/', fx.outside]) {
      const res = await list(path);
      expect(res.status, path).toBe(403);
      expect(res.body, path).toEqual(filesError('workspace-file/outside-workspace', 'path is outside the workspace', { path }));
    }
    for (const path of ['.agents', '.agents/someone']) {
      const hidden = await list(path);
      expect(hidden.status, path).toBe(404);
      expect(hidden.body, path).toEqual(filesError('workspace-file/not-found', 'no such file or directory', { path }));
    }
    const missing = await list('nope');
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual(filesError('workspace-file/not-found', 'no such file or directory', { path: 'nope' }));
    const empty = await list('');
    expect(empty.status).toBe(400);
    expect((empty.body as { error: { code: string } }).error.code).toBe('gateway/bad-request');
  });
});

describe('GET /workspace-files/list (node specifics)', () => {
  it('lists a FIFO as other, without opening it', async () => {
    const fx = await createFixture('node', { 'f.txt': 'x' });
    try {
      execFileSync('mkfifo', [`${fx.root}/pipe`]);
      const pipe = await fx.get('/workspace-files/list', { path: '.' });
      expect(pipe.body).toEqual({
        path: '',
        entries: [
          { name: 'f.txt', type: 'file', size: 1 },
          { name: 'pipe', type: 'other' },
        ],
        truncated: false,
      });
      const fifo = await fx.get('/workspace-files/list', { path: 'pipe' });
      expect(fifo.body).toEqual(filesError('workspace-file/not-directory', 'not a directory (other)', { path: 'pipe', kind: 'other' }));
    } finally {
      await fx.cleanup();
    }
  });
});
