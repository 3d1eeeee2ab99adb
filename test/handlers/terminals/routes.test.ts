/**
 * The named-terminal HTTP routes in-process with real ptys (docs/terminals.md#named-terminals-over-http):
 * POST /terminals, GET /terminals, GET /terminals/{name} without an upgrade, DELETE
 * /terminals/{name}, and every refusal before a WebSocket upgrade. The sockets themselves are in
 * socket.test.ts (a real server).
 */
import { readlink } from 'node:fs/promises';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { NodePtyAdapter } from '../../../adapters/pty/node-pty-adapter.ts';
import type { WorkspaceApp } from '../../../runtime/app.ts';
import type { Limits } from '../../../runtime/context.ts';
import { isRunning, processesInSession, waitFor, usePlainShell } from '../../support/processes.ts';
import { FakePtyAdapter } from '../../support/terminals.ts';
import { nodeApp, request, tempWorkspace, type TempWorkspace } from '../../support/workspace.ts';

const UPGRADE_HEADERS = { upgrade: 'websocket', connection: 'Upgrade', 'sec-websocket-version': '13', 'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==' };
const NAME_RULE = "a terminal name is 1–128 of letters, digits, '.', '_', '-', starting with a letter or digit";
const FROM_RULE = 'invalid query: from: from must be a byte offset (digits)';

