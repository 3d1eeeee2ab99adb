import { execFile } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { promisify } from 'node:util';
import { fetch } from 'undici';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { FileSystem } from '../../../adapters/fs/file-system.ts';
import { MemoryFileSystem } from '../../../adapters/fs/memory-file-system.ts';
import { NodeFileSystem } from '../../../adapters/fs/node-file-system.ts';
import type { FeedFrame } from '../../../core/changes/change-feed.ts';
import { createWorkspaceApp, type WorkspaceApp, type WorkspaceAppOptions } from '../../../runtime/app.ts';
import { startNodeServer, type NodeServer } from '../../../runtime/node/server.ts';
import { waitFor } from '../../support/processes.ts';
import { RpcClient } from '../../support/rpc-client.ts';
import { openChangeStream, SseFrames, SSE_TIMEOUT_MS } from '../../support/sse-frames.ts';
import { withOverrides } from '../../support/with-overrides.ts';
import { q, request, tempWorkspace, TEST_TOKEN } from '../../support/workspace.ts';

const sh = promisify(execFile);

const isChangeOf = (path: string) => (frame: FeedFrame) => frame.kind === 'change' && frame.change.absolutePath === path;

for (const backend of ['node', 'memory'] as const) {
  describe(`GET /workspace-files/changes in process (${backend})`, () => {
    let root: string;
    let fs: FileSystem;
    let app: WorkspaceApp;
    let cleanup: () => Promise<void>;
    const open: SseFrames[] = [];

    async function makeApp(overrides: Partial<WorkspaceAppOptions> = {}) {
      await app?.close();
      app = createWorkspaceApp({ fs, root, auth: { token: TEST_TOKEN }, ...overrides });
      return app;
    }

    beforeEach(async () => {
      if (backend === 'node') {
        const ws = await tempWorkspace({ 'keep.txt': 'keep', 'dir/inner.txt': 'inner' });
        root = ws.root;
        fs = new NodeFileSystem();
        cleanup = ws.cleanup;
      } else {
        root = '/ws';
        fs = new MemoryFileSystem({ '/ws/keep.txt': 'keep', '/ws/dir/inner.txt': 'inner' });
        cleanup = async () => {};
      }
      await makeApp();
    });
    afterEach(async () => {
      for (const reader of open.splice(0)) await reader.cancel().catch(() => {});
      await app.close();
      await cleanup();
    });

    async function subscribe(query = ''): Promise<{ response: Response; events: SseFrames }> {
      const response = await app.fetch(request('/workspace-files/changes' + query));
      expect(response.status).toBe(200);
      const events = new SseFrames(response.body!);
      open.push(events);
      return { response, events };
    }
    const put = (path: string, content: string) =>
      app.fetch(request('/api/file' + q({ path }), { method: 'PUT', body: JSON.stringify({ content }) }));
    const versionOf = async (path: string) => (await fs.lstat(path)).version;

    it('answers an event stream whose first event is exactly {"kind":"ready"}', async () => {
      const { response, events } = await subscribe();
      expect(response.headers.get('content-type')).toBe('text/event-stream');
      expect(response.headers.get('cache-control')).toBe('no-cache, no-transform');
      expect(response.headers.get('x-accel-buffering')).toBe('no');
      expect(await events.block()).toBe('data: {"kind":"ready"}');
    });

    it('a write through any endpoint is in the stream by the time its response arrives', async () => {
      const { events } = await subscribe();
      await events.frame();
      expect((await put('new.txt', 'hello')).status).toBe(200);
      // Already queued: read with a deadline far below any watcher's latency (and there is no watcher here).
      const block = await events.block(1000);
      expect(block).toBe(`data: ${JSON.stringify({ kind: 'change', change: { absolutePath: `${root}/new.txt`, version: await versionOf(`${root}/new.txt`) } })}`);
      const removed = await app.fetch(
        request('/workspace/entry', { method: 'DELETE', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ path: 'keep.txt' }) }),
      );
      expect(removed.status).toBe(200);
      expect(await events.frame(1000)).toEqual({ kind: 'change', change: { absolutePath: `${root}/keep.txt`, absent: true } });
    });

    it('coalesces a burst to one path into its latest version', async () => {
      const { events } = await subscribe();
      await events.frame();
      await put('prefetched.txt', 'p'); // taken by the stream's one-frame read-ahead
      for (let i = 0; i < 5; i++) await put('burst.txt', `v${i}`);
      await put('after.txt', 'a');
      expect(await events.frame()).toEqual({ kind: 'change', change: { absolutePath: `${root}/prefetched.txt`, version: await versionOf(`${root}/prefetched.txt`) } });
      expect(await events.frame()).toEqual({ kind: 'change', change: { absolutePath: `${root}/burst.txt`, version: await versionOf(`${root}/burst.txt`) } });
      expect(await events.frame()).toEqual({ kind: 'change', change: { absolutePath: `${root}/after.txt`, version: await versionOf(`${root}/after.txt`) } });
    });

    it('a subscriber that falls behind its bound gets one resync, then what came after', async () => {
      await makeApp({ limits: { changesMaxQueue: 2 } });
      const { events } = await subscribe();
      expect(await events.frame()).toEqual({ kind: 'ready' });
      await put('a.txt', 'a'); // the stream's read-ahead takes this one
      for (const name of ['b', 'c', 'd', 'e', 'f', 'g']) await put(`${name}.txt`, name); // overflows twice
      await put('after.txt', 'z');
      expect(await events.frame()).toEqual({ kind: 'change', change: { absolutePath: `${root}/a.txt`, version: await versionOf(`${root}/a.txt`) } });
      expect(await events.frame()).toEqual({ kind: 'resync' });
      expect(await events.frame()).toEqual({ kind: 'change', change: { absolutePath: `${root}/after.txt`, version: await versionOf(`${root}/after.txt`) } });
    });

    it('reports only changes inside the workspace root, and none in the agents folder', async () => {
      const { events } = await subscribe();
      await events.frame();
      app.changes.publish({ absolutePath: '/elsewhere/x.txt', version: '1' });
      app.changes.publish({ absolutePath: `${root}x/sibling.txt`, version: '1' });
      app.changes.publish({ absolutePath: `${root}/.agents/a1/copy.txt`, version: '1' });
      await put('inside.txt', 'i');
      expect(await events.frame()).toEqual({ kind: 'change', change: { absolutePath: `${root}/inside.txt`, version: await versionOf(`${root}/inside.txt`) } });
    });

    it('sends a keep-alive comment on an idle stream', async () => {
      await makeApp({ limits: { changesKeepAliveMs: 30 } });
      const { events } = await subscribe();
      expect(await events.block()).toBe('data: {"kind":"ready"}');
      expect(await events.block()).toBe(': keep-alive');
    });

    it('closes the subscription when the client goes away', async () => {
      const { events } = await subscribe();
      await events.frame();
      expect(app.changes.subscriberCount).toBe(1);
      await events.cancel();
      expect(app.changes.subscriberCount).toBe(0);
    });

    it('ends the stream when the app closes', async () => {
      const { events } = await subscribe();
      await events.frame();
      await app.close();
      expect(await events.frame()).toBeUndefined();
    });

    it('an agent sees its own writes at the paths its view presents', async () => {
      const created = await app.fetch(
        request('/workspace/agents', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ agent: 'a1' }) }),
      );
      expect(created.status).toBe(200);
      const shared = await subscribe();
      const agent = await subscribe(q({ agent: 'a1' }));
      await shared.events.frame();
      await agent.events.frame();
      const upload = await app.fetch(request('/workspace/upload' + q({ path: 'notes.txt', agent: 'a1' }), { method: 'POST', body: 'mine' }));
      expect(upload.status).toBe(200);
      const frame = await agent.events.until(isChangeOf(`${root}/notes.txt`));
      expect(frame).toEqual({ kind: 'change', change: { absolutePath: `${root}/notes.txt`, version: expect.any(String) } });
      // The shared stream does not hear the agent's private write.
      await put('shared.txt', 's');
      const skipped: FeedFrame[] = [];
      await shared.events.until(isChangeOf(`${root}/shared.txt`), skipped);
      expect(skipped.filter((f) => f.kind === 'change' && f.change.absolutePath.endsWith('notes.txt'))).toEqual([]);
    });

    it('refuses a malformed or unknown agent, and a missing token, before any stream starts', async () => {
      const malformed = await app.fetch(request('/workspace-files/changes' + q({ agent: '../x' })));
      expect(malformed.status).toBe(400);
      expect(await malformed.json()).toEqual({
        error: { code: 'gateway/bad-request', message: 'invalid agent id: "../x"', details: { agent: '../x' } },
      });
      const unknown = await app.fetch(request('/workspace-files/changes' + q({ agent: 'nobody' })));
      expect(unknown.status).toBe(404);
      expect(await unknown.json()).toEqual({
        error: { code: 'workspace-file/not-found', message: 'unknown agent: nobody', details: { agent: 'nobody' } },
      });
      const repeated = await app.fetch(request('/workspace-files/changes?agent=a&agent=b'));
      expect(repeated.status).toBe(400);
      expect(((await repeated.json()) as { error: { code: string } }).error.code).toBe('gateway/bad-request');
      const anonymous = await app.fetch(request('/workspace-files/changes', { headers: { authorization: 'Bearer wrong' } }));
      expect(anonymous.status).toBe(401);
      expect(await anonymous.json()).toEqual({
        error: { code: 'workspace-file/unauthorized', message: 'missing or invalid token', details: {} },
      });
      expect(app.changes.subscriberCount).toBe(0);
    });
  });
}

