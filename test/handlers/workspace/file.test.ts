import { execFileSync } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { orpcError } from '../../support/intentic-contract.ts';
import { BACKENDS, createFixture, type Fixture, type FixtureOptions, type Seed } from '../../support/backends.ts';
import { request } from '../../support/workspace.ts';

const seed: Seed = {
  'src/app.ts': 'const a = 1;\nconst b = 2;\nexport { a, b };\n',
  'notes.md': '# Notes\r\nété 😀\nlast line, no newline',
  'empty.txt': '',
  'latin1.txt': new Uint8Array([0x63, 0x61, 0x66, 0xe9, 0x0a]),
  'nul.bin': new Uint8Array([0x61, 0x00, 0x62, 0x0a]),
  'docs/': '',
  'alias': { link: 'src' },
  'to-app': { link: 'src/app.ts' },
  'to-secret': { link: '$OUTSIDE/secret.txt' },
  'out': { link: '$OUTSIDE' },
  'dangling': { link: 'nowhere.txt' },
};

const APP = 'const a = 1;\nconst b = 2;\nexport { a, b };\n'; // 43 bytes

/** What the Intentic client saw when the call failed. */
async function failure(call: Promise<unknown>) {
  const error = await orpcError(call);
  return { code: error.code, status: error.status, message: error.message };
}

