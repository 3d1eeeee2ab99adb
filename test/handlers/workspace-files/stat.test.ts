import { execFileSync } from 'node:child_process';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BACKENDS, createFixture, filesError, type Fixture } from '../../support/backends.ts';

const seed = {
  'a.txt': 'hello\n',
  'sub/b.txt': 'bee',
  'sub/deeper/': '',
  'alias': { link: 'sub' },
  'to-a': { link: 'a.txt' },
  'to-secret': { link: '$OUTSIDE/secret.txt' },
  'out': { link: '$OUTSIDE' },
  'dangling': { link: 'nowhere' },
};

describe.each(BACKENDS)('GET /workspace-files/stat (%s)', (backend) => {
  let fx: Fixture;
  beforeEach(async () => {
    fx = await createFixture(backend, seed);
  });
  afterEach(() => fx.cleanup());
  const stat = (path: string, extra: Record<string, string> = {}) => fx.get('/workspace-files/stat', { path, ...extra });

  it('reports the real path, version and size of a regular file, without content', async () => {
    const { version } = await fx.fs.stat(`${fx.root}/a.txt`);
    const res = await stat('a.txt');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(res.body).toEqual({ absolutePath: `${fx.root}/a.txt`, version, bytes: 6 });
    expect((await stat(`${fx.root}/a.txt`)).body).toEqual({ absolutePath: `${fx.root}/a.txt`, version, bytes: 6 });
  });

  it('follows links on the way and reports the real path', async () => {
    const { version } = await fx.fs.stat(`${fx.root}/sub/b.txt`);
    const res = await stat('alias/b.txt');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ absolutePath: `${fx.root}/sub/b.txt`, version, bytes: 3 });
  });

  it('reports a new version after the file changes', async () => {
    const before = (await stat('a.txt')).body as { version: string };
    await fx.fs.write(`${fx.root}/a.txt`, 'changed content');
    const after = (await stat('a.txt')).body as { version: string; bytes: number };
    expect(after.version).not.toBe(before.version);
    expect(after.bytes).toBe(15);
  });

  it('gate 1: the path itself is lstat-ed, so a link fails not-regular-file {kind: symlink} wherever it points', async () => {
    for (const path of ['to-a', 'to-secret', 'dangling', 'alias']) {
      const res = await stat(path);
      expect(res.status, path).toBe(409);
      expect(res.body, path).toEqual(
        filesError('workspace-file/not-regular-file', 'not a regular file (symlink)', { path, kind: 'symlink' }),
      );
    }
  });

  it('gate 1: a folder fails not-regular-file {kind: directory}, the root too', async () => {
    for (const path of ['sub', 'sub/deeper/', '.', fx.root]) {
      const res = await stat(path);
      expect(res.status, path).toBe(409);
      expect(res.body, path).toEqual(
        filesError('workspace-file/not-regular-file', 'not a regular file (directory)', { path, kind: 'directory' }),
      );
    }
  });

  it('gate 2: anything outside the root fails outside-workspace (403), whatever it is outside', async () => {
    for (const path of ['../x', '/etc/passwd', '/etc', '/', `${fx.outside}/secret.txt`, 'out/secret.txt', 'sub/../../x']) {
      const res = await stat(path);
      expect(res.status, path).toBe(403);
      expect(res.body, path).toEqual(filesError('workspace-file/outside-workspace', 'path is outside the workspace', { path }));
    }
  });

  it('a missing path, or one under a file, is not-found (404)', async () => {
    for (const path of ['nope.txt', 'nope/deeper.txt', 'a.txt/b']) {
      const res = await stat(path);
      expect(res.status, path).toBe(404);
      expect(res.body, path).toEqual(filesError('workspace-file/not-found', 'no such file or directory', { path }));
    }
  });

  it('an empty or missing path is the gateway bad-request (400)', async () => {
    const empty = await stat('');
    expect(empty.status).toBe(400);
    expect(empty.body).toEqual(
      filesError('gateway/bad-request', 'invalid query: path: missing path', {
        issues: [{ path: ['path'], message: 'missing path', code: 'too_small' }],
      }),
    );
    const missing = await fx.get('/workspace-files/stat');
    expect(missing.status).toBe(400);
    expect(missing.body).toEqual(
      filesError('gateway/bad-request', 'invalid query: path: missing path', {
        issues: [{ path: ['path'], message: 'missing path', code: 'invalid_type' }],
      }),
    );
    const nul = await stat('a.txt\0.png');
    expect(nul.status).toBe(400);
    expect(nul.body).toEqual(filesError('gateway/bad-request', 'path contains a NUL byte'));
  });

  it('an unknown agent is not-found and a malformed agent id bad-request', async () => {
    const unknown = await stat('a.txt', { agent: 'nobody' });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual(filesError('workspace-file/not-found', 'unknown agent: nobody', { path: 'a.txt', agent: 'nobody' }));
    const malformed = await stat('a.txt', { agent: '../x' });
    expect(malformed.status).toBe(400);
    expect((malformed.body as { error: { code: string } }).error.code).toBe('gateway/bad-request');
  });

  it('refuses a request without the token', async () => {
    const res = await fx.app.fetch(new Request('http://localhost/workspace-files/stat?path=a.txt'));
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual(filesError('workspace-file/unauthorized', 'missing or invalid token'));
  });
});

describe('GET /workspace-files/stat (node specifics)', () => {
  it('a FIFO fails not-regular-file {kind: other} without blocking', async () => {
    const fx = await createFixture('node', {});
    try {
      execFileSync('mkfifo', [`${fx.root}/pipe`]);
      const res = await fx.get('/workspace-files/stat', { path: 'pipe' });
      expect(res.status).toBe(409);
      expect(res.body).toEqual(filesError('workspace-file/not-regular-file', 'not a regular file (other)', { path: 'pipe', kind: 'other' }));
    } finally {
      await fx.cleanup();
    }
  });
});