describe('GET /workspace-files/changes: ordering', () => {
  it('two concurrent writes to one path are reported in the order they landed (the last frame is the final version)', async () => {
    const inner = new MemoryFileSystem({ '/ws/race.txt': 'v0' });
    // The first write's report is held up (its realpath, right after the write, waits on a gate) while the
    // second write is under way: the report must still not overtake the second one's.
    let gate: Promise<void> | undefined;
    let release!: () => void;
    let armed = false;
    const fs = withOverrides<FileSystem>(inner, {
      async write(path, data, options) {
        const stat = await inner.write(path, data, options);
        if (path === '/ws/race.txt' && !armed) {
          armed = true;
          gate = new Promise((resolve) => (release = resolve));
        }
        return stat;
      },
      async realpath(path) {
        if (gate && path === '/ws/race.txt') {
          const held = gate;
          gate = undefined;
          await held;
        }
        return inner.realpath(path);
      },
    });
    const app = createWorkspaceApp({ fs, root: '/ws', auth: { token: TEST_TOKEN } });
    try {
      const events = new SseFrames((await app.fetch(request('/workspace-files/changes'))).body!);
      await events.frame();
      const put = (path: string, content: string) =>
        app.fetch(request('/api/file' + q({ path }), { method: 'PUT', body: JSON.stringify({ content }) }));
      const first = put('race.txt', 'first');
      const second = put('race.txt', 'second');
      await new Promise((resolve) => setTimeout(resolve, 50)); // time for the second to overtake, were it able to
      release();
      expect((await first).status).toBe(200);
      expect((await second).status).toBe(200);
      await put('marker.txt', 'm');
      const frames: FeedFrame[] = [];
      await events.until(isChangeOf('/ws/marker.txt'), frames);
      const last = frames.filter(isChangeOf('/ws/race.txt')).at(-1);
      expect(new TextDecoder().decode(await inner.read('/ws/race.txt'))).toBe('second');
      expect(last).toEqual({ kind: 'change', change: { absolutePath: '/ws/race.txt', version: (await inner.stat('/ws/race.txt')).version } });
      await events.cancel();
    } finally {
      await app.close();
    }
  });
});

