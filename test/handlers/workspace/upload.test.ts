/**
 * `POST /workspace/upload` — Intentic's plain byte route (not in the oRPC contract), so it is driven with
 * plain fetch requests as the browser sends them: the body as bytes or a stream, errors as `{ "error" }`.
 * Every case runs over the real disk and the memory backend; "nothing left" is checked by listing the whole
 * tree (temp files included).
 */
import { createHash } from 'node:crypto';
import { symlink } from 'node:fs/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { FileSystem } from '../../../adapters/fs/file-system.ts';
import { MemoryFileSystem } from '../../../adapters/fs/memory-file-system.ts';
import { NodeFileSystem } from '../../../adapters/fs/node-file-system.ts';
import type { Limits } from '../../../runtime/context.ts';
import { createWorkspaceApp, type WorkspaceApp } from '../../../runtime/app.ts';
import { startNodeServer } from '../../../runtime/node/server.ts';
import { q, request, tempWorkspace, TEST_TOKEN } from '../../support/workspace.ts';

interface Backend {
  kind: 'node' | 'memory';
  fs: FileSystem;
  root: string;
  cleanup(): Promise<void>;
}

const SEED = { 'doc.txt': 'hello\n', 'dir/inner.txt': 'inner' };

const backends: Array<[string, () => Promise<Backend>]> = [
  [
    'node',
    async () => {
      const ws = await tempWorkspace(SEED);
      return { kind: 'node', fs: new NodeFileSystem(), root: ws.root, cleanup: ws.cleanup };
    },
  ],
  [
    'memory',
    async () => ({
      kind: 'memory',
      fs: new MemoryFileSystem(Object.fromEntries(Object.entries(SEED).map(([k, v]) => [`/ws/${k}`, v]))),
      root: '/ws',
      cleanup: async () => {},
    }),
  ],
];

function pattern(length: number, seed = 0): Uint8Array {
  const out = new Uint8Array(length);
  for (let i = 0; i < length; i++) out[i] = (i * 131 + seed * 17 + (i >>> 9)) & 0xff;
  return out;
}

const sha256 = (bytes: Uint8Array | string) => createHash('sha256').update(bytes).digest('hex');

interface CountingStream {
  stream: ReadableStream<Uint8Array>;
  /** Bytes the server pulled from the body so far. */
  readonly pulled: number;
}

/** A chunked body (no Content-Length of its own) that counts what was pulled; `failAfter` breaks it mid-way. */
function streamOf(bytes: Uint8Array, options: { chunk?: number; failAfter?: number } = {}): CountingStream {
  const chunk = options.chunk ?? 64 * 1024;
  let position = 0;
  const stream = new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        if (options.failAfter !== undefined && position >= options.failAfter) {
          controller.error(new Error('client went away'));
          return;
        }
        if (position >= bytes.byteLength) {
          controller.close();
          return;
        }
        const next = Math.min(position + chunk, bytes.byteLength);
        controller.enqueue(bytes.slice(position, next));
        position = next;
      },
    },
    { highWaterMark: 0 },
  );
  return {
    stream,
    get pulled() {
      return position;
    },
  };
}

