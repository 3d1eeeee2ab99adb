import { execFileSync } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { BACKENDS, createFixture, filesError, type Fixture, type Seed } from '../../support/backends.ts';

const seed: Seed = {
  'a.txt': 'hello\n',
  'latin1.txt': new Uint8Array([0x63, 0x61, 0x66, 0xe9, 0x0a]),
  'sub/inner.txt': 'inner\n',
  'alias': { link: 'sub' },
  'to-a': { link: 'a.txt' },
  'out': { link: '$OUTSIDE' },
};

type Route = 'stat' | 'read' | 'read-bytes' | 'list';
const FILE_ROUTES: Route[] = ['stat', 'read', 'read-bytes'];
const ALL_ROUTES: Route[] = [...FILE_ROUTES, 'list'];

/**
 * Every `workspace-file/*` failure names the path exactly as the client sent it (the product's typed details),
 * beside the fields the code already carries: a client that fired several reads can tell which one failed.
 */
describe.each(BACKENDS)('workspace-files error details name the path as asked (%s)', (backend) => {
  let fx: Fixture;
  afterEach(() => fx.cleanup());
  const call = (route: Route, params: Record<string, string | number>) => fx.get(`/workspace-files/${route}`, params);

  it('not-found {path} on every route, for a missing path, one under a file, and an unknown agent', async () => {
    fx = await createFixture(backend, seed);
    for (const route of ALL_ROUTES) {
      for (const path of ['nope.txt', './sub/../nope/deeper', 'a.txt/b', `${fx.root}/gone`, 'alias\\nope']) {
        const res = await call(route, { path });
        expect(res.status, `${route} ${path}`).toBe(404);
        expect(res.body, `${route} ${path}`).toEqual(filesError('workspace-file/not-found', 'no such file or directory', { path }));
      }
      const agent = await call(route, { path: 'a.txt', agent: 'nobody' });
      expect(agent.status, route).toBe(404);
      expect(agent.body, route).toEqual(
        filesError('workspace-file/not-found', 'unknown agent: nobody', { path: 'a.txt', agent: 'nobody' }),
      );
    }
    const hidden = await call('list', { path: '.agents' });
    expect(hidden.body).toEqual(filesError('workspace-file/not-found', 'no such file or directory', { path: '.agents' }));
  });

  it('outside-workspace {path} on every route, lexical or through a link', async () => {
    fx = await createFixture(backend, seed);
    for (const route of ALL_ROUTES) {
      for (const path of ['../x', '/etc/passwd', `${fx.outside}/secret.txt`, 'out/secret.txt', 'sub/../../x']) {
        const res = await call(route, { path });
        expect(res.status, `${route} ${path}`).toBe(403);
        expect(res.body, `${route} ${path}`).toEqual(
          filesError('workspace-file/outside-workspace', 'path is outside the workspace', { path }),
        );
      }
    }
  });

  it('not-regular-file {path, kind} on stat, read and read-bytes', async () => {
    fx = await createFixture(backend, seed);
    for (const route of FILE_ROUTES) {
      for (const [path, kind] of [
        ['sub/', 'directory'],
        ['to-a', 'symlink'],
        ['alias', 'symlink'],
        ['.', 'directory'],
      ] as const) {
        const res = await call(route, { path });
        expect(res.status, `${route} ${path}`).toBe(409);
        expect(res.body, `${route} ${path}`).toEqual(
          filesError('workspace-file/not-regular-file', `not a regular file (${kind})`, { path, kind }),
        );
      }
    }
  });

  it('not-directory {path, kind} on list', async () => {
    fx = await createFixture(backend, seed);
    for (const [path, kind] of [
      ['./a.txt', 'file'],
      ['alias', 'symlink'],
      [`${fx.root}/sub/inner.txt`, 'file'],
    ] as const) {
      const res = await call('list', { path });
      expect(res.status, path).toBe(409);
      expect(res.body, path).toEqual(filesError('workspace-file/not-directory', `not a directory (${kind})`, { path, kind }));
    }
  });

  it('too-large {path, limit} on read and read-bytes', async () => {
    fx = await createFixture(backend, seed, { limits: { pageMaxBytes: 4 } });
    const page = await call('read', { path: './a.txt' });
    expect(page.status).toBe(413);
    expect(page.body).toEqual(filesError('workspace-file/too-large', 'page is larger than 4 bytes', { path: './a.txt', limit: 4 }));
    const window = await call('read-bytes', { path: 'alias/inner.txt', length: 5 });
    expect(window.status).toBe(413);
    expect(window.body).toEqual(
      filesError('workspace-file/too-large', 'window is larger than 4 bytes', { path: 'alias/inner.txt', limit: 4 }),
    );
  });

  it('not-text {path} on read', async () => {
    fx = await createFixture(backend, seed);
    const res = await call('read', { path: 'latin1.txt' });
    expect(res.status).toBe(415);
    expect(res.body).toEqual(filesError('workspace-file/not-text', 'file is not UTF-8 text', { path: 'latin1.txt' }));
  });

  it('the gateway bad-request carries its issues, not a path', async () => {
    fx = await createFixture(backend, seed);
    const res = await call('read', { path: 'a.txt', limit: 0 });
    expect(res.status).toBe(400);
    expect(res.body).toEqual(
      filesError('gateway/bad-request', 'invalid query: limit: must be a whole number of at least 1', {
        issues: [{ path: ['limit'], message: 'must be a whole number of at least 1', code: 'custom' }],
      }),
    );
  });
});

describe('workspace-files error details (node specifics)', () => {
  it('a FIFO is not-regular-file {path, kind: other} and not-directory {path, kind: other}', async () => {
    const fx = await createFixture('node', {});
    try {
      execFileSync('mkfifo', [`${fx.root}/pipe`]);
      for (const route of FILE_ROUTES) {
        const res = await fx.get(`/workspace-files/${route}`, { path: 'pipe' });
        expect(res.body, route).toEqual(
          filesError('workspace-file/not-regular-file', 'not a regular file (other)', { path: 'pipe', kind: 'other' }),
        );
      }
      const list = await fx.get('/workspace-files/list', { path: 'pipe' });
      expect(list.body).toEqual(filesError('workspace-file/not-directory', 'not a directory (other)', { path: 'pipe', kind: 'other' }));
    } finally {
      await fx.cleanup();
    }
  });
});