describe('GET /workspace-files/changes over the real Node server, with the OS watcher', () => {
  let root: string;
  let cleanup: () => Promise<void>;
  let server: NodeServer;
  let events: SseFrames;
  let abort: AbortController;

  beforeEach(async () => {
    ({ root, cleanup } = await tempWorkspace({ 'seed.txt': 'seed' }));
    await mkdir(`${root}/.git`);
    server = await startNodeServer({ root, auth: { token: TEST_TOKEN }, port: 0 });
    // `ready` waits for the watcher's watches: everything after it is seen.
    ({ events, abort } = await openChangeStream(server.url, TEST_TOKEN));
  });
  afterEach(async () => {
    abort.abort();
    await server.close();
    await cleanup();
  });

  const versionOf = async (path: string) => (await new NodeFileSystem().lstat(path)).version;

  it('reports a shell write and a shell rm (changes made outside the API)', async () => {
    await sh('sh', ['-c', 'echo hello > shell.txt'], { cwd: root });
    const version = await versionOf(`${root}/shell.txt`);
    await events.until((f) => f.kind === 'change' && f.change.absolutePath === `${root}/shell.txt` && 'version' in f.change && f.change.version === version);
    await sh('sh', ['-c', 'rm seed.txt'], { cwd: root });
    expect(await events.until(isChangeOf(`${root}/seed.txt`))).toEqual({ kind: 'change', change: { absolutePath: `${root}/seed.txt`, absent: true } });
  });

  it('does not report .git internals; delivers an API write once although the watcher sees it too', async () => {
    const put = await fetch(`${server.url}/api/file?path=api.txt`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${TEST_TOKEN}` },
      body: JSON.stringify({ content: 'through the API' }),
    });
    expect(put.status).toBe(200);
    await put.arrayBuffer();
    // Written after, by one shell: once the marker is reported, the watcher has reported everything before it.
    await sh('sh', ['-c', 'echo ref > .git/HEAD && mkdir -p .git/objects/ab && echo obj > .git/objects/ab/cd && echo m > marker.txt'], { cwd: root });
    const skipped: FeedFrame[] = [];
    await events.until(isChangeOf(`${root}/marker.txt`), skipped);
    const paths = skipped.map((f) => (f.kind === 'change' ? f.change.absolutePath : f.kind));
    expect(paths.filter((path) => path.includes('/.git'))).toEqual([]);
    expect(skipped.filter(isChangeOf(`${root}/api.txt`))).toEqual([
      { kind: 'change', change: { absolutePath: `${root}/api.txt`, version: await versionOf(`${root}/api.txt`) } },
    ]);
  });

  it("never reports a folder copy's staging folder, only the copy", async () => {
    await mkdir(`${root}/src`);
    await Promise.all(Array.from({ length: 40 }, (_, i) => writeFile(`${root}/src/f${i}.txt`, `file ${i}`)));
    await sh('sh', ['-c', 'echo m > marker-1.txt'], { cwd: root });
    await events.until(isChangeOf(`${root}/marker-1.txt`));
    const rpc = await RpcClient.connect(server);
    try {
      expect((await rpc.call('copy_entry', { from: 'src', to: 'copy' })).ok).toBe(true);
    } finally {
      await rpc.close();
    }
    await sh('sh', ['-c', 'echo m > marker-2.txt'], { cwd: root });
    const skipped: FeedFrame[] = [];
    await events.until(isChangeOf(`${root}/marker-2.txt`), skipped);
    const paths = skipped.map((f) => (f.kind === 'change' ? f.change.absolutePath : f.kind));
    expect(paths.filter((path) => path.includes('.wsapi-'))).toEqual([]);
    expect(paths).toContain(`${root}/copy`);
  });

  it('a client that disconnects leaves no subscription behind', async () => {
    expect(server.changes.subscriberCount).toBe(1);
    abort.abort();
    await waitFor(() => server.changes.subscriberCount === 0, { timeoutMs: SSE_TIMEOUT_MS, what: 'the subscription to close' });
  });
});
