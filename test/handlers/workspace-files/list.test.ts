import { execFileSync } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import type { FileSystem } from '../../../adapters/fs/file-system.ts';
import { appOver, BACKENDS, createFixture, filesError, type Fixture, type FixtureOptions, type Seed } from '../../support/backends.ts';
import { q, request } from '../../support/workspace.ts';
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

  it('a cut listing keeps the first entries in name order, not the first the folder yields', async () => {
    // Made in reverse name order: the memory backend yields insertion order, the disk its hash order (a
    // readdir with a limit reads the folder as it is stored; Node's unlimited readdir sorts, libuv's scandir).
    const reversed: Seed = {};
    for (let i = 39; i >= 0; i--) reversed[`many/n${String(i).padStart(2, '0')}.txt`] = 'x'.repeat(i);
    reversed['many/sub-z/'] = '';
    reversed['many/m-link'] = { link: 'n07.txt' };
    await open({ limits: { listMaxEntries: 6 } }, reversed);
    const yielded = (await fx.fs.readdir(`${fx.root}/many`, { limit: 100 })).map((entry) => entry.name);
    const byName = [...yielded].sort();
    expect(yielded.slice(0, 7), 'the backend does not yield name order here').not.toEqual(byName.slice(0, 7));
    const res = await list('many');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      path: 'many',
      entries: [
        { name: 'm-link', type: 'file', size: 7 },
        { name: 'n00.txt', type: 'file', size: 0 },
        { name: 'n01.txt', type: 'file', size: 1 },
        { name: 'n02.txt', type: 'file', size: 2 },
        { name: 'n03.txt', type: 'file', size: 3 },
        { name: 'n04.txt', type: 'file', size: 4 },
      ],
      truncated: true,
    });
  });

  it('bounds the work: reads the folder once and stats only the entries it returns', async () => {
    const many: Seed = {};
    for (let i = 199; i >= 0; i--) many[`big/f${String(i).padStart(3, '0')}.txt`] = String(i);
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
    expect(body.entries.map((entry) => entry.name)).toEqual(Array.from({ length: 10 }, (_, i) => `f00${i}.txt`));
    for (const entry of body.entries) expect(entry).toEqual({ name: entry.name, type: 'file', size: 1 });
    expect(counted.calls.readdir).toEqual([{ path: `${fx.root}/big` }]);
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

describe('GET /workspace-files/list (a big folder, memory)', () => {
  it('returns the first 2000 of 20 000 entries by name at the cost of about 2000 stats', async () => {
    const fx = await createFixture('memory', {});
    try {
      const folder = `${fx.root}/huge`;
      await fx.fs.mkdir(folder);
      // Newest first, so the backend's own order is the reverse of name order.
      for (let i = 19_999; i >= 0; i--) await fx.fs.write(`${folder}/e${String(i).padStart(5, '0')}`, '');
      for (const name of ['d-dir-a', 'd-dir-b']) await fx.fs.mkdir(`${folder}/${name}`);
      await fx.fs.symlink('e00001', `${folder}/d-link`);
      let counted!: ReturnType<typeof countingCalls>;
      const app = appOver({ fs: (counted = countingCalls(fx.fs)).fs, root: fx.root });
      try {
        const res = await app.fetch(request('/workspace-files/list' + q({ path: 'huge' })));
        expect(res.status).toBe(200);
        const body = (await res.json()) as { entries: { name: string; type: string }[]; truncated: boolean };
        expect(body.truncated).toBe(true);
        expect(body.entries).toHaveLength(2000);
        expect(body.entries.slice(0, 4)).toEqual([
          { name: 'd-dir-a', type: 'directory' },
          { name: 'd-dir-b', type: 'directory' },
          { name: 'd-link', type: 'file', size: 0 },
          { name: 'e00000', type: 'file', size: 0 },
        ]);
        expect(body.entries.at(-1)).toEqual({ name: 'e01996', type: 'file', size: 0 });
        const stats = counted.calls.lstat + counted.calls.stat + counted.calls.realpath;
        expect(stats).toBeLessThanOrEqual(body.entries.length + 4);
      } finally {
        await app.close();
      }
    } finally {
      await fx.cleanup();
    }
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
