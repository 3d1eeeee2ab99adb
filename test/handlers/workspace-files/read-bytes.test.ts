import { afterEach, describe, expect, it } from 'vitest';
import { BACKENDS, createFixture, filesError, type Fixture, type FixtureOptions, type Seed } from '../../support/backends.ts';

const binary = new Uint8Array(300).map((_, i) => (i * 37) & 0xff); // NULs and every high byte
const seed: Seed = {
  'bin.dat': binary,
  'hello.txt': 'hello world',
  'sub/': '',
  'to-bin': { link: 'bin.dat' },
};

const base64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64');

describe.each(BACKENDS)('GET /workspace-files/read-bytes (%s)', (backend) => {
  let fx: Fixture;
  afterEach(() => fx.cleanup());
  const open = async (options: FixtureOptions = {}) => {
    fx = await createFixture(backend, seed, options);
  };
  const readBytes = (params: Record<string, string | number>) => fx.get('/workspace-files/read-bytes', params);
  const statOf = async (rel: string) => {
    const { version, size } = await fx.fs.stat(`${fx.root}/${rel}`);
    return { absolutePath: `${fx.root}/${rel}`, version, bytes: size };
  };

  it('returns the whole file as base64 by default, NULs and all, with eof', async () => {
    await open();
    const res = await readBytes({ path: 'bin.dat' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ...(await statOf('bin.dat')), offset: 0, data: base64(binary), eof: true });
  });

  it('returns a window: eof = offset + data.length >= size', async () => {
    await open();
    const stat = await statOf('bin.dat');
    expect((await readBytes({ path: 'bin.dat', offset: 10, length: 20 })).body).toEqual({
      ...stat,
      offset: 10,
      data: base64(binary.subarray(10, 30)),
      eof: false,
    });
    expect((await readBytes({ path: 'bin.dat', offset: 280, length: 20 })).body).toEqual({
      ...stat,
      offset: 280,
      data: base64(binary.subarray(280)),
      eof: true,
    });
    expect((await readBytes({ path: 'bin.dat', offset: 290, length: 20 })).body).toMatchObject({
      data: base64(binary.subarray(290)),
      eof: true,
    });
    expect((await readBytes({ path: 'bin.dat', offset: 300 })).body).toMatchObject({ offset: 300, data: '', eof: true });
    expect((await readBytes({ path: 'bin.dat', offset: 5000 })).body).toMatchObject({ offset: 5000, data: '', eof: true });
  });

  it('defaults the length to maxBytes, and fails a longer window too-large rather than shortening it', async () => {
    await open({ limits: { pageMaxBytes: 4 } });
    expect((await readBytes({ path: 'hello.txt' })).body).toMatchObject({ data: base64(new TextEncoder().encode('hell')), eof: false });
    expect((await readBytes({ path: 'hello.txt', length: 4 })).status).toBe(200);
    const res = await readBytes({ path: 'hello.txt', length: 5 });
    expect(res.status).toBe(413);
    expect(res.body).toEqual(filesError('workspace-file/too-large', 'window is larger than 4 bytes', { path: 'hello.txt', limit: 4 }));
  });

  it('refuses an offset or length that is not a safe integer ≥ 0', async () => {
    await open();
    for (const [key, value] of [
      ['offset', '-1'],
      ['offset', '0.5'],
      ['offset', '99999999999999999999'],
      ['length', '-2'],
      ['length', 'x'],
    ] as const) {
      const res = await readBytes({ path: 'bin.dat', [key]: value });
      expect(res.status, `${key}=${value}`).toBe(400);
      expect((res.body as { error: { code: string } }).error.code, `${key}=${value}`).toBe('gateway/bad-request');
    }
  });

  it('refuses length 0 and a window whose end passes 2^53 - 1, before the gates, and reads right up to that end', async () => {
    await open();
    const MAX = Number.MAX_SAFE_INTEGER;
    const cases: [Record<string, string | number>, string, string, string?][] = [
      [{ length: 0 }, 'length', 'must be a whole number of at least 1'],
      [{ offset: 5, length: 0 }, 'length', 'must be a whole number of at least 1'],
      [{ offset: MAX, length: 1 }, 'length', 'offset + length must be at most 2^53 - 1'],
      [{ offset: MAX - 10, length: 11 }, 'length', 'offset + length must be at most 2^53 - 1'],
      [{ offset: 1, length: MAX }, 'length', 'offset + length must be at most 2^53 - 1'],
      [{ offset: MAX }, 'offset', 'offset + length must be at most 2^53 - 1'], // the default length counts
      [{ offset: '9007199254740992' }, 'offset', 'must be a safe integer (at most 2^53 - 1 in magnitude)'],
      [{ length: '1.5' }, 'length', 'must be a whole number of at least 1', 'invalid_format'],
      [{ length: '1e3' }, 'length', 'must be a whole number of at least 1', 'invalid_format'],
      [{ length: '-1' }, 'length', 'must be a whole number of at least 1'],
      [{ offset: '-0.5' }, 'offset', 'must be a whole number of at least 0', 'invalid_format'],
      [{ offset: ' 1' }, 'offset', 'must be a whole number of at least 0', 'invalid_format'],
    ];
    for (const [range, key, message, code = 'custom'] of cases) {
      for (const path of ['bin.dat', 'missing.bin']) {
        const res = await readBytes({ path, ...range });
        const label = `${path} ${JSON.stringify(range)}`;
        expect(res.status, label).toBe(400);
        expect(res.body, label).toEqual(
          filesError('gateway/bad-request', `invalid query: ${key}: ${message}`, {
            issues: [{ path: [key], message, code }],
          }),
        );
      }
    }
    const stat = await statOf('bin.dat');
    expect((await readBytes({ path: 'bin.dat', offset: MAX - 1, length: 1 })).body).toEqual({ ...stat, offset: MAX - 1, data: '', eof: true });
    expect((await readBytes({ path: 'bin.dat', offset: MAX - 2 * 1024 * 1024 })).body).toEqual({
      ...stat,
      offset: MAX - 2 * 1024 * 1024,
      data: '',
      eof: true,
    });
    expect((await readBytes({ path: 'bin.dat', offset: 299, length: 1 })).body).toEqual({ ...stat, offset: 299, data: base64(binary.subarray(299)), eof: true });
  });

  it('runs the gates before the cap: a link or a folder is not-regular-file even with an over-long length', async () => {
    await open({ limits: { pageMaxBytes: 4 } });
    const link = await readBytes({ path: 'to-bin', length: 99 });
    expect(link.status).toBe(409);
    expect(link.body).toEqual(filesError('workspace-file/not-regular-file', 'not a regular file (symlink)', { path: 'to-bin', kind: 'symlink' }));
    const folder = await readBytes({ path: 'sub', length: 99 });
    expect(folder.status).toBe(409);
    expect((folder.body as { error: { details: unknown } }).error.details).toEqual({ path: 'sub', kind: 'directory' });
    const outside = await readBytes({ path: `${fx.outside}/secret.txt`, length: 99 });
    expect(outside.status).toBe(403);
    expect(outside.body).toEqual(filesError('workspace-file/outside-workspace', 'path is outside the workspace', { path: `${fx.outside}/secret.txt` }));
    const missing = await readBytes({ path: 'nope.bin' });
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual(filesError('workspace-file/not-found', 'no such file or directory', { path: 'nope.bin' }));
  });
});
