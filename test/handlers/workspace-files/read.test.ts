import { afterEach, describe, expect, it } from 'vitest';
import { BACKENDS, createFixture, filesError, type Fixture, type FixtureOptions, type Seed } from '../../support/backends.ts';

const seed: Seed = {
  'log.txt': 'one\ntwo\r\nthree\n\nfive',
  'empty.txt': '',
  'latin1.txt': new Uint8Array([0x6f, 0x6b, 0x0a, 0x63, 0x61, 0x66, 0xe9, 0x0a]),
  'nul.txt': 'a\0b\n',
  'sub/': '',
  'to-log': { link: 'log.txt' },
  'alias': { link: 'sub' },
  'sub/inner.txt': 'inner\n',
};

describe.each(BACKENDS)('GET /workspace-files/read (%s)', (backend) => {
  let fx: Fixture;
  afterEach(() => fx.cleanup());
  const open = async (options: FixtureOptions = {}) => {
    fx = await createFixture(backend, seed, options);
    return fx;
  };
  const read = (params: Record<string, string | number>) => fx.get('/workspace-files/read', params);
  const statOf = async (rel: string) => {
    const { version, size } = await fx.fs.stat(`${fx.root}/${rel}`);
    return { absolutePath: `${fx.root}/${rel}`, version, bytes: size };
  };

  it('returns the first page with the stat: version, size, offset, text, lines, eof', async () => {
    await open();
    const res = await read({ path: 'log.txt' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      ...(await statOf('log.txt')),
      offset: 1,
      text: 'one\ntwo\r\nthree\n\nfive',
      lines: 5,
      eof: true,
    });
  });

  it('pages by 1-based offset and limit', async () => {
    await open();
    const stat = await statOf('log.txt');
    expect((await read({ path: 'log.txt', offset: 2, limit: 2 })).body).toEqual({
      ...stat,
      offset: 2,
      text: 'two\r\nthree',
      lines: 2,
      eof: false,
    });
    expect((await read({ path: 'log.txt', offset: 4, limit: 2 })).body).toEqual({ ...stat, offset: 4, text: '\nfive', lines: 2, eof: true });
    expect((await read({ path: 'log.txt', offset: 6 })).body).toEqual({ ...stat, offset: 6, text: '', lines: 0, eof: true });
    expect((await read({ path: 'empty.txt' })).body).toEqual({ ...(await statOf('empty.txt')), offset: 1, text: '', lines: 0, eof: true });
  });

  it('defaults the limit to maxLines, and refuses a larger one as the gateway bad-request', async () => {
    await open({ limits: { pageMaxLines: 2 } });
    expect((await read({ path: 'log.txt' })).body).toMatchObject({ text: 'one\ntwo\r', lines: 2, eof: false });
    expect((await read({ path: 'log.txt', limit: 2 })).status).toBe(200);
    const over = await read({ path: 'log.txt', limit: 3 });
    expect(over.status).toBe(400);
    expect(over.body).toEqual(
      filesError('gateway/bad-request', 'invalid query: limit: must be at most 2', {
        issues: [{ path: ['limit'], message: 'must be at most 2', code: 'custom' }],
      }),
    );
  });

  it('refuses an offset or limit that is not a positive safe integer', async () => {
    await open();
    const cases: [string, string, string][] = [
      ['offset', '0', 'must be a whole number of at least 1'],
      ['offset', '-1', 'must be a whole number of at least 1'],
      ['offset', '1.5', 'must be a whole number of at least 1'],
      ['offset', '1e3', 'must be a whole number of at least 1'],
      ['offset', '', 'must be a whole number of at least 1'],
      ['offset', '9007199254740993', 'must be a safe integer (at most 2^53 - 1 in magnitude)'],
      ['limit', '0', 'must be a whole number of at least 1'],
      ['limit', 'ten', 'must be a whole number of at least 1'],
    ];
    for (const [key, value, message] of cases) {
      const res = await read({ path: 'log.txt', [key]: value });
      expect(res.status, `${key}=${value}`).toBe(400);
      expect((res.body as { error: { code: string; message: string } }).error, `${key}=${value}`).toMatchObject({
        code: 'gateway/bad-request',
        message: `invalid query: ${key}: ${message}`,
      });
    }
    const twice = await fx.get('/workspace-files/read?path=log.txt&offset=1&offset=2');
    expect(twice.status).toBe(400);
    expect(twice.body).toEqual(filesError('gateway/bad-request', "invalid query: 'offset' is given more than once"));
  });

  it('fails too-large {limit} for a page above maxBytes instead of shortening it', async () => {
    await open({ limits: { pageMaxBytes: 8 } });
    expect((await read({ path: 'log.txt', limit: 2 })).body).toMatchObject({ text: 'one\ntwo\r', lines: 2 });
    const res = await read({ path: 'log.txt', limit: 3 });
    expect(res.status).toBe(413);
    expect(res.body).toEqual(filesError('workspace-file/too-large', 'page is larger than 8 bytes', { path: 'log.txt', limit: 8 }));
  });

  it('fails not-text (415) for a page that is not UTF-8 or holds a NUL, and serves the text before it', async () => {
    await open();
    for (const path of ['latin1.txt', 'nul.txt']) {
      const res = await read({ path });
      expect(res.status, path).toBe(415);
      expect(res.body, path).toEqual(filesError('workspace-file/not-text', 'file is not UTF-8 text', { path }));
    }
    expect((await read({ path: 'latin1.txt', limit: 1 })).body).toMatchObject({ text: 'ok', lines: 1, eof: false });
  });

  it('runs the gates: a link is not-regular-file {kind: symlink}, a folder {kind: directory}, outside 403', async () => {
    await open();
    const link = await read({ path: 'to-log' });
    expect(link.status).toBe(409);
    expect(link.body).toEqual(filesError('workspace-file/not-regular-file', 'not a regular file (symlink)', { path: 'to-log', kind: 'symlink' }));
    const folder = await read({ path: 'sub' });
    expect(folder.status).toBe(409);
    expect(folder.body).toEqual(
      filesError('workspace-file/not-regular-file', 'not a regular file (directory)', { path: 'sub', kind: 'directory' }),
    );
    const outside = await read({ path: '../secret.txt' });
    expect(outside.status).toBe(403);
    expect(outside.body).toEqual(filesError('workspace-file/outside-workspace', 'path is outside the workspace', { path: '../secret.txt' }));
    const missing = await read({ path: 'missing.txt' });
    expect(missing.status).toBe(404);
    // Through a link on the way the file reads, under its real path.
    expect((await read({ path: 'alias/inner.txt' })).body).toEqual({
      ...(await statOf('sub/inner.txt')),
      offset: 1,
      text: 'inner',
      lines: 1,
      eof: true,
    });
  });

  it("reads through an agent's copy: its own file first, the shared tree beneath", async () => {
    await open();
    await fx.client.workspace.createAgent({ agent: 'bot1' });
    await fx.fs.write(`${fx.root}/.agents/bot1/log.txt`, 'agent line\n');
    expect((await read({ path: 'log.txt', agent: 'bot1' })).body).toMatchObject({
      absolutePath: `${fx.root}/log.txt`,
      bytes: 11,
      text: 'agent line',
      lines: 1,
    });
    expect((await read({ path: 'log.txt' })).body).toMatchObject({ text: 'one\ntwo\r\nthree\n\nfive' });
    const unknown = await read({ path: 'log.txt', agent: 'bot2' });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual(filesError('workspace-file/not-found', 'unknown agent: bot2', { path: 'log.txt', agent: 'bot2' }));
  });

  it('checks the query before the gates: a bad limit on a missing file is still bad-request', async () => {
    await open();
    expect((await read({ path: 'missing.txt', limit: 0 })).status).toBe(400);
  });
});