describe.each(BACKENDS)('GET /workspace/file through the Intentic client (%s)', (backend) => {
  let fx: Fixture;
  afterEach(() => fx.cleanup());
  const open = async (options: FixtureOptions = {}) => {
    fx = await createFixture(backend, seed, options);
    return fx.client.workspace;
  };

  it('returns the whole of a small file with its size, window and tree', async () => {
    const workspace = await open();
    expect(await workspace.file({ path: 'src/app.ts' })).toEqual({
      present: true,
      path: 'src/app.ts',
      content: APP,
      size: 43,
      offset: 0,
      bytes: 43,
      shared: true,
    });
    expect(await workspace.file({ path: 'empty.txt' })).toEqual({
      present: true,
      path: 'empty.txt',
      content: '',
      size: 0,
      offset: 0,
      bytes: 0,
      shared: true,
    });
  });

  it('answers a missing file with present: false and the path as asked for', async () => {
    const workspace = await open();
    for (const path of ['nope.txt', 'no/such/dir.txt', 'src/app.ts/child', 'dangling']) {
      expect(await workspace.file({ path }), path).toEqual({ present: false, path });
    }
  });

  it('keeps the path as asked for, also through a link or as an absolute path', async () => {
    const workspace = await open();
    expect(await workspace.file({ path: 'alias/app.ts' })).toMatchObject({ present: true, path: 'alias/app.ts', content: APP });
    expect(await workspace.file({ path: 'to-app' })).toMatchObject({ path: 'to-app', content: APP });
    const absolute = `${fx.root}/src/app.ts`;
    expect(await workspace.file({ path: absolute })).toMatchObject({ path: absolute, content: APP });
  });

  it('cuts windows to whole lines and characters; offset + bytes is the next window', async () => {
    const workspace = await open();
    // "const a = 1;\n" is 13 bytes: a window from 5 drops the rest of line 1; 30 bytes end after line 2.
    expect(await workspace.file({ path: 'src/app.ts', offset: 5, limit: 30 })).toEqual({
      present: true,
      path: 'src/app.ts',
      content: 'const b = 2;\n',
      size: 43,
      offset: 13,
      bytes: 13,
      shared: true,
    });
    const first = await workspace.file({ path: 'src/app.ts', limit: 20 });
    expect(first).toMatchObject({ content: 'const a = 1;\n', offset: 0, bytes: 13 });
    const next = await workspace.file({ path: 'src/app.ts', offset: 13, limit: 100 });
    expect(next).toMatchObject({ content: 'const b = 2;\nexport { a, b };\n', offset: 13, bytes: 30 });
    // No newline in the window: the bytes stay, less a character the window cut. Line 2 starts at byte 9 with
    // "été" (é is 2 bytes), so [10, 14) starts inside the first é and [10, 13) also ends inside the second.
    expect(await workspace.file({ path: 'notes.md', offset: 10, limit: 4 })).toMatchObject({
      content: 'té',
      offset: 11,
      bytes: 3,
    });
    expect(await workspace.file({ path: 'notes.md', offset: 10, limit: 3 })).toMatchObject({
      content: 't',
      offset: 11,
      bytes: 1,
    });
  });

  it('reads a tail for a negative offset', async () => {
    const workspace = await open();
    expect(await workspace.file({ path: 'src/app.ts', offset: -20 })).toEqual({
      present: true,
      path: 'src/app.ts',
      content: 'export { a, b };\n',
      size: 43,
      offset: 26,
      bytes: 17,
      shared: true,
    });
    expect(await workspace.file({ path: 'notes.md', offset: -10_000 })).toMatchObject({
      content: '# Notes\r\nété 😀\nlast line, no newline',
      offset: 0,
    });
  });

  it('serves at most the cap however large the limit, never the whole file', async () => {
    const workspace = await open({ limits: { maxFileWindowBytes: 30 } });
    expect(await workspace.file({ path: 'src/app.ts' })).toMatchObject({ content: 'const a = 1;\nconst b = 2;\n', bytes: 26, size: 43 });
    expect(await workspace.file({ path: 'src/app.ts', limit: 1_000_000 })).toMatchObject({ bytes: 26 });
    expect(await workspace.file({ path: 'src/app.ts', limit: Number.MAX_SAFE_INTEGER })).toMatchObject({ bytes: 26 });
  });

  it('sends the version as a strong ETag, and a new one after a change', async () => {
    await open();
    const get = () =>
      fx.app.fetch(request('/workspace/file?path=src%2Fapp.ts', { headers: { 'x-intentic-control': 'test-token-0123456789' } }));
    const res = await get();
    expect(res.status).toBe(200);
    const { version } = await fx.fs.stat(`${fx.root}/src/app.ts`);
    expect(res.headers.get('etag')).toBe(`"${version}"`);
    await fx.fs.write(`${fx.root}/src/app.ts`, 'changed\n');
    const { version: changed } = await fx.fs.stat(`${fx.root}/src/app.ts`);
    expect(changed).not.toBe(version);
    expect((await get()).headers.get('etag')).toBe(`"${changed}"`);
  });

  it('refuses a folder with BAD_REQUEST', async () => {
    const workspace = await open();
    for (const path of ['docs', 'alias', '.']) {
      expect(await failure(workspace.file({ path })), path).toEqual({
        code: 'BAD_REQUEST',
        status: 400,
        message: 'path is a directory',
      });
    }
  });

  it('refuses a window that is not UTF-8 text with UNSUPPORTED_MEDIA_TYPE rather than decoding it lossily', async () => {
    const workspace = await open();
    for (const path of ['latin1.txt', 'nul.bin']) {
      expect(await failure(workspace.file({ path })), path).toEqual({
        code: 'UNSUPPORTED_MEDIA_TYPE',
        status: 415,
        message: 'file is not UTF-8 text',
      });
    }
  });

  it('refuses escaping paths and links out of the root with BAD_REQUEST', async () => {
    const workspace = await open();
    for (const path of ['../secret.txt', '/etc/passwd', `${fx.outside}/secret.txt`, 'to-secret', 'out/secret.txt', 'src/../../x']) {
      expect(await failure(workspace.file({ path })), path).toEqual({
        code: 'BAD_REQUEST',
        status: 400,
        message: 'path is outside the workspace',
      });
    }
  });

  it('refuses offsets and limits that are not integers, not safe, or a limit below 1', async () => {
    const workspace = await open();
    const cases: [Record<string, number>, string][] = [
      [{ offset: 1.5 }, 'offset: must be a whole number'],
      [{ offset: 2 ** 60 }, 'offset: must be a safe integer (at most 2^53 - 1 in magnitude)'],
      [{ offset: -(2 ** 60) }, 'offset: must be a safe integer (at most 2^53 - 1 in magnitude)'],
      [{ offset: 1e21 }, 'offset: must be a whole number'],
      [{ limit: 0 }, 'limit: must be a whole number of at least 1'],
      [{ limit: -5 }, 'limit: must be a whole number of at least 1'],
      [{ limit: 2.5 }, 'limit: must be a whole number of at least 1'],
    ];
    for (const [input, message] of cases) {
      expect(await failure(workspace.file({ path: 'src/app.ts', ...input })), JSON.stringify(input)).toEqual({
        code: 'BAD_REQUEST',
        status: 400,
        message: `invalid query: ${message}`,
      });
    }
    const error = await orpcError(workspace.file({ path: 'src/app.ts', limit: 0 }));
    expect(error.data).toEqual({ issues: [{ path: ['limit'], message: 'must be a whole number of at least 1', code: 'custom' }] });
  });

  it("reads an agent's own file (shared: false) and falls back to the shared tree for what its copy lacks", async () => {
    const workspace = await open();
    await workspace.createAgent({ agent: 'bot1' });
    await fx.fs.write(`${fx.root}/.agents/bot1/src/app.ts`, 'agent version\n');
    await fx.fs.write(`${fx.root}/later.txt`, 'made after the copy\n');
    expect(await workspace.file({ path: 'src/app.ts', agent: 'bot1' })).toEqual({
      present: true,
      path: 'src/app.ts',
      content: 'agent version\n',
      size: 14,
      offset: 0,
      bytes: 14,
      shared: false,
    });
    expect(await workspace.file({ path: 'later.txt', agent: 'bot1' })).toMatchObject({
      content: 'made after the copy\n',
      shared: true,
    });
    expect(await workspace.file({ path: 'src/app.ts' })).toMatchObject({ content: APP, shared: true });
  });

  it('refuses an empty path, an unknown agent and a malformed agent id', async () => {
    const workspace = await open();
    expect(await failure(workspace.file({ path: '' }))).toEqual({
      code: 'BAD_REQUEST',
      status: 400,
      message: 'invalid query: path: missing path',
    });
    expect(await failure(workspace.file({ path: 'src/app.ts', agent: 'nobody' }))).toEqual({
      code: 'NOT_FOUND',
      status: 404,
      message: 'unknown agent: nobody',
    });
    expect(await failure(workspace.file({ path: 'src/app.ts', agent: '-bad id' }))).toMatchObject({
      code: 'BAD_REQUEST',
      status: 400,
    });
  });
});

describe('GET /workspace/file (node specifics)', () => {
  it('refuses a FIFO with BAD_REQUEST without blocking on it', async () => {
    const fx = await createFixture('node', {});
    try {
      execFileSync('mkfifo', [`${fx.root}/pipe`]);
      expect(await failure(fx.client.workspace.file({ path: 'pipe' }))).toEqual({
        code: 'BAD_REQUEST',
        status: 400,
        message: 'not a regular file',
      });
    } finally {
      await fx.cleanup();
    }
  });
});