describe.each(backends)('POST /workspace/upload (%s)', (_name, makeBackend) => {
  let backend: Backend;
  let app: WorkspaceApp;
  const open = (limits: Partial<Limits> = {}) => {
    app = createWorkspaceApp({ fs: backend.fs, root: backend.root, auth: { token: TEST_TOKEN }, limits });
  };
  beforeEach(async () => {
    backend = await makeBackend();
    open();
  });
  afterEach(async () => {
    await app.close();
    await backend.cleanup();
  });

  const abs = (relative: string) => `${backend.root}/${relative}`;
  const bytesOnDisk = (relative: string) => backend.fs.read(abs(relative));
  const textOnDisk = async (relative: string) => new TextDecoder().decode(await bytesOnDisk(relative));

  /** Every entry under the root, folders with a trailing slash: temp files cannot hide from it. */
  async function tree(folder = backend.root, prefix = ''): Promise<string[]> {
    const out: string[] = [];
    for (const entry of await backend.fs.readdir(folder)) {
      if (entry.type === 'dir') {
        out.push(`${prefix}${entry.name}/`, ...(await tree(`${folder}/${entry.name}`, `${prefix}${entry.name}/`)));
      } else {
        out.push(prefix + entry.name);
      }
    }
    return out.sort();
  }
  const SEEDED = ['dir/', 'dir/inner.txt', 'doc.txt'];

  const upload = (
    params: Record<string, string | number>,
    body: BodyInit | null,
    headers: Record<string, string> = {},
  ) => {
    const init: RequestInit & { duplex?: 'half' } = { method: 'POST', body, headers };
    if (body instanceof ReadableStream) init.duplex = 'half';
    return app.fetch(request('/workspace/upload' + q(params), init));
  };

  async function expectError(response: Response, status: number, error: string | RegExp): Promise<void> {
    expect(response.status).toBe(status);
    expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
    const body = await response.json();
    expect(Object.keys(body)).toEqual(['error']);
    if (typeof error === 'string') expect(body).toEqual({ error });
    else expect(body.error).toMatch(error);
  }

  it('streams the body to disk exactly and answers {ok: true} with the new version as ETag', async () => {
    const bytes = pattern(2_500_000);
    const res = await upload({ path: 'up/big.bin' }, streamOf(bytes, { chunk: 50_000 }).stream);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ ok: true });
    expect(Buffer.from(await bytesOnDisk('up/big.bin')).equals(Buffer.from(bytes))).toBe(true);
    const raw = await app.fetch(request('/api/raw' + q({ path: 'up/big.bin' }), { method: 'HEAD' }));
    expect(res.headers.get('etag')).toBe(raw.headers.get('etag'));
    expect(await tree()).toEqual([...SEEDED, 'up/', 'up/big.bin'].sort());
  });

  it('no offset, or offset=0, replaces the whole file (a shorter body leaves no tail)', async () => {
    expect((await upload({ path: 'doc.txt' }, 'replaced, much longer than before')).status).toBe(200);
    expect(await textOnDisk('doc.txt')).toBe('replaced, much longer than before');
    expect((await upload({ path: 'doc.txt', offset: 0 }, 'short')).status).toBe(200);
    expect(await textOnDisk('doc.txt')).toBe('short');
    expect((await upload({ path: 'empty.txt' }, null)).status).toBe(200);
    expect((await bytesOnDisk('empty.txt')).byteLength).toBe(0);
    expect(await tree()).toEqual([...SEEDED, 'empty.txt'].sort());
  });

  it('parts uploaded at their offsets reassemble the file exactly', async () => {
    const whole = pattern(1_000_003, 5);
    const partSize = 300_000;
    for (let offset = 0; offset < whole.byteLength; offset += partSize) {
      const part = whole.slice(offset, offset + partSize);
      const params: Record<string, string | number> = offset === 0 ? { path: 'parts.bin' } : { path: 'parts.bin', offset };
      const res = await upload(params, streamOf(part, { chunk: 70_000 }).stream);
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ ok: true });
    }
    expect(Buffer.from(await bytesOnDisk('parts.bin')).equals(Buffer.from(whole))).toBe(true);
    // A part may also rewrite the middle in place.
    expect((await upload({ path: 'doc.txt', offset: 2 }, 'LL')).status).toBe(200);
    expect(await textOnDisk('doc.txt')).toBe('heLLo\n');
    expect(await tree()).toEqual([...SEEDED, 'parts.bin'].sort());
  });

  it('offset past the end, or on a missing file, is 400 and changes nothing', async () => {
    await expectError(await upload({ path: 'doc.txt', offset: 7 }, 'x'), 400, 'offset 7 is past the end of the file (6 bytes)');
    await expectError(await upload({ path: 'nope.txt', offset: 1 }, 'x'), 400, 'offset 1 needs an existing file at least that long');
    await expectError(await upload({ path: 'new/nope.txt', offset: 3 }, 'x'), 400, /needs an existing file/);
    expect(await textOnDisk('doc.txt')).toBe('hello\n');
    expect(await tree()).toEqual(SEEDED);
  });

  it('bad offsets are 400 {error} and touch nothing', async () => {
    for (const offset of ['abc', '-1', '1.5', '', '1e3', ' 1', '0x10', '99999999999999999999']) {
      await expectError(await upload({ path: 'doc.txt', offset }, 'x'), 400, /offset/);
    }
    const twice = await app.fetch(request('/workspace/upload?path=doc.txt&offset=0&offset=1', { method: 'POST', body: 'x' }));
    await expectError(twice, 400, "invalid query: 'offset' is given more than once");
    expect(await textOnDisk('doc.txt')).toBe('hello\n');
    expect(await tree()).toEqual(SEEDED);
  });

  it('a missing path, a folder, a file as parent and the agents folder are 400', async () => {
    await expectError(await upload({}, 'x'), 400, /missing path/);
    await expectError(await upload({ path: 'dir' }, 'x'), 400, 'path is a directory');
    await expectError(await upload({ path: 'dir/' }, 'x'), 400, 'path is a directory');
    await expectError(await upload({ path: 'doc.txt/child' }, 'x'), 400, 'a parent of path is not a directory');
    await expectError(await upload({ path: '.agents/someone/f.txt' }, 'x'), 400, /agents folder/);
    expect(await tree()).toEqual(SEEDED);
  });

  it('a path that escapes the workspace is 400 {error} and writes nothing', async () => {
    for (const path of ['../escape.txt', '/etc/escape.txt', 'dir/../../escape.txt', '..\\escape.txt']) {
      await expectError(await upload({ path }, 'x'), 400, 'path is outside the workspace');
    }
    await expect(backend.fs.lstat(`${backend.root}/../escape.txt`.replace(/\/[^/]+\/\.\.\//, '/'))).rejects.toMatchObject({
      code: 'not-found',
    });
    expect(await tree()).toEqual(SEEDED);
  });

  it('a symlink that leaves the workspace is refused (node)', async (ctx) => {
    ctx.skip(backend.kind !== 'node', 'needs a link to a real folder outside');
    const outside = await tempWorkspace({ 'target.txt': 'outside' });
    try {
      await symlink(outside.root, abs('out'));
      await symlink(`${outside.root}/target.txt`, abs('out-file'));
      await expectError(await upload({ path: 'out/new.txt' }, 'x'), 400, 'path is outside the workspace');
      await expectError(await upload({ path: 'out-file' }, 'x'), 400, 'path is outside the workspace');
      expect(await new NodeFileSystem().readdir(outside.root)).toEqual([{ name: 'target.txt', type: 'file' }]);
      expect(new TextDecoder().decode(await new NodeFileSystem().read(`${outside.root}/target.txt`))).toBe('outside');
    } finally {
      await outside.cleanup();
    }
  });

  describe('x-intentic-base-hash', () => {
    it('the hash of the current text lets the save through', async () => {
      const res = await upload({ path: 'doc.txt' }, 'saved', { 'x-intentic-base-hash': sha256('hello\n') });
      expect(res.status).toBe(200);
      expect(await textOnDisk('doc.txt')).toBe('saved');
      // Upper-case hex names the same digest.
      const again = await upload({ path: 'doc.txt' }, 'again', { 'x-intentic-base-hash': sha256('saved').toUpperCase() });
      expect(again.status).toBe(200);
      expect(await textOnDisk('doc.txt')).toBe('again');
    });

    it('a stale hash is 409 and the file is unchanged', async () => {
      await backend.fs.write(abs('doc.txt'), 'changed by someone else');
      const res = await upload({ path: 'doc.txt' }, 'my edit', { 'x-intentic-base-hash': sha256('hello\n') });
      await expectError(res, 409, 'the file changed since it was read');
      expect(await textOnDisk('doc.txt')).toBe('changed by someone else');
      expect(await tree()).toEqual(SEEDED);
    });

    it('a file deleted since it was read is 409 and is not re-created', async () => {
      await backend.fs.remove(abs('doc.txt'));
      const res = await upload({ path: 'doc.txt' }, 'my edit', { 'x-intentic-base-hash': sha256('hello\n') });
      await expectError(res, 409, 'the file was deleted since it was read');
      expect(await tree()).toEqual(['dir/', 'dir/inner.txt']);
      const part = await upload({ path: 'doc.txt', offset: 2 }, 'xx', { 'x-intentic-base-hash': sha256('hello\n') });
      await expectError(part, 409, 'the file was deleted since it was read');
    });

    it('guards a part too: the right hash writes in place, a stale one is 409', async () => {
      const ok = await upload({ path: 'doc.txt', offset: 5 }, '!\n', { 'x-intentic-base-hash': sha256('hello\n') });
      expect(ok.status).toBe(200);
      expect(await textOnDisk('doc.txt')).toBe('hello!\n');
      const stale = await upload({ path: 'doc.txt', offset: 0 }, 'J', { 'x-intentic-base-hash': sha256('hello\n') });
      await expectError(stale, 409, 'the file changed since it was read');
      expect(await textOnDisk('doc.txt')).toBe('hello!\n');
    });

    it('concurrent saves on the same base: exactly one lands, the others are 409', async () => {
      const saves = Array.from({ length: 8 }, (_, i) => `save ${i} `.repeat(5000));
      const responses = await Promise.all(
        saves.map((text) => upload({ path: 'doc.txt' }, streamOf(new TextEncoder().encode(text), { chunk: 8192 }).stream, {
          'x-intentic-base-hash': sha256('hello\n'),
        })),
      );
      const statuses = responses.map((r) => r.status);
      expect(statuses.filter((s) => s === 200)).toHaveLength(1);
      expect(statuses.filter((s) => s === 409)).toHaveLength(7);
      for (const res of responses.filter((r) => r.status === 409)) {
        expect((await res.json()).error).toMatch(/^the file changed (since it was read|while the write was decided)$/);
      }
      expect(await textOnDisk('doc.txt')).toBe(saves[statuses.indexOf(200)]);
      expect(await tree()).toEqual(SEEDED);
    });

    it('hashes a file larger than the one-shot cap by streaming it', async () => {
      const big = pattern(9 * 1024 * 1024, 2);
      await backend.fs.write(abs('big.bin'), big);
      const res = await upload({ path: 'big.bin' }, 'small now', { 'x-intentic-base-hash': sha256(big) });
      expect(res.status).toBe(200);
      expect(await textOnDisk('big.bin')).toBe('small now');
    });

    it('a malformed hash is 400', async () => {
      for (const hash of ['abc', sha256('x').slice(1), `${sha256('x')}0`, 'g'.repeat(64)]) {
        await expectError(await upload({ path: 'doc.txt' }, 'x', { 'x-intentic-base-hash': hash }), 400, /x-intentic-base-hash/);
      }
      expect(await textOnDisk('doc.txt')).toBe('hello\n');
    });
  });

  describe('the upload cap', () => {
    beforeEach(() => open({ maxUploadBytes: 100_000 }));

    it('exactly the cap is accepted', async () => {
      expect((await upload({ path: 'cap.bin' }, streamOf(pattern(100_000)).stream)).status).toBe(200);
      expect((await bytesOnDisk('cap.bin')).byteLength).toBe(100_000);
    });

    it('a declared Content-Length over the cap is 413 before a byte is read: no file, no temp file', async () => {
      const body = streamOf(pattern(100_001));
      const res = await upload({ path: 'new/over.bin' }, body.stream, { 'content-length': '100001' });
      await expectError(res, 413, 'upload exceeds the 100000-byte limit');
      expect(body.pulled).toBe(0);
      const part = streamOf(pattern(10));
      await expectError(await upload({ path: 'doc.txt', offset: 99_995 }, part.stream, { 'content-length': '10' }), 413, /limit/);
      expect(part.pulled).toBe(0);
      expect(await tree()).toEqual(SEEDED);
    });

    it('a chunked body that runs over the cap is 413 and leaves nothing: no file, temp file or folder', async () => {
      const body = streamOf(pattern(1_000_000), { chunk: 16_384 });
      await expectError(await upload({ path: 'new/deep/over.bin' }, body.stream), 413, 'upload exceeds the 100000-byte limit');
      expect(body.pulled).toBeLessThan(1_000_000); // the rest of the body was not read
      expect(await tree()).toEqual(SEEDED);
    });

    it('over the cap keeps the file it would have replaced, and a part over it changes nothing', async () => {
      await expectError(await upload({ path: 'doc.txt' }, streamOf(pattern(150_000)).stream), 413, /limit/);
      expect(await textOnDisk('doc.txt')).toBe('hello\n');
      await expectError(await upload({ path: 'doc.txt', offset: 3 }, streamOf(pattern(100_000)).stream), 413, /limit/);
      expect(await textOnDisk('doc.txt')).toBe('hello\n');
      await expectError(await upload({ path: 'doc.txt', offset: 100_001 }, 'x'), 413, /limit/);
      expect(await tree()).toEqual(SEEDED);
    });
  });

  it('a body that breaks off mid-upload is 400 and leaves the old file and no temp file', async () => {
    const res = await upload({ path: 'doc.txt' }, streamOf(pattern(500_000), { failAfter: 200_000 }).stream);
    await expectError(res, 400, 'the request body ended before it was complete');
    expect(await textOnDisk('doc.txt')).toBe('hello\n');
    const part = await upload({ path: 'doc.txt', offset: 1 }, streamOf(pattern(500_000), { failAfter: 100_000 }).stream);
    await expectError(part, 400, 'the request body ended before it was complete');
    expect(await textOnDisk('doc.txt')).toBe('hello\n');
    expect(await tree()).toEqual(SEEDED);
  });

  it('agent= goes to that agent: a malformed id is 400, an unknown one 404, nothing written', async () => {
    await expectError(await upload({ path: 'doc.txt', agent: 'bad id!' }, 'x'), 400, /invalid agent id/);
    await expectError(await upload({ path: 'doc.txt', agent: 'ghost' }, 'x'), 404, 'unknown agent: ghost');
    expect(await textOnDisk('doc.txt')).toBe('hello\n');
    expect(await tree()).toEqual(SEEDED);
  });

  it('agent= writes into that agent\'s copy only; its base hash is of the agent\'s text', async () => {
    const created = await app.fetch(
      request('/workspace/agents', { method: 'POST', body: JSON.stringify({ agent: 'a1' }), headers: { 'content-type': 'application/json' } }),
    );
    expect(created.status).toBe(200);
    const agentText = async (relative: string) =>
      (await app.fetch(request('/workspace/raw' + q({ path: relative, agent: 'a1' })))).text();
    expect((await upload({ path: 'doc.txt', agent: 'a1' }, 'agent edit')).status).toBe(200);
    expect(await agentText('doc.txt')).toBe('agent edit');
    expect(await textOnDisk('doc.txt')).toBe('hello\n');
    const stale = await upload({ path: 'doc.txt', agent: 'a1' }, 'x', { 'x-intentic-base-hash': sha256('hello\n') });
    await expectError(stale, 409, 'the file changed since it was read');
    const fresh = await upload({ path: 'doc.txt', agent: 'a1', offset: 5 }, '!', { 'x-intentic-base-hash': sha256('agent edit') });
    expect(fresh.status).toBe(200);
    expect(await agentText('doc.txt')).toBe('agent!edit');
    expect((await upload({ path: 'only-agent.bin', agent: 'a1' }, streamOf(pattern(200_000)).stream)).status).toBe(200);
    const raw = await app.fetch(request('/workspace/raw' + q({ path: 'only-agent.bin', agent: 'a1' })));
    expect(Buffer.from(await raw.arrayBuffer()).equals(Buffer.from(pattern(200_000)))).toBe(true);
    await expect(backend.fs.stat(abs('only-agent.bin'))).rejects.toMatchObject({ code: 'not-found' });
  });

  it('needs the token', async () => {
    const res = await app.fetch(
      request('/workspace/upload' + q({ path: 'doc.txt' }), { method: 'POST', body: 'x', headers: { authorization: 'Bearer wrong' } }),
    );
    await expectError(res, 401, 'missing or invalid token');
    expect(await textOnDisk('doc.txt')).toBe('hello\n');
  });
});

