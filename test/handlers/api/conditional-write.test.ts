/**
 * Versions on the ori file API: `GET /api/file` and `PUT /api/file` send the file's version as `ETag` (the
 * tag `/api/raw` sends), and `PUT` honours `If-Match` / `If-None-Match: *` as one critical section with the
 * write. Run over the real disk and the memory backend alike.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { FileSystem } from '../../../adapters/fs/file-system.ts';
import { MemoryFileSystem } from '../../../adapters/fs/memory-file-system.ts';
import { NodeFileSystem } from '../../../adapters/fs/node-file-system.ts';
import { createWorkspaceApp, type WorkspaceApp } from '../../../runtime/app.ts';
import { q, request, tempWorkspace, TEST_TOKEN } from '../../support/workspace.ts';

interface Backend {
  fs: FileSystem;
  root: string;
  cleanup(): Promise<void>;
}

const backends: Array<[string, () => Promise<Backend>]> = [
  [
    'node',
    async () => {
      const ws = await tempWorkspace({ 'doc.txt': 'original', 'dir/x.txt': 'x' });
      return { fs: new NodeFileSystem(), root: ws.root, cleanup: ws.cleanup };
    },
  ],
  [
    'memory',
    async () => ({
      fs: new MemoryFileSystem({ '/ws/doc.txt': 'original', '/ws/dir/x.txt': 'x' }),
      root: '/ws',
      cleanup: async () => {},
    }),
  ],
];

const decoder = new TextDecoder();

describe.each(backends)('versions on /api/file (%s)', (_name, makeBackend) => {
  let backend: Backend;
  let app: WorkspaceApp;
  beforeEach(async () => {
    backend = await makeBackend();
    app = createWorkspaceApp({ fs: backend.fs, root: backend.root, auth: { token: TEST_TOKEN } });
  });
  afterEach(async () => {
    await app.close();
    await backend.cleanup();
  });

  const abs = (relative: string) => `${backend.root}/${relative}`;
  const onDisk = async (relative: string) => decoder.decode(await backend.fs.read(abs(relative)));
  const exists = (relative: string) => backend.fs.lstat(abs(relative)).then(() => true, () => false);
  const get = (relative: string) => app.fetch(request('/api/file' + q({ path: relative })));
  const put = (relative: string, content: string, headers: Record<string, string> = {}) =>
    app.fetch(request('/api/file' + q({ path: relative }), { method: 'PUT', body: JSON.stringify({ content }), headers }));
  const tagOf = async (relative: string) => (await get(relative)).headers.get('etag')!;

  it('GET /api/file sends the same strong ETag as /api/raw, and it moves when the file does', async () => {
    const res = await get('doc.txt');
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ path: abs('doc.txt'), content: 'original' });
    const tag = res.headers.get('etag');
    expect(tag).toMatch(/^"[\x21\x23-\x7e]+"$/);
    const raw = await app.fetch(request('/api/raw' + q({ path: 'doc.txt' })));
    expect(raw.headers.get('etag')).toBe(tag);
    expect(await raw.text()).toBe('original');
    await backend.fs.write(abs('doc.txt'), 'changed elsewhere');
    expect(await tagOf('doc.txt')).not.toBe(tag);
  });

  it('PUT sends the new version as ETag: the one the next GET sends', async () => {
    const before = await tagOf('doc.txt');
    const res = await put('doc.txt', 'saved');
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ path: abs('doc.txt'), status: 'saved' });
    const tag = res.headers.get('etag');
    expect(tag).not.toBe(before);
    expect(await tagOf('doc.txt')).toBe(tag);
    const created = await put('new/deep/file.txt', 'made');
    expect(created.headers.get('etag')).toBe(await tagOf('new/deep/file.txt'));
  });

  it('If-Match with the current tag writes; the stale tag afterwards is 412 and changes nothing', async () => {
    const tag = await tagOf('doc.txt');
    const first = await put('doc.txt', 'edit 1', { 'if-match': tag });
    expect(first.status).toBe(200);
    expect(await onDisk('doc.txt')).toBe('edit 1');
    const stale = await put('doc.txt', 'edit 2', { 'if-match': tag });
    expect(stale.status).toBe(412);
    expect(await stale.json()).toEqual({ error: 'precondition failed: the file has changed' });
    expect(stale.headers.get('etag')).toBeNull();
    expect(await onDisk('doc.txt')).toBe('edit 1');
    expect(await tagOf('doc.txt')).toBe(first.headers.get('etag'));
  });

  it('If-Match accepts a list holding the current tag, never a weak tag', async () => {
    const tag = await tagOf('doc.txt');
    const weak = await put('doc.txt', 'weak', { 'if-match': `W/${tag}` });
    expect(weak.status).toBe(412);
    expect(await onDisk('doc.txt')).toBe('original');
    const listed = await put('doc.txt', 'listed', { 'if-match': `"nope", ${tag}` });
    expect(listed.status).toBe(200);
    expect(await onDisk('doc.txt')).toBe('listed');
  });

  it('If-Match on a missing file is 412, also for *, and creates nothing (no parent folders either)', async () => {
    for (const ifMatch of ['"anything"', '*']) {
      const res = await put('new/deep/file.txt', 'x', { 'if-match': ifMatch });
      expect(res.status).toBe(412);
      expect(await res.json()).toEqual({ error: 'precondition failed: the file does not exist' });
    }
    expect(await exists('new')).toBe(false);
  });

  it('If-Match: * writes an existing file', async () => {
    const res = await put('doc.txt', 'star', { 'if-match': '*' });
    expect(res.status).toBe(200);
    expect(await onDisk('doc.txt')).toBe('star');
  });

  it('If-None-Match: * creates a missing file (with its folders) and refuses an existing one with 412', async () => {
    const created = await put('new/deep/file.txt', 'created', { 'if-none-match': '*' });
    expect(created.status).toBe(200);
    expect(await onDisk('new/deep/file.txt')).toBe('created');
    const again = await put('new/deep/file.txt', 'again', { 'if-none-match': '*' });
    expect(again.status).toBe(412);
    expect(await again.json()).toEqual({ error: 'precondition failed: the file exists' });
    expect(await onDisk('new/deep/file.txt')).toBe('created');
    expect((await put('doc.txt', 'x', { 'if-none-match': '*' })).status).toBe(412);
    expect(await onDisk('doc.txt')).toBe('original');
  });

  it('a conditional PUT onto a folder is still 400 path is a directory', async () => {
    const res = await put('dir', 'x', { 'if-match': '*' });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: 'path is a directory' });
  });

  it('many concurrent If-Match PUTs with one tag: exactly one 200, the rest 412, the file holds the winner', async () => {
    const tag = await tagOf('doc.txt');
    const contents = Array.from({ length: 16 }, (_, i) => `writer ${i}: ` + 'x'.repeat(10_000 + i));
    const responses = await Promise.all(contents.map((content) => put('doc.txt', content, { 'if-match': tag })));
    const statuses = responses.map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    expect(statuses.filter((s) => s === 412)).toHaveLength(15);
    const winner = statuses.indexOf(200);
    expect(await onDisk('doc.txt')).toBe(contents[winner]);
    expect(await tagOf('doc.txt')).toBe(responses[winner]!.headers.get('etag'));
  });

  it('many concurrent If-None-Match: * PUTs of one new file: exactly one creates it', async () => {
    const responses = await Promise.all(
      Array.from({ length: 12 }, (_, i) => put('fresh.txt', `creator ${i}`, { 'if-none-match': '*' })),
    );
    const statuses = responses.map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    expect(statuses.filter((s) => s === 412)).toHaveLength(11);
    expect(await onDisk('fresh.txt')).toBe(`creator ${statuses.indexOf(200)}`);
  });
});
