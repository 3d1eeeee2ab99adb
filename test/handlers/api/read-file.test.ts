import { execFileSync } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { FileSystem } from '../../../adapters/fs/file-system.ts';
import { NodeFileSystem } from '../../../adapters/fs/node-file-system.ts';
import { withOverrides } from '../../support/with-overrides.ts';
import { nodeApp, q, request, tempWorkspace, type TempWorkspace } from '../../support/workspace.ts';

describe('GET /api/file', () => {
  let ws: TempWorkspace;
  beforeEach(async () => {
    ws = await tempWorkspace({ 'hello.md': '# Hi 👋\r\nline 2\n', 'dir/x.txt': 'x', 'empty.txt': '' });
  });
  afterEach(() => ws.cleanup());
  const get = (query: string, overrides = {}) => nodeApp(ws.root, overrides).fetch(request('/api/file' + query));

  it('returns the exact UTF-8 text with its real path', async () => {
    const res = await get(q({ path: 'hello.md' }));
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ path: `${ws.root}/hello.md`, content: '# Hi 👋\r\nline 2\n' });
    expect(await (await get(q({ path: 'empty.txt' }))).json()).toEqual({ path: `${ws.root}/empty.txt`, content: '' });
  });

  it('takes the bytes and the ETag from one storage read (no separate stat on this hot path)', async () => {
    const inner = new NodeFileSystem();
    const calls: string[] = [];
    const fs = withOverrides<FileSystem>(inner, {
      stat: (path) => (calls.push('stat'), inner.stat(path)),
      read: (path, range) => (calls.push('read'), inner.read(path, range)),
      readWithStat: (path, range) => (calls.push('readWithStat'), inner.readWithStat(path, range)),
    });
    const res = await nodeApp(ws.root, { fs }).fetch(request('/api/file' + q({ path: 'hello.md' })));
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ path: `${ws.root}/hello.md`, content: '# Hi 👋\r\nline 2\n' });
    expect(res.headers.get('etag')).toBe(`"${(await inner.stat(`${ws.root}/hello.md`)).version}"`);
    expect(calls).toEqual(['readWithStat']);
  });

  it('keeps a UTF-8 byte order mark as content', async () => {
    await writeFile(`${ws.root}/bom.txt`, Buffer.from([0xef, 0xbb, 0xbf, 0x61]));
    expect((await (await get(q({ path: 'bom.txt' }))).json()).content).toBe('\ufeffa');
  });

  it('answers 400 when path is missing or a directory', async () => {
    const missing = await get('');
    expect(missing.status).toBe(400);
    expect((await missing.json()).error).toMatch(/missing path/);
    const dir = await get(q({ path: 'dir' }));
    expect(dir.status).toBe(400);
    expect(await dir.json()).toEqual({ error: 'path is a directory' });
  });

  it('answers 400 for a FIFO without blocking on it', async () => {
    execFileSync('mkfifo', [`${ws.root}/pipe`]);
    const res = await get(q({ path: 'pipe' }));
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: 'not a regular file' });
  });

  it('answers 400 for a file named with a trailing slash, and for an over-long name', async () => {
    const slash = await get(q({ path: 'hello.md/' }));
    expect(slash.status).toBe(400);
    expect(await slash.json()).toEqual({ error: 'not a directory' });
    const long = await get(q({ path: 'a'.repeat(300) }));
    expect(long.status).toBe(400);
    expect(await long.json()).toEqual({ error: 'file name too long' });
  });

  it('answers 404 for a missing file', async () => {
    const res = await get(q({ path: 'nope.txt' }));
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ error: 'no such file or directory' });
  });

  it('answers 415 for invalid UTF-8 and for text holding a NUL byte', async () => {
    await writeFile(`${ws.root}/latin1.txt`, Buffer.from([0x63, 0x61, 0x66, 0xe9]));
    await writeFile(`${ws.root}/nul.txt`, 'a\0b');
    for (const path of ['latin1.txt', 'nul.txt']) {
      const res = await get(q({ path }));
      expect(res.status).toBe(415);
      expect(await res.json()).toEqual({ error: 'file is not valid UTF-8 text' });
    }
  });

  it('serves exactly 5 MiB and answers 413 one byte above', async () => {
    const cap = 5 * 1024 * 1024;
    await writeFile(`${ws.root}/at-cap.txt`, 'a'.repeat(cap));
    await writeFile(`${ws.root}/over-cap.txt`, 'a'.repeat(cap + 1));
    const at = await get(q({ path: 'at-cap.txt' }));
    expect(at.status).toBe(200);
    expect((await at.json()).content.length).toBe(cap);
    const over = await get(q({ path: 'over-cap.txt' }));
    expect(over.status).toBe(413);
    expect(await over.json()).toEqual({ error: `file is larger than ${cap} bytes` });
  });

  it('refuses paths outside the workspace with 403', async () => {
    for (const path of ['../../etc/passwd', '/etc/passwd', '..%2f..%2fetc%2fpasswd']) {
      const res = await get(`?path=${path}`);
      expect(res.status, path).toBe(403);
    }
  });

  it('answers a NUL byte in the path with 400', async () => {
    const res = await get('?path=hello.md%00.png');
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: 'path contains a NUL byte' });
  });

  it('reads absolute paths outside the root when unrestricted', async () => {
    await writeFile(`${ws.root}/../wsapi-unrestricted-probe.txt`, 'outside');
    try {
      const res = await get(q({ path: `${ws.root}/../wsapi-unrestricted-probe.txt` }), { unrestricted: true });
      expect(res.status).toBe(200);
      expect((await res.json()).content).toBe('outside');
    } finally {
      await (await import('node:fs/promises')).rm(`${ws.root}/../wsapi-unrestricted-probe.txt`);
    }
  });
});
