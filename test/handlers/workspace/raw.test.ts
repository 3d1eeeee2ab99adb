import { truncate, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ByteRange } from '../../../adapters/fs/file-system.ts';
import { MemoryFileSystem } from '../../../adapters/fs/memory-file-system.ts';
import { createWorkspaceApp } from '../../../runtime/app.ts';
import { q, request, TEST_TOKEN } from '../../support/workspace.ts';
import { BACKENDS, createFixture, makeFifo, type Fixture, type Seed } from '../../support/backends.ts';

const MiB = 1024 * 1024;
const TYPES: Array<[string, string]> = [
  ['png', 'image/png'],
  ['jpg', 'image/jpeg'],
  ['jpeg', 'image/jpeg'],
  ['gif', 'image/gif'],
  ['webp', 'image/webp'],
  ['avif', 'image/avif'],
  ['svg', 'image/svg+xml'],
  ['bmp', 'image/bmp'],
  ['ico', 'image/x-icon'],
  ['pdf', 'application/pdf'],
  ['mp3', 'audio/mpeg'],
  ['wav', 'audio/wav'],
  ['ogg', 'audio/ogg'],
  ['oga', 'audio/ogg'],
  ['opus', 'audio/ogg'],
  ['weba', 'audio/webm'],
  ['flac', 'audio/flac'],
  ['m4a', 'audio/mp4'],
  ['aac', 'audio/aac'],
  ['mp4', 'video/mp4'],
  ['m4v', 'video/mp4'],
  ['webm', 'video/webm'],
  ['ogv', 'video/ogg'],
  ['mov', 'video/quicktime'],
  ['3gp', 'video/3gpp'],
  ['mkv', 'video/x-matroska'],
  ['avi', 'video/x-msvideo'],
  ['wmv', 'video/x-ms-wmv'],
];

const seed: Seed = {
  ...Object.fromEntries(TYPES.map(([ext]) => [`files/f.${ext}`, `content of ${ext}`])),
  'UPPER.PNG': 'upper',
  'Mixed.Mp4': 'mixed',
  'page.html': '<!doctype html><p>hi</p>',
  'script.js': 'alert(1)',
  'notes.txt': 'plain text',
  'noext-html': '<html><body>sniff me</body></html>',
  '.bashrc': 'export A=1',
  'trailing.': 'dot',
  'dir.png/inner.txt': 'in a folder named like an image',
  'ten.bin': '0123456789',
  'alias.png': { link: 'UPPER.PNG' },
  escape: { link: '$OUTSIDE/secret.txt' },
};

const textOf = async (res: Response) => new TextDecoder().decode(await res.arrayBuffer());

