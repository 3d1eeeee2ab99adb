import { mkdir, utimes, writeFile } from 'node:fs/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ByteRange, FileSystem } from '../../../adapters/fs/file-system.ts';
import { NodeFileSystem } from '../../../adapters/fs/node-file-system.ts';
import { nodeApp, q, request, tempWorkspace, type TempWorkspace } from '../../support/workspace.ts';

const PNG = Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52]);
const MTIME = new Date(Date.UTC(2024, 4, 6, 7, 8, 9, 500)); // .5 s: Last-Modified truncates to the second
const LAST_MODIFIED = 'Mon, 06 May 2024 07:08:09 GMT';
const ALPHABET = 'abcdefghijklmnopqrstuvwxyz';

const bytesOf = async (res: Response) => new Uint8Array(await res.arrayBuffer());
const textOf = async (res: Response) => new TextDecoder().decode(await res.arrayBuffer());
/** Byte equality without a per-element deep diff (fast on megabytes). */
const sameBytes = (a: Uint8Array, b: Uint8Array) => Buffer.from(a).equals(Buffer.from(b));

describe('GET /api/raw', () => {
  let ws: TempWorkspace;
  beforeEach(async () => {
    ws = await tempWorkspace({
      'a.png': PNG,
      'abc.txt': ALPHABET,
      'README.md': '# hi\n',
      'data.json': '{"a":1}',
      'page.html': '<p>x</p>',
      'app.js': 'export {};',
      'icon.ICO': new Uint8Array([0, 0, 1, 0]),
      'pic.svg': '<svg/>',
      'noext-html': '<html><body>hello</body></html>',
      'noext-png': PNG,
      'noext-text': 'plain words, ünïcödé\n',
      'noext-binary': new Uint8Array([0x68, 0x69, 0x00, 0x01, 0x02]),
      'weird.zzzunknown': 'just text',
      empty: '',
      'dir/inner.txt': 'x',
    });
    await utimes(`${ws.root}/abc.txt`, MTIME, MTIME);
    await utimes(`${ws.root}/a.png`, MTIME, MTIME);
  });
  afterEach(() => ws.cleanup());

  const get = (path: string, headers: Record<string, string> = {}, method = 'GET') =>
    nodeApp(ws.root).fetch(request('/api/raw' + q({ path }), { method, headers }));

  it('streams an image as-is with the pinned type and Go ServeContent headers', async () => {
    const res = await get('a.png');
    expect(res.status).toBe(200);
    const headers = Object.fromEntries(res.headers);
    expect(headers).toEqual({
      'accept-ranges': 'bytes',
      'content-length': String(PNG.length),
      'content-type': 'image/png',
      etag: expect.stringMatching(/^"[0-9a-z]+-[0-9a-z]+-[0-9a-z]+"$/),
      'last-modified': LAST_MODIFIED,
      'x-content-type-options': 'nosniff',
      'content-security-policy': 'sandbox allow-scripts',
    });
    expect(await bytesOf(res)).toEqual(PNG);
  });

  it.each([
    ['a.png', 'image/png'],
    ['icon.ICO', 'image/x-icon'],
    ['pic.svg', 'image/svg+xml'],
    ['README.md', 'text/markdown; charset=utf-8'],
    ['data.json', 'application/json'],
    ['page.html', 'text/html; charset=utf-8'],
    ['app.js', 'text/javascript; charset=utf-8'],
    ['abc.txt', 'text/plain; charset=utf-8'],
    ['noext-html', 'text/html; charset=utf-8'],
    ['noext-png', 'image/png'],
    ['noext-text', 'text/plain; charset=utf-8'],
    ['noext-binary', 'application/octet-stream'],
    ['weird.zzzunknown', 'text/plain; charset=utf-8'],
    ['empty', 'text/plain; charset=utf-8'],
  ])('%s is served as %s', async (path, type) => {
    const res = await get(path);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe(type);
    await res.body?.cancel(); // releases the file handle
  });

  it('serves an empty file as 200 with Content-Length 0', async () => {
    const res = await get('empty');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-length')).toBe('0');
    expect(await bytesOf(res)).toEqual(new Uint8Array());
  });

  it('HEAD: the same headers, no body', async () => {
    const head = await get('a.png', {}, 'HEAD');
    const full = await get('a.png');
    expect(head.status).toBe(200);
    expect(Object.fromEntries(head.headers)).toEqual(Object.fromEntries(full.headers));
    expect(head.body).toBeNull();
    await full.body?.cancel();
  });

  it('has no size cap and no text requirement (a 3 MiB binary file streams whole)', async () => {
    const big = new Uint8Array(3 * 1024 * 1024 + 7).map((_, i) => (i * 31) & 0xff);
    await writeFile(`${ws.root}/big.bin`, big);
    const res = await get('big.bin');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/octet-stream');
    expect(res.headers.get('content-length')).toBe(String(big.length));
    expect(sameBytes(await bytesOf(res), big)).toBe(true);
  });

  describe('errors', () => {
    it('a missing path is 400', async () => {
      const res = await nodeApp(ws.root).fetch(request('/api/raw'));
      expect(res.status).toBe(400);
      expect((await res.json()).error).toMatch(/missing path/);
    });

    it('a directory is 400, a missing file 404, outside the root 403, no token 401', async () => {
      const dir = await get('dir');
      expect(dir.status).toBe(400);
      expect(await dir.json()).toEqual({ error: 'path is a directory' });
      const missing = await get('nope.png');
      expect(missing.status).toBe(404);
      expect(await missing.json()).toEqual({ error: 'no such file or directory' });
      const outside = await get('../x');
      expect(outside.status).toBe(403);
      const anonymous = await nodeApp(ws.root).fetch(
        request('/api/raw' + q({ path: 'a.png' }), { headers: { authorization: 'Bearer wrong' } }),
      );
      expect(anonymous.status).toBe(401);
    });
  });

  describe('ranges', () => {
    it('a single range is 206 with Content-Range and those bytes', async () => {
      const res = await get('abc.txt', { range: 'bytes=2-5' });
      expect(res.status).toBe(206);
      expect(res.headers.get('content-range')).toBe('bytes 2-5/26');
      expect(res.headers.get('content-length')).toBe('4');
      expect(res.headers.get('content-type')).toBe('text/plain; charset=utf-8');
      expect(res.headers.get('accept-ranges')).toBe('bytes');
      expect(await textOf(res)).toBe('cdef');
    });

    it('suffix and open ranges', async () => {
      const suffix = await get('abc.txt', { range: 'bytes=-3' });
      expect(suffix.status).toBe(206);
      expect(suffix.headers.get('content-range')).toBe('bytes 23-25/26');
      expect(await textOf(suffix)).toBe('xyz');
      const open = await get('abc.txt', { range: 'bytes=20-' });
      expect(open.headers.get('content-range')).toBe('bytes 20-25/26');
      expect(await textOf(open)).toBe('uvwxyz');
    });

    it('several ranges are multipart/byteranges with per-part headers and an exact Content-Length', async () => {
      const res = await get('abc.txt', { range: 'bytes=0-1,24-' });
      expect(res.status).toBe(206);
      const boundary = /^multipart\/byteranges; boundary=([0-9a-f]{60})$/.exec(res.headers.get('content-type')!)?.[1];
      expect(boundary).toBeDefined();
      const body = await textOf(res);
      expect(body).toBe(
        `--${boundary}\r\nContent-Range: bytes 0-1/26\r\nContent-Type: text/plain; charset=utf-8\r\n\r\nab` +
          `\r\n--${boundary}\r\nContent-Range: bytes 24-25/26\r\nContent-Type: text/plain; charset=utf-8\r\n\r\nyz` +
          `\r\n--${boundary}--\r\n`,
      );
      expect(res.headers.get('content-length')).toBe(String(body.length));
    });

    it('an unsatisfiable range is 416 with Content-Range bytes */size and the ori error body', async () => {
      const res = await get('abc.txt', { range: 'bytes=26-' });
      expect(res.status).toBe(416);
      expect(res.headers.get('content-range')).toBe('bytes */26');
      expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(res.headers.has('etag')).toBe(false);
      expect(res.headers.has('last-modified')).toBe(false);
      expect(await res.json()).toEqual({ error: 'invalid range: failed to overlap' });
    });

    it('a malformed range is 416 without Content-Range (as Go)', async () => {
      const res = await get('abc.txt', { range: 'bytes=9-3' });
      expect(res.status).toBe(416);
      expect(res.headers.has('content-range')).toBe(false);
      expect(await res.json()).toEqual({ error: 'invalid range' });
    });

    it('ranges asking for more than the file hold are ignored: 200 with the whole file', async () => {
      const res = await get('abc.txt', { range: 'bytes=0-20,5-25' });
      expect(res.status).toBe(200);
      expect(await textOf(res)).toBe(ALPHABET);
    });

    it('an empty file ignores the Range header', async () => {
      const res = await get('empty', { range: 'bytes=0-10' });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-length')).toBe('0');
    });

    it('a range of a large file reads only that window', async () => {
      const big = new Uint8Array(2 * 1024 * 1024).map((_, i) => (i * 7) & 0xff);
      await writeFile(`${ws.root}/big.bin`, big);
      const res = await get('big.bin', { range: 'bytes=1048570-1048580' });
      expect(res.status).toBe(206);
      expect(await bytesOf(res)).toEqual(big.subarray(1048570, 1048581));
    });
  });

  describe('conditional requests', () => {
    const etagOf = async (path: string) => (await get(path, {}, 'HEAD')).headers.get('etag')!;

    it('If-None-Match with the current ETag is 304 with no type, length or Last-Modified', async () => {
      const etag = await etagOf('abc.txt');
      const res = await get('abc.txt', { 'if-none-match': etag });
      expect(res.status).toBe(304);
      expect(Object.fromEntries(res.headers)).toEqual({ etag, 'x-content-type-options': 'nosniff', 'content-security-policy': 'sandbox allow-scripts' });
      expect(await textOf(res)).toBe('');
    });

    it('If-Modified-Since at the modification time is 304; an older date is 200', async () => {
      expect((await get('abc.txt', { 'if-modified-since': LAST_MODIFIED })).status).toBe(304);
      const older = await get('abc.txt', { 'if-modified-since': 'Mon, 06 May 2024 07:08:08 GMT' });
      expect(older.status).toBe(200);
      expect(await textOf(older)).toBe(ALPHABET);
    });

    it('If-Match that does not match is 412 with the ori error body', async () => {
      const res = await get('abc.txt', { 'if-match': '"stale"' });
      expect(res.status).toBe(412);
      expect(await res.json()).toEqual({ error: 'precondition failed' });
      const matching = await get('abc.txt', { 'if-match': await etagOf('abc.txt') });
      expect(matching.status).toBe(200);
      expect(await textOf(matching)).toBe(ALPHABET);
    });

    it('If-Unmodified-Since before the modification time is 412', async () => {
      const res = await get('abc.txt', { 'if-unmodified-since': 'Sun, 05 May 2024 00:00:00 GMT' });
      expect(res.status).toBe(412);
    });

    it('If-Range: the current ETag or date honours Range; a stale one serves the whole file', async () => {
      const etag = await etagOf('abc.txt');
      const fresh = await get('abc.txt', { range: 'bytes=0-2', 'if-range': etag });
      expect(fresh.status).toBe(206);
      expect(await textOf(fresh)).toBe('abc');
      const byDate = await get('abc.txt', { range: 'bytes=0-2', 'if-range': LAST_MODIFIED });
      expect(byDate.status).toBe(206);
      expect(await textOf(byDate)).toBe('abc');
      const stale = await get('abc.txt', { range: 'bytes=0-2', 'if-range': '"stale"' });
      expect(stale.status).toBe(200);
      expect(await textOf(stale)).toBe(ALPHABET);
    });

    it('the ETag changes when the content changes', async () => {
      const before = await etagOf('abc.txt');
      await writeFile(`${ws.root}/abc.txt`, 'changed');
      const after = await etagOf('abc.txt');
      expect(after).not.toBe(before);
      const res = await get('abc.txt', { 'if-none-match': before });
      expect(res.status).toBe(200);
      expect(await textOf(res)).toBe('changed');
    });
  });

  describe('reads', () => {
    /** NodeFileSystem that records how the handler reads. */
    function recordingFs() {
      const calls: Array<[string, ByteRange | undefined]> = [];
      const inner = new NodeFileSystem();
      const fs: FileSystem = Object.create(inner);
      fs.read = (path, range) => {
        calls.push(['read', range]);
        return inner.read(path, range);
      };
      fs.readStream = (path, range) => {
        calls.push(['readStream', range]);
        return inner.readStream(path, range);
      };
      return { fs, calls };
    }

    it('sniffs from the first 512 bytes only, then streams the file', async () => {
      const { fs, calls } = recordingFs();
      await writeFile(`${ws.root}/long-noext`, 'x'.repeat(10_000));
      const res = await nodeApp(ws.root, { fs }).fetch(request('/api/raw' + q({ path: 'long-noext' })));
      expect(res.headers.get('content-type')).toBe('text/plain; charset=utf-8');
      expect((await bytesOf(res)).length).toBe(10_000);
      expect(calls).toEqual([
        ['read', { offset: 0, length: 512 }],
        ['readStream', { offset: 0, length: 10_000 }],
      ]);
    });

    it('never reads for a known extension, nor for a 304, nor for HEAD', async () => {
      const { fs, calls } = recordingFs();
      const app = nodeApp(ws.root, { fs });
      await (await app.fetch(request('/api/raw' + q({ path: 'a.png' }), { method: 'HEAD' }))).arrayBuffer();
      await (
        await app.fetch(request('/api/raw' + q({ path: 'noext-text' }), { headers: { 'if-modified-since': 'Fri, 01 Jan 2100 00:00:00 GMT' } }))
      ).arrayBuffer();
      expect(calls).toEqual([]);
    });

    it('multipart streams each part from its own window', async () => {
      const { fs, calls } = recordingFs();
      const res = await nodeApp(ws.root, { fs }).fetch(
        request('/api/raw' + q({ path: 'abc.txt' }), { headers: { range: 'bytes=1-2,10-12' } }),
      );
      await res.arrayBuffer();
      expect(calls).toEqual([
        ['readStream', { offset: 1, length: 2 }],
        ['readStream', { offset: 10, length: 3 }],
      ]);
    });
  });

  it('serves a file inside a nested folder by absolute path', async () => {
    await mkdir(`${ws.root}/deep/er`, { recursive: true });
    await writeFile(`${ws.root}/deep/er/f.txt`, 'deep');
    const res = await get(`${ws.root}/deep/er/f.txt`);
    expect(res.status).toBe(200);
    expect(await textOf(res)).toBe('deep');
  });
});