describe('named terminals over HTTP', () => {
  let workspace: TempWorkspace;
  let ptys: NodePtyAdapter;
  let app: WorkspaceApp;
  let apps: WorkspaceApp[] = [];

  usePlainShell();

  function start(limits: Partial<Limits> = {}) {
    app = nodeApp(workspace.root, { pty: ptys, limits });
    apps.push(app);
    return app;
  }

  beforeEach(async () => {
    workspace = await tempWorkspace({ 'hello.txt': 'hi\n', 'sub/inner.txt': 'x' });
    ptys = new NodePtyAdapter();
    start();
  });

  afterEach(async () => {
    await Promise.all(apps.map((each) => each.close()));
    apps = [];
    await ptys.killAll();
    await workspace.cleanup();
  });

  const post = (body: unknown) =>
    app.fetch(request('/terminals', { method: 'POST', body: typeof body === 'string' ? body : JSON.stringify(body), headers: { 'content-type': 'application/json' } }));
  const get = (path: string, init?: RequestInit) => app.fetch(request(path, init));
  const remove = (name: string) => app.fetch(request(`/terminals/${name}`, { method: 'DELETE' }));
  const session = (name: string) => {
    const found = app.terminals!.get(name);
    if (!found) throw new Error(`no session ${name}`);
    return found;
  };

  async function expectError(response: Response, status: number, error: string) {
    expect(response.status).toBe(status);
    expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(await response.json()).toEqual({ error });
  }

  describe('POST /terminals', () => {
    it('answers 201 with the terminal; the command runs through the shell in the root', async () => {
      const response = await post({ name: 'build', command: 'echo "sum=$((6*7)) in $(pwd)"; read _hold' });
      expect(response.status).toBe(201);
      const body = (await response.json()) as { pid: number };
      expect(body).toEqual({
        name: 'build',
        pid: body.pid,
        command: 'echo "sum=$((6*7)) in $(pwd)"; read _hold',
        cwd: workspace.root,
        running: true,
        exitCode: null,
        start: 0,
        end: 0,
      });
      expect(Number.isInteger(body.pid) && isRunning(body.pid)).toBe(true);
      expect(await session('build').waitForOutput(/sum=\S+ in \S+/, { timeoutMs: 5000 })).toContain(`sum=42 in ${workspace.root}\r\n`);
    });

    it('starts in a folder inside the root (`cwd` relative or absolute), resolved to its real path', async () => {
      const relative = (await (await post({ name: 'rel', command: 'sleep 30', cwd: 'sub' })).json()) as { pid: number; cwd: string };
      const absolute = (await (await post({ name: 'abs', command: 'sleep 30', cwd: `${workspace.root}/sub` })).json()) as { pid: number; cwd: string };
      for (const body of [relative, absolute]) {
        expect(body.cwd).toBe(`${workspace.root}/sub`);
        // Read until the forked child has made its chdir (a moment after the spawn returns).
        await waitFor(async () => (await readlink(`/proc/${body.pid}/cwd`)) === `${workspace.root}/sub`, { what: `pid ${body.pid} in sub` });
      }
    });

    it('without a command: an interactive login shell that takes input', async () => {
      const response = await post({ name: 'sh', cols: 100, rows: 30 });
      expect(response.status).toBe(201);
      expect(await response.json()).toMatchObject({ name: 'sh', command: null, running: true });
      session('sh').write('echo "size=$(stty size)"\n');
      await session('sh').waitForOutput('size=30 100', { timeoutMs: 5000 });
    });

    it('refuses a cwd outside the root (403), missing (404) or a file (409), and starts nothing', async () => {
      await expectError(await post({ name: 'x', cwd: '..' }), 403, 'path is outside the workspace');
      await expectError(await post({ name: 'x', cwd: '/etc' }), 403, 'path is outside the workspace');
      await expectError(await post({ name: 'x', cwd: 'nope' }), 404, 'no such folder: nope');
      await expectError(await post({ name: 'x', cwd: 'hello.txt' }), 409, 'not a folder: hello.txt');
      expect(ptys.liveCount).toBe(0);
      expect(await (await get('/terminals')).json()).toEqual({ terminals: [] });
    });

    it('refuses a malformed body with 400 and starts nothing', async () => {
      const cases: [unknown, string][] = [
        ['{', 'invalid JSON body'],
        [[1], 'invalid body: Invalid input: expected object, received array'],
        [{}, 'invalid body: name: Invalid input: expected string, received undefined'],
        [{ name: '' }, `invalid body: name: ${NAME_RULE}`],
        [{ name: '-x' }, `invalid body: name: ${NAME_RULE}`],
        [{ name: 'a/b' }, `invalid body: name: ${NAME_RULE}`],
        [{ name: 'a b' }, `invalid body: name: ${NAME_RULE}`],
        [{ name: 'x'.repeat(129) }, `invalid body: name: ${NAME_RULE}`],
        [{ name: 7 }, 'invalid body: name: Invalid input: expected string, received number'],
        [{ name: 'x', command: '' }, 'invalid body: command: Too small: expected string to have >=1 characters'],
        [{ name: 'x', command: 5 }, 'invalid body: command: Invalid input: expected string, received number'],
        [{ name: 'x', cwd: 5 }, 'invalid body: cwd: Invalid input: expected string, received number'],
        [{ name: 'x', cols: 0 }, 'invalid body: cols: Too small: expected number to be >=1'],
        [{ name: 'x', cols: '80' }, 'invalid body: cols: Invalid input: expected number, received string'],
        [{ name: 'x', rows: 1.5 }, 'invalid body: rows: Invalid input: expected int, received number'],
        [{ name: 'x', rows: 70_000 }, 'invalid body: rows: Too big: expected number to be <=65535'],
      ];
      for (const [body, error] of cases) await expectError(await post(body), 400, error);
      expect(ptys.liveCount).toBe(0);
    });

    it('answers 409 for a taken name, also while that terminal has exited', async () => {
      expect((await post({ name: 'dev', command: 'exit 0' })).status).toBe(201);
      await expectError(await post({ name: 'dev' }), 409, 'terminal dev already exists');
      await session('dev').exited;
      await expectError(await post({ name: 'dev' }), 409, 'terminal dev already exists');
    });

    it('answers 429 past the cap of running terminals', async () => {
      start({ maxTerminals: 1 });
      expect((await post({ name: 'one', command: 'sleep 30' })).status).toBe(201);
      await expectError(await post({ name: 'two' }), 429, 'too many terminals running (the limit is 1)');
    });
  });

  describe('GET /terminals', () => {
    it('lists every named terminal in start order, exactly, with exit codes and ring offsets', async () => {
      const first = (await (await post({ name: 'done', command: 'printf abc; exit 3' })).json()) as { pid: number };
      const second = (await (await post({ name: 'live', command: 'sleep 30', cwd: 'sub' })).json()) as { pid: number };
      await session('done').exited;
      expect(await (await get('/terminals')).json()).toEqual({
        terminals: [
          { name: 'done', pid: first.pid, command: 'printf abc; exit 3', cwd: workspace.root, running: false, exitCode: 3, start: 0, end: 3 },
          { name: 'live', pid: second.pid, command: 'sleep 30', cwd: `${workspace.root}/sub`, running: true, exitCode: null, start: 0, end: 0 },
        ],
      });
    });

    it('reports the ring start once output has outgrown the ring', async () => {
      start({ terminalRingBytes: 1000 });
      await post({ name: 'big', command: 'head -c 3000 /dev/zero | tr "\\0" x; read _hold' });
      await waitFor(() => session('big').info().end === 3000, { what: 'all 3000 bytes' });
      const { terminals } = (await (await get('/terminals')).json()) as { terminals: { start: number; end: number }[] };
      expect([terminals[0]!.start, terminals[0]!.end]).toEqual([2000, 3000]);
    });
  });

  describe('GET /terminals/{name} without an upgrade', () => {
    it('describes the terminal', async () => {
      const created = await (await post({ name: 'x', command: 'sleep 30' })).json();
      const response = await get('/terminals/x');
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual(created);
    });

    it('answers 404 for an unknown name and 400 for a malformed one', async () => {
      await expectError(await get('/terminals/nope'), 404, 'no terminal named nope');
      await expectError(await get('/terminals/-x'), 400, `invalid path: name: ${NAME_RULE}`);
      await expectError(await get('/terminals/a%20b'), 400, `invalid path: name: ${NAME_RULE}`);
    });
  });

  describe('refusals before any upgrade', () => {
    /** An upgrade request whose upgrader records whether the handler accepted it. */
    async function upgrade(path: string) {
      let accepted = false;
      const response = await app.fetch(request(path, { headers: UPGRADE_HEADERS }), {
        upgrade: () => {
          accepted = true;
          return new Response(null, { status: 200 });
        },
      });
      return { response, accepted };
    }

    it('an unknown name is 404 and nothing is upgraded', async () => {
      const { response, accepted } = await upgrade('/terminals/nope');
      expect(accepted).toBe(false);
      await expectError(response, 404, 'no terminal named nope');
    });

    it('a bad `from` is 400 in the {error} shape: not digits, negative, fractional, empty, repeated, past the end', async () => {
      await post({ name: 'x', command: 'printf 12345; read _hold' });
      await waitFor(() => session('x').info().end === 5, { what: 'the output' });
      for (const from of ['abc', '-1', '1.5', '', '1e3', '0x10', '9999999999999999']) {
        const { response, accepted } = await upgrade(`/terminals/x?from=${encodeURIComponent(from)}`);
        expect(accepted, from).toBe(false);
        await expectError(response, 400, FROM_RULE);
      }
      const repeated = await upgrade('/terminals/x?from=1&from=2');
      await expectError(repeated.response, 400, "invalid query: 'from' is given more than once");
      const past = await upgrade('/terminals/x?from=6');
      expect(past.accepted).toBe(false);
      await expectError(past.response, 400, 'from 6 is past the end of the output (5)');
      // The edges that are fine: 0 and the end itself.
      expect((await upgrade('/terminals/x?from=0')).accepted).toBe(true);
      expect((await upgrade('/terminals/x?from=5')).accepted).toBe(true);
    });

    it('426 when the runtime cannot upgrade', async () => {
      await post({ name: 'x', command: 'sleep 30' });
      const response = await app.fetch(request('/terminals/x', { headers: UPGRADE_HEADERS }));
      expect(response.status).toBe(426);
      expect(response.headers.get('upgrade')).toBe('websocket');
      expect(await response.json()).toEqual({ error: 'this runtime cannot accept a WebSocket upgrade' });
    });
  });

  describe('DELETE /terminals/{name}', () => {
    it('kills the shell and a background job in a process group of its own, forgets the terminal, frees the name', async () => {
      await post({ name: 'jobs' });
      const shell = session('jobs');
      shell.write('sleep 1000 &\n');
      const [sleeper] = await waitFor(() => {
        const found = processesInSession(shell.pid, 'sleep');
        return found.length === 1 ? found : undefined;
      }, { what: 'the background sleep' });
      const response = await remove('jobs');
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({ ok: true });
      expect(isRunning(shell.pid)).toBe(false); // gone by the time the answer comes
      expect(isRunning(sleeper!)).toBe(false);
      expect(await (await get('/terminals')).json()).toEqual({ terminals: [] });
      await expectError(await get('/terminals/jobs'), 404, 'no terminal named jobs');
      expect((await post({ name: 'jobs', command: 'true' })).status).toBe(201);
    });

    it('kills a command and its children (`sleep 1000 & sleep 1001`)', async () => {
      const body = (await (await post({ name: 'cmd', command: 'sleep 1000 & sleep 1001' })).json()) as { pid: number };
      const sleepers = await waitFor(() => {
        const found = processesInSession(body.pid, 'sleep');
        return found.length === 2 ? found : undefined;
      }, { what: 'both sleeps' });
      expect((await remove('cmd')).status).toBe(200);
      for (const pid of [body.pid, ...sleepers]) expect(isRunning(pid)).toBe(false);
    });

    it('forgets an exited terminal too; 404 for an unknown name and for a second delete', async () => {
      await post({ name: 'done', command: 'exit 0' });
      await session('done').exited;
      expect(await (await remove('done')).json()).toEqual({ ok: true });
      await expectError(await remove('done'), 404, 'no terminal named done');
      await expectError(await remove('never'), 404, 'no terminal named never');
      await expectError(await remove('-bad'), 400, `invalid path: name: ${NAME_RULE}`);
    });
  });

  describe('without a pty adapter', () => {
    it('every route answers 501', async () => {
      const bare = nodeApp(workspace.root);
      try {
        const requests = [
          request('/terminals'),
          request('/terminals', { method: 'POST', body: JSON.stringify({ name: 'x' }) }),
          request('/terminals/x'),
          request('/terminals/x', { headers: UPGRADE_HEADERS }),
          request('/terminals/x', { method: 'DELETE' }),
        ];
        for (const req of requests) {
          const response = await bare.fetch(req, { upgrade: () => new Response(null, { status: 200 }) });
          await expectError(response, 501, 'terminals are not available on this runtime');
        }
      } finally {
        await bare.close();
      }
    });
  });

  it('requires the token (ori shape)', async () => {
    const fake = nodeApp(workspace.root, { pty: new FakePtyAdapter() });
    for (const req of [
      request('/terminals', { headers: { authorization: 'Bearer wrong' } }),
      request('/terminals', { method: 'POST', headers: { authorization: 'Bearer wrong' }, body: '{"name":"x"}' }),
      request('/terminals/x', { method: 'DELETE', headers: { authorization: 'Bearer wrong' } }),
    ]) {
      await expectError(await fake.fetch(req), 401, 'missing or invalid token');
    }
  });
});