describe.each(BACKENDS)('GET /workspace/raw (%s)', (backend) => {
  let b: Fixture;
  afterEach(() => b.cleanup());
  const setup = async (options = {}) => (b = await createFixture(backend, seed, options));
  const raw = (params: Record<string, string>, headers: Record<string, string> = {}) =>
    b.app.fetch(request('/workspace/raw' + q(params), { headers }));

  it('answers the bytes with the by-extension type, nosniff and the version as ETag', async () => {
    await setup();
    const res = await raw({ path: 'files/f.png' });
    expect(res.status).toBe(200);
    expect(Object.fromEntries(res.headers)).toEqual({
      'accept-ranges': 'bytes',
      'content-length': String('content of png'.length),
      'content-type': 'image/png',
      etag: expect.stringMatching(/^"[!#-$&-~]+"$/),
      'last-modified': expect.stringMatching(/^[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT$/),
      'x-content-type-options': 'nosniff',
      'content-security-policy': 'sandbox allow-scripts',
    });
    expect(await textOf(res)).toBe('content of png');
  });

  it('types every extension of the seed’s list as that list says', async () => {
    await setup();
    for (const [ext, type] of TYPES) {
      const res = await raw({ path: `files/f.${ext}` });
      expect([res.status, res.headers.get('content-type'), await textOf(res)], ext).toEqual([200, type, `content of ${ext}`]);
    }
  });

  it('matches extensions case-insensitively', async () => {
    await setup();
    for (const [path, type] of [['UPPER.PNG', 'image/png'], ['Mixed.Mp4', 'video/mp4']]) {
      const res = await raw({ path: path! });
      expect(res.headers.get('content-type'), path).toBe(type);
      await res.body?.cancel();
    }
  });

  it('never sniffs: HTML, scripts, text and extensionless files are all application/octet-stream', async () => {
    await setup();
    for (const path of ['page.html', 'script.js', 'notes.txt', 'noext-html', '.bashrc', 'trailing.', 'ten.bin']) {
      const res = await raw({ path });
      expect(res.headers.get('content-type'), path).toBe('application/octet-stream');
      expect(res.headers.get('x-content-type-options'), path).toBe('nosniff');
      await res.body?.cancel();
    }
  });

  it('types a link by the file it leads to', async () => {
    await setup();
    const res = await raw({ path: 'alias.png' });
    expect([res.status, res.headers.get('content-type'), await textOf(res)]).toEqual([200, 'image/png', 'upper']);
  });

  it('serves a file of exactly maxRawBytes; one byte more is 413 {error} with nothing read', async () => {
    await setup({ limits: { maxRawBytes: 10 } });
    const atCap = await raw({ path: 'ten.bin' });
    expect([atCap.status, await textOf(atCap)]).toEqual([200, '0123456789']);
    const over = await raw({ path: 'files/f.png' });
    expect(over.status).toBe(413);
    expect(await over.json()).toEqual({ error: 'file is 14 bytes, over the 10-byte limit of /workspace/raw' });
  });

  it('the ETag changes with the content, and If-None-Match with the current one is 304', async () => {
    await setup();
    const first = await raw({ path: 'notes.txt' });
    const etag = first.headers.get('etag')!;
    await first.body?.cancel();
    const cached = await raw({ path: 'notes.txt' }, { 'if-none-match': etag });
    expect([cached.status, await textOf(cached)]).toEqual([304, '']);
    await b.client.workspace.delete({ path: 'notes.txt' });
    await b.client.workspace.copy({ from: 'ten.bin', to: 'notes.txt' });
    const changed = await raw({ path: 'notes.txt' }, { 'if-none-match': etag });
    expect([changed.status, await textOf(changed)]).toEqual([200, '0123456789']);
    expect(changed.headers.get('etag')).not.toBe(etag);
  });

  it('a Range header is honoured as on /api/raw (the same ServeContent)', async () => {
    await setup();
    const res = await raw({ path: 'ten.bin' }, { range: 'bytes=3-4' });
    expect([res.status, res.headers.get('content-range'), await textOf(res)]).toEqual([206, 'bytes 3-4/10', '34']);
    const unsatisfiable = await raw({ path: 'ten.bin' }, { range: 'bytes=10-' });
    expect([unsatisfiable.status, unsatisfiable.headers.get('content-range'), await unsatisfiable.json()]).toEqual([
      416,
      'bytes */10',
      { error: 'invalid range: failed to overlap' },
    ]);
  });

  describe('bad input, each an {error} with its status', () => {
    it('a missing or empty path is 400', async () => {
      await setup();
      for (const params of [{}, { path: '' }] as Record<string, string>[]) {
        const res = await raw(params);
        expect([res.status, await res.json()]).toEqual([400, { error: 'invalid query: path: missing path' }]);
      }
    });

    it('a folder is 400 (even one named like an image), a missing file 404', async () => {
      await setup();
      for (const path of ['files', 'dir.png', '.']) {
        const res = await raw({ path });
        expect([res.status, await res.json()], path).toEqual([400, { error: `path is a directory: ${path}` }]);
      }
      const missing = await raw({ path: 'nope.png' });
      expect([missing.status, await missing.json()]).toEqual([404, { error: 'no such file: nope.png' }]);
    });

    it('a path that escapes is 400 (Intentic’s status), by .., absolute path or link', async () => {
      await setup();
      for (const path of ['../x.png', `${b.outside}/secret.txt`, 'escape', 'files/../../x']) {
        const res = await raw({ path });
        expect([res.status, await res.json()], path).toEqual([400, { error: 'path is outside the workspace' }]);
      }
    });

    it('a malformed agent is 400, an unknown one 404', async () => {
      await setup();
      const bad = await raw({ path: 'ten.bin', agent: '-x' });
      expect([bad.status, await bad.json()]).toEqual([400, { error: 'invalid agent id: "-x"' }]);
      const unknown = await raw({ path: 'ten.bin', agent: 'ghost' });
      expect([unknown.status, await unknown.json()]).toEqual([404, { error: 'unknown agent: ghost' }]);
    });

    it('a repeated parameter is 400', async () => {
      await setup();
      const res = await b.app.fetch(request('/workspace/raw?path=ten.bin&path=notes.txt'));
      expect([res.status, await res.json()]).toEqual([400, { error: "invalid query: 'path' is given more than once" }]);
    });

    it('needs the token (unlike /workspace/media): header, x-intentic-control or ?token=', async () => {
      await setup();
      const none = await b.app.fetch(new Request(`http://localhost/workspace/raw${q({ path: 'ten.bin' })}`));
      expect([none.status, await none.json()]).toEqual([401, { error: 'missing or invalid token' }]);
      const wrong = await raw({ path: 'ten.bin' }, { authorization: 'Bearer wrong' });
      expect(wrong.status).toBe(401);
      await wrong.body?.cancel();
      for (const init of <Array<{ url: string; headers: Record<string, string> }>>[
        { url: `/workspace/raw${q({ path: 'ten.bin' })}`, headers: { 'x-intentic-control': TEST_TOKEN } },
        { url: `/workspace/raw${q({ path: 'ten.bin', token: TEST_TOKEN })}`, headers: {} },
      ]) {
        const res = await b.app.fetch(new Request(`http://localhost${init.url}`, { headers: init.headers }));
        expect([res.status, await textOf(res)]).toEqual([200, '0123456789']);
      }
    });
  });
});

describe('GET /workspace/raw (node): the disk', () => {
  let b: Fixture;
  afterEach(() => b.cleanup());

  it('returns binary bytes exactly', async () => {
    b = await createFixture('node', {});
    const bytes = Uint8Array.from({ length: 70_000 }, (_, i) => (i * 13) & 0xff);
    await writeFile(join(b.root, 'blob.webp'), bytes);
    const res = await b.app.fetch(request('/workspace/raw' + q({ path: 'blob.webp' })));
    expect(res.status).toBe(200);
    expect(Buffer.from(await res.arrayBuffer()).equals(Buffer.from(bytes))).toBe(true);
  });

  it('reads the file for the client in 1 MiB chunks (SERVE_READ reaches the disk through the app’s wrappers)', async () => {
    b = await createFixture('node', {});
    const bytes = Uint8Array.from({ length: 2 * MiB + 5 }, (_, i) => (i * 3) & 0xff);
    await writeFile(join(b.root, 'clip.mp4'), bytes);
    const res = await b.app.fetch(request('/workspace/raw' + q({ path: 'clip.mp4' })));
    const sizes: number[] = [];
    const reader = res.body!.getReader();
    for (let next = await reader.read(); !next.done; next = await reader.read()) sizes.push(next.value.byteLength);
    expect(sizes).toEqual([MiB, MiB, 5]);
  });

  it('the default cap is 25 MiB: a (sparse) file one byte over is 413', async () => {
    b = await createFixture('node', { 'huge.mp4': '' });
    await truncate(join(b.root, 'huge.mp4'), 25 * MiB + 1);
    const res = await b.app.fetch(request('/workspace/raw' + q({ path: 'huge.mp4' })));
    expect([res.status, await res.json()]).toEqual([
      413,
      { error: `file is ${25 * MiB + 1} bytes, over the ${25 * MiB}-byte limit of /workspace/raw` },
    ]);
  });

  it('a FIFO is 400 and is never opened', async () => {
    b = await createFixture('node', {});
    makeFifo(join(b.root, 'pipe.png'));
    const res = await b.app.fetch(request('/workspace/raw' + q({ path: 'pipe.png' })));
    expect([res.status, await res.json()]).toEqual([400, { error: 'not a regular file: pipe.png' }]);
  });
});

describe('GET /workspace/raw: the cap is decided from a stat, before reading', () => {
  /** A real memory backend that counts every read. */
  class CountingFileSystem extends MemoryFileSystem {
    reads = 0;
    override async read(path: string, range?: ByteRange) {
      this.reads++;
      return super.read(path, range);
    }
    override async readStream(path: string, range?: ByteRange) {
      this.reads++;
      return super.readStream(path, range);
    }
  }

  it('an over-cap file is refused without a single read; an allowed one is read once', async () => {
    const fs = new CountingFileSystem({ '/ws/big.mp4': 'x'.repeat(2048), '/ws/small.mp4': 'x'.repeat(1024) });
    const app = createWorkspaceApp({ fs, root: '/ws', auth: { token: TEST_TOKEN }, limits: { maxRawBytes: 1024 } });
    const refused = await app.fetch(request('/workspace/raw' + q({ path: 'big.mp4' })));
    expect(refused.status).toBe(413);
    expect(fs.reads).toBe(0);
    const served = await app.fetch(request('/workspace/raw' + q({ path: 'small.mp4' })));
    expect([served.status, (await textOf(served)).length]).toEqual([200, 1024]);
    expect(fs.reads).toBe(1);
    await app.close();
  });
});
