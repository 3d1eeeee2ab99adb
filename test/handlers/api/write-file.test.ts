import { readdir, readFile, symlink } from 'node:fs/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { nodeApp, q, request, tempWorkspace, type TempWorkspace } from '../../support/workspace.ts';

describe('PUT /api/file', () => {
  let ws: TempWorkspace;
  beforeEach(async () => {
    ws = await tempWorkspace({ 'keep.txt': 'original', 'dir/x.txt': 'x' });
  });
  afterEach(() => ws.cleanup());
  const put = (query: string, body: BodyInit | null, headers: Record<string, string> = {}, overrides = {}) =>
    nodeApp(ws.root, overrides).fetch(request('/api/file' + query, { method: 'PUT', body, headers }));
  const json = (value: unknown) => JSON.stringify(value);

  it('writes the exact bytes, creating parent folders', async () => {
    const res = await put(q({ path: 'new/deep/file.txt' }), json({ content: 'héllo\r\n🌍' }));
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ path: `${ws.root}/new/deep/file.txt`, status: 'saved' });
    expect(await readFile(`${ws.root}/new/deep/file.txt`, 'utf8')).toBe('héllo\r\n🌍');
  });

  it('replaces an existing file and leaves no temp file behind', async () => {
    await put(q({ path: 'keep.txt' }), json({ content: 'replaced' }));
    expect(await readFile(`${ws.root}/keep.txt`, 'utf8')).toBe('replaced');
    expect((await readdir(ws.root)).sort()).toEqual(['dir', 'keep.txt']);
  });

  it('round-trips through GET /api/file', async () => {
    await put(q({ path: 'r.txt' }), json({ content: 'round' }));
    const res = await nodeApp(ws.root).fetch(request('/api/file' + q({ path: 'r.txt' })));
    expect(await res.json()).toEqual({ path: `${ws.root}/r.txt`, content: 'round' });
  });

  const bad: Array<[string, string, BodyInit | null, RegExp]> = [
    ['missing path', '', json({ content: 'x' }), /missing path/],
    ['empty path', '?path=', json({ content: 'x' }), /missing path/],
    ['invalid JSON', q({ path: 'keep.txt' }), '{"content": ', /^invalid JSON body$/],
    ['no body', q({ path: 'keep.txt' }), null, /^invalid JSON body$/],
    ['content missing', q({ path: 'keep.txt' }), json({ text: 'x' }), /content/],
    ['content not a string', q({ path: 'keep.txt' }), json({ content: 42 }), /content/],
    ['body not an object', q({ path: 'keep.txt' }), json(['x']), /invalid body/],
    ['a directory', q({ path: 'dir' }), json({ content: 'x' }), /^path is a directory$/],
    ['a file as parent', q({ path: 'keep.txt/child' }), json({ content: 'x' }), /not a directory/],
  ];
  for (const [name, query, body, message] of bad) {
    it(`answers 400 for ${name} and leaves the disk untouched`, async () => {
      const res = await put(query, body);
      expect(res.status).toBe(400);
      expect((await res.json()).error).toMatch(message);
      expect(await readFile(`${ws.root}/keep.txt`, 'utf8')).toBe('original');
      expect((await readdir(ws.root)).sort()).toEqual(['dir', 'keep.txt']);
      expect(await readdir(`${ws.root}/dir`)).toEqual(['x.txt']);
    });
  }

  it('answers 400 for a body that is not UTF-8', async () => {
    const res = await put(q({ path: 'keep.txt' }), new Uint8Array([0x7b, 0xff, 0x7d]));
    expect(res.status).toBe(400);
    expect(await readFile(`${ws.root}/keep.txt`, 'utf8')).toBe('original');
  });

  it('answers 413 for a body over the cap, by header or by streamed size', async () => {
    const big = json({ content: 'a'.repeat(2048) });
    const res = await put(q({ path: 'keep.txt' }), big, {}, { limits: { maxBodyBytes: 1024 } });
    expect(res.status).toBe(413);
    expect(await res.json()).toEqual({ error: 'request body exceeds 1024 bytes' });
    const stream = new ReadableStream({
      start(c) {
        c.enqueue(new TextEncoder().encode(big));
        c.close();
      },
    });
    const streamed = await nodeApp(ws.root, { limits: { maxBodyBytes: 1024 } }).fetch(
      request('/api/file' + q({ path: 'keep.txt' }), { method: 'PUT', body: stream, duplex: 'half' } as RequestInit),
    );
    expect(streamed.status).toBe(413);
    expect(await readFile(`${ws.root}/keep.txt`, 'utf8')).toBe('original');
  });

  it('refuses to write outside the workspace, directly or through a symlink, and creates nothing', async () => {
    const outsideDir = `${ws.root}-outside`;
    await symlink(outsideDir, `${ws.root}/escape`);
    for (const path of ['../evil.txt', `${ws.root}-outside/evil.txt`, 'escape/evil.txt', 'escape']) {
      const res = await put(q({ path }), json({ content: 'pwned' }));
      expect(res.status, path).toBe(403);
      expect(await res.json()).toEqual({ error: 'path is outside the workspace' });
    }
    await expect(readdir(outsideDir)).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('answers 400 for a path ending in a slash, existing or not', async () => {
    for (const path of ['dir/', 'new-folder/', 'keep.txt/', 'dir\\']) {
      const res = await put(q({ path }), json({ content: 'x' }));
      expect(res.status, path).toBe(400);
      expect(await res.json()).toEqual({ error: 'path is a directory' });
    }
    expect((await readdir(ws.root)).sort()).toEqual(['dir', 'keep.txt']);
  });

  it('saves a 255-byte multibyte name, and answers 400 for a longer one without leaving folders behind', async () => {
    const longest = '中'.repeat(85);
    const ok = await put(q({ path: `names/${longest}` }), json({ content: 'ok' }));
    expect(ok.status).toBe(200);
    expect(await readFile(`${ws.root}/names/${longest}`, 'utf8')).toBe('ok');
    const tooLong = await put(q({ path: `leftover/dir/${'中'.repeat(86)}` }), json({ content: 'x' }));
    expect(tooLong.status).toBe(400);
    expect(await tooLong.json()).toEqual({ error: 'file name too long' });
    expect((await readdir(ws.root)).sort()).toEqual(['dir', 'keep.txt', 'names']);
  });

  it('writes through a symlink inside the workspace to its target', async () => {
    await symlink('keep.txt', `${ws.root}/alias.txt`);
    const res = await put(q({ path: 'alias.txt' }), json({ content: 'via link' }));
    expect(await res.json()).toEqual({ path: `${ws.root}/keep.txt`, status: 'saved' });
    expect(await readFile(`${ws.root}/keep.txt`, 'utf8')).toBe('via link');
  });
});