describe('POST /workspace/upload over a real socket', () => {
  it('a chunked body streams to disk as sent; a Content-Length over the cap is 413 before it is read', async () => {
    const ws = await tempWorkspace();
    const server = await startNodeServer({
      root: ws.root,
      port: 0,
      auth: { token: TEST_TOKEN },
      watch: false,
      limits: { maxUploadBytes: 64 * 1024 * 1024 },
    });
    try {
      const bytes = pattern(48 * 1024 * 1024, 9);
      const body = streamOf(bytes, { chunk: 256 * 1024 });
      const init: RequestInit & { duplex: 'half' } = {
        method: 'POST',
        body: body.stream,
        duplex: 'half',
        headers: { authorization: `Bearer ${TEST_TOKEN}` },
      };
      const res = await fetch(`${server.url}/workspace/upload?path=socket.bin`, init);
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ ok: true });
      expect(sha256(await new NodeFileSystem().read(`${ws.root}/socket.bin`))).toBe(sha256(bytes));

      const over = await fetch(`${server.url}/workspace/upload?path=over.bin`, {
        method: 'POST',
        body: new Uint8Array(64 * 1024 * 1024 + 1),
        headers: { authorization: `Bearer ${TEST_TOKEN}` },
      });
      expect(over.status).toBe(413);
      expect(await over.json()).toEqual({ error: `upload exceeds the ${64 * 1024 * 1024}-byte limit` });
      expect((await new NodeFileSystem().readdir(ws.root)).map((e) => e.name)).toEqual(['socket.bin']);
    } finally {
      await server.close();
      await ws.cleanup();
    }
  });
});
