/**
 * No secret the daemon is given leaves it except where it is meant to go. A real daemon (the CLI, as a user starts
 * it) is driven down every path a secret travels — its token (right, wrong, in `?token=` of failing requests and
 * WebSocket upgrades), the embeddings key from $WORKSPACE_EMBEDDINGS_KEY, an agent chat's API key, a password in a
 * clone URL (a private remote that needs it, a wrong one, an unreachable host), a terminal — and everything it
 * said is searched for each secret, as it is, URL-encoded and base64 (test/support/secret-forms.ts): every byte of
 * its stdout and stderr, every response body, every /ws message. The one line meant to carry the token, the
 * start-up URL on stdout, must be there exactly once. The in-process app covers what a live daemon cannot be made
 * to do: an unexpected error on a request with `?token=`.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { createServer, get as httpGet, type IncomingMessage, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { format } from 'node:util';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { NodeFileSystem } from '../../adapters/fs/node-file-system.ts';
import { childEnv } from '../../adapters/posix/child-env.ts';
import { createEmbeddingsStage } from '../../core/search/prose/embeddings.ts';
import { nodeRequestListener } from '../../runtime/node/send-file-body.ts';
import { startBasicAuthProxy, type BasicAuthProxy } from '../support/basic-auth-proxy.ts';
import { AgentRecords, RECORDS_ENV, writeFakeAgent } from '../support/fake-agent-cli.ts';
import { GIT_IDENTITY_ENV } from '../support/git-test-server.ts';
import { startGitHttpServer, type GitHttpServer } from '../support/git-http-server.ts';
import { listenOnLoopback } from '../support/loopback-listen.ts';
import { waitFor } from '../support/processes.ts';
import { RpcClient, startTestServer } from '../support/rpc-client.ts';
import { findSecrets } from '../support/secret-forms.ts';

const REPO = fileURLToPath(new URL('../..', import.meta.url));
const hex = () => randomBytes(12).toString('hex');
const SECRETS = {
  token: `tok-${hex()}`,
  wrongToken: `wrong-${hex()}`,
  embeddingsKey: `emb-${hex()}`,
  chatKey: `sk-chat-${hex()}`,
  gitPassword: `gitpw-${hex()}`,
};

/** Everything the daemon said, labelled with where it said it. */
const said: { where: string; text: string }[] = [];
let stdout = '';
let stderr = '';
/** Where the current test's part of `said` starts: each test answers for what its own calls drew out. */
let saidFrom = 0;

/** No secret in what the daemon said during this test (`all`: ever), its stdout but the start-up URL, its stderr. */
function expectNoSecrets({ all = false } = {}): void {
  const startUp = /^\S+\?token=\S+$/;
  const output = [
    { where: 'stdout', text: stdout.split('\n').filter((line) => !startUp.test(line)).join('\n') },
    { where: 'stderr', text: stderr },
  ];
  const hits = findSecrets(SECRETS, [...said.slice(all ? 0 : saidFrom), ...output]);
  expect(hits.map((hit) => `${hit.secret} (${hit.form}) in ${hit.where}: …${hit.context}…`)).toEqual([]);
}

/** A provider that records the credentials it is sent and refuses every request (the embeddings and models lists). */
async function startRefusingProvider(): Promise<{ url: string; authorizations: string[]; close(): Promise<void> }> {
  const authorizations: string[] = [];
  const server: Server = createServer((request, response) => {
    authorizations.push(request.headers.authorization ?? '');
    request.resume();
    response.writeHead(401, { 'content-type': 'application/json' }).end('{"error":"bad key"}');
  });
  const { port, sockets } = await listenOnLoopback(server);
  return {
    url: `http://127.0.0.1:${port}`,
    authorizations,
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

describe('secrets never leave the daemon', () => {
  let base: string;
  let root: string;
  let records: AgentRecords;
  let provider: Awaited<ReturnType<typeof startRefusingProvider>>;
  let gitServer: GitHttpServer;
  let privateRemote: BasicAuthProxy;
  let daemon: ChildProcess;
  let url: string;
  let client: RpcClient;

  beforeAll(async () => {
    base = await realpath(await mkdtemp(join(tmpdir(), 'wsapi-secrets-')));
    root = join(base, 'root');
    const [home, bin, remotes] = [join(base, 'home'), join(base, 'bin'), join(base, 'remotes')];
    await Promise.all([root, home, bin, remotes].map((folder) => mkdir(folder)));
    await writeFile(join(root, 'guide.md'), '# Rendering\n\nThe widget renders its children when the layout settles.\n');
    records = await AgentRecords.create(join(base, 'records'));
    await writeFakeAgent(bin, 'opencode');

    const gitEnv = { ...process.env, ...GIT_IDENTITY_ENV };
    execFileSync('git', ['init', '-q', '--bare', '-b', 'main', join(remotes, 'private.git')], { env: gitEnv });
    const seed = join(base, 'seed');
    execFileSync('git', ['init', '-q', '-b', 'main', seed], { env: gitEnv });
    await writeFile(join(seed, 'README.md'), 'private\n');
    execFileSync('git', ['-C', seed, 'add', '-A'], { env: gitEnv });
    execFileSync('git', ['-C', seed, 'commit', '-q', '-m', 'first'], { env: gitEnv });
    execFileSync('git', ['-C', seed, 'push', '-q', join(remotes, 'private.git'), 'main'], { env: gitEnv });
    gitServer = await startGitHttpServer({ projectRoot: remotes });
    privateRemote = await startBasicAuthProxy(gitServer.url, 'alice', SECRETS.gitPassword);
    provider = await startRefusingProvider();

    const args = ['--import', 'tsx', 'runtime/node/cli.ts', '--cwd', root, '--port', '0', '--token', SECRETS.token, '--no-panel'];
    args.push('--index-dir', join(base, 'index'), '--embeddings-url', provider.url, '--chat-models-url', `opencode=${provider.url}`);
    daemon = spawn(process.execPath, args, {
      cwd: REPO,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: {
        ...process.env,
        ...GIT_IDENTITY_ENV,
        PATH: `${bin}:/usr/bin:/bin`,
        HOME: home,
        SHELL: '/bin/sh',
        WORKSPACE_TOKEN: '',
        WORKSPACE_EMBEDDINGS_KEY: SECRETS.embeddingsKey,
        [RECORDS_ENV]: records.dir,
      },
    });
    daemon.stdout!.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    daemon.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    url = (await waitFor(() => /^listening on (\S+)$/m.exec(stdout)?.[1], { timeoutMs: 30_000, what: `the daemon to listen (stderr: ${stderr})` }))!;
    await waitFor(() => stderr.includes('search index ready'), { timeoutMs: 30_000, what: 'the search index' });
    client = await RpcClient.connect({ url }, SECRETS.token);
    client.ws.addEventListener('message', (event) => said.push({ where: '/ws message', text: String(event.data) }));
  }, 60_000);

  beforeEach(() => {
    saidFrom = said.length;
  });

  afterAll(async () => {
    await client?.close();
    if (daemon && daemon.exitCode === null && daemon.signalCode === null) {
      // Its own shutdown first (it stops its terminals, chats and agent servers), SIGKILL only if that hangs.
      const exited = once(daemon, 'exit');
      daemon.kill('SIGTERM');
      const killLater = setTimeout(() => daemon.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(killLater);
    }
    await privateRemote?.close();
    await gitServer?.close();
    await provider?.close();
    await rm(base, { recursive: true, force: true });
  });

  /** A request to the daemon; its body is kept among what it said. */
  async function call(method: string, path: string, init: { headers?: Record<string, string>; body?: unknown } = {}): Promise<{ status: number; text: string }> {
    const response = await fetch(`${url}${path}`, {
      method,
      headers: { ...(init.body === undefined ? {} : { 'content-type': 'application/json' }), ...init.headers },
      ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
    });
    const text = await response.text();
    said.push({ where: `${method} ${path.replace(/token=[^&]*/, 'token=…')} → ${response.status}`, text: `${JSON.stringify([...response.headers])}\n${text}` });
    return { status: response.status, text };
  }
  const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

  /** A WebSocket upgrade the daemon refuses: its status, and its body kept among what it said. */
  async function refusedUpgrade(path: string): Promise<number> {
    const upgrade = { connection: 'Upgrade', upgrade: 'websocket', 'sec-websocket-version': '13', 'sec-websocket-key': randomBytes(16).toString('base64') };
    const sent = httpGet(`${url}${path}`, { headers: upgrade });
    const [response] = (await Promise.race([once(sent, 'response'), once(sent, 'upgrade')])) as [IncomingMessage];
    let text = '';
    for await (const chunk of response) text += String(chunk);
    said.push({ where: `upgrade ${path.replace(/token=[^&]*/, 'token=…')} → ${response.statusCode}`, text: `${JSON.stringify(response.headers)}\n${text}` });
    return response.statusCode ?? 0;
  }

  it('answers failing requests, wrong tokens and refused upgrades without echoing a token', async () => {
    const token = encodeURIComponent(SECRETS.token);
    const wrong = encodeURIComponent(SECRETS.wrongToken);
    expect((await call('GET', `/no/such/route?token=${token}`)).status).toBe(404);
    expect((await call('GET', `/api/file?path=missing.txt&token=${token}`)).status).toBe(404);
    expect((await call('GET', `/api/file?path=../../etc/passwd&token=${token}`)).status).toBe(403);
    expect((await call('GET', `/workspace/raw?path=missing.bin&token=${token}`)).status).toBe(404);
    expect((await call('GET', `/workspace/search?query=x&token=${token}`)).status).toBe(400);
    expect((await call('GET', `/terminals/nobody?token=${token}`)).status).toBe(404);
    // A query token never authorises a write.
    expect((await call('PUT', `/api/file?path=x.txt&token=${token}`, { body: { content: 'x' } })).status).toBe(401);
    expect((await call('GET', `/api/files?token=${wrong}`)).status).toBe(401);
    expect((await call('GET', '/api/files', { headers: bearer(SECRETS.wrongToken) })).status).toBe(401);
    expect((await call('GET', '/workspace/tree', { headers: { 'x-intentic-control': SECRETS.wrongToken } })).status).toBe(401);
    expect((await call('POST', '/workspace/repos', { headers: bearer(SECRETS.wrongToken), body: { name: 'x', cloneUrl: 'https://example.com/x.git' } })).status).toBe(401);
    expect(await refusedUpgrade(`/ws?token=${wrong}`)).toBe(401);
    expect(await refusedUpgrade(`/ws/terminal?token=${wrong}`)).toBe(401);
    await expect(RpcClient.connect({ url }, SECRETS.wrongToken)).rejects.toThrow();
    expect((await client.call('read_file', { path: `missing-${SECRETS.token.slice(0, 4)}.txt` })).ok).toBe(false);
    expectNoSecrets();
  });

  it('sends the embeddings key to its endpoint only, and a refusal says nothing of it', async () => {
    const answer = await call('GET', `/workspace/search?query=${encodeURIComponent('when does the widget render its children')}`, { headers: bearer(SECRETS.token) });
    expect(answer.status).toBe(200);
    expect(answer.text).toContain('sem: embeddings endpoint answered HTTP 401');
    expect(provider.authorizations).toContain(`Bearer ${SECRETS.embeddingsKey}`);
    expectNoSecrets();
  });

  it('hands a chat\'s API key to the agent and the models list only, and a refusal says nothing of it', async () => {
    const done = client.waitForEvent((event) => event.event === 'chat-stream-done' && (event.payload as { id?: string }).id === 'secret-chat');
    expect((await client.call('chat_stream', { command: 'opencode', args: ['run', 'hello secret-chat'], apiKey: SECRETS.chatKey, requestId: 'secret-chat' })).ok).toBe(true);
    expect((await done).payload).toEqual({ id: 'secret-chat' });
    // By design the agent gets it (docs/noide-protocol.md#chat_stream): proof the key went down this path.
    expect(records.runs().map((run) => run.env.OPENROUTER_API_KEY)).toEqual([SECRETS.chatKey]);
    const models = await client.call('chat_models', { agent: 'opencode', apiKey: SECRETS.chatKey });
    expect(models.error).toMatch(/returned status 401/);
    expect(provider.authorizations).toContain(`Bearer ${SECRETS.chatKey}`);
    // A key no header can carry: the request cannot even be made, and the error must not quote the header.
    const unsendable = await client.call('chat_models', { agent: 'opencode', apiKey: `${SECRETS.chatKey}\nx` });
    expect(unsendable.error).toMatch(/the API key cannot be sent in a header/);
    expectNoSecrets();
  });

  it('clones a private remote with the password in its URL, and no answer, terminal or log repeats it', async () => {
    const remote = new URL(`${privateRemote.url}/private.git`);
    remote.username = 'alice';
    remote.password = SECRETS.gitPassword;
    const headers = bearer(SECRETS.token);
    const cloned = await call('POST', '/workspace/repos', { headers, body: { name: 'private', cloneUrl: remote.href } });
    expect(cloned.status).toBe(200);
    expect(privateRemote.passed).toBeGreaterThan(0);
    remote.password = SECRETS.wrongToken;
    const refused = await call('POST', '/workspace/repos', { headers, body: { name: 'refused', cloneUrl: remote.href } });
    expect(refused.status).toBe(400);
    expect(privateRemote.refused).toBeGreaterThan(0);
    const closed = `http://alice:${encodeURIComponent(SECRETS.gitPassword)}@127.0.0.1:1/private.git`;
    const unreachable = await call('POST', '/workspace/repos', { headers, body: { name: 'unreachable', cloneUrl: closed } });
    expect(unreachable.status).toBe(400);
    expect(unreachable.text).toMatch(/127\.0\.0\.1/);
    // What the clones showed in their progress terminals, and git talking to the stored remote again.
    for (const name of ['private', 'refused', 'unreachable']) {
      const attached = await client.call('pty_attach', { sessionId: `clone-${name}` });
      expect(attached.ok).toBe(true);
    }
    await call('GET', '/terminals', { headers });
    await client.call('git_fetch', { path: 'private' });
    await client.call('get_git_status', { path: 'private' });
    expectNoSecrets();
  });

  it('keeps the token and the keys out of a terminal: its replay holds only what the user typed and ran', async () => {
    expect((await client.call('pty_spawn', { sessionId: 'shell', shell: '/bin/sh' })).ok).toBe(true);
    await client.ok('pty_write', { sessionId: 'shell', data: 'env; echo "end""-of-env"\n' });
    await client.waitForEvent((event) => event.event === 'pty-output' && String((event.payload as { data?: string }).data).includes('end-of-env'));
    const replay = await client.call('pty_attach', { sessionId: 'shell' });
    expect(replay.ok).toBe(true);
    await client.ok('pty_kill', { sessionId: 'shell' });
    expectNoSecrets();
  });

  it('prints the token once, in the start-up URL on stdout, and nothing of any secret on its way down', async () => {
    await client.close();
    const exited = once(daemon, 'exit');
    daemon.kill('SIGTERM');
    expect((await exited)[0]).toBe(0);
    const withToken = stdout.split('\n').filter((line) => line.includes(SECRETS.token));
    expect(withToken).toEqual([`${url}/api/files?token=${SECRETS.token}`]);
    expect(stderr).not.toContain(SECRETS.token);
    expectNoSecrets({ all: true });
  });
});

describe('in-process, what a live daemon cannot be made to do', () => {
  it('a daemon given its token in $WORKSPACE_TOKEN hands it to no child (terminals, commands, chats, git, jobs)', () => {
    const env = childEnv({ WORKSPACE_TOKEN: SECRETS.token, WORKSPACE_EMBEDDINGS_KEY: SECRETS.embeddingsKey, PATH: '/usr/bin' });
    expect(env).toEqual({ PATH: '/usr/bin' });
  });

  it('an embeddings key no header can carry turns the stage off without quoting it', async () => {
    const stage = createEmbeddingsStage({ url: 'http://127.0.0.1:1', model: 'm', apiKey: `${SECRETS.embeddingsKey}\nx`, timeoutMs: 2000 });
    const { off } = await stage.semanticScores('how does it render', [{ key: 'a', text: 'it renders' }]);
    expect(off).toMatch(/^sem: the embeddings key cannot be sent in a header/);
    expect(findSecrets(SECRETS, [{ where: 'features', text: off! }])).toEqual([]);
  });


  it('an unexpected error on a request with ?token= is logged without the query, whether the app throws or sending its answer does', async () => {
    const logged = vi.spyOn(console, 'error').mockImplementation(() => {});
    const buggy = new Proxy(new NodeFileSystem(), {
      get(target, key) {
        const value: unknown = Reflect.get(target, key, target);
        if (typeof value !== 'function') return value;
        return (...args: unknown[]) => {
          if (args.some((arg) => typeof arg === 'string' && arg.includes('boom'))) throw new TypeError('a bug');
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        };
      },
    });
    const folder = await realpath(await mkdtemp(join(tmpdir(), 'wsapi-secrets-app-')));
    const app = await startTestServer(folder, { auth: { token: SECRETS.token }, fs: buggy });
    const throwing = createServer(nodeRequestListener({ handleNodeRequestAndResponse: () => Promise.reject(new TypeError('a bug')) }));
    const unsendable = createServer(nodeRequestListener({ handleNodeRequestAndResponse: () => ({}) as Response }));
    try {
      const query = `token=${encodeURIComponent(SECRETS.token)}`;
      const answers: { where: string; text: string }[] = [];
      const get = async (base: string, path: string) => {
        const response = await fetch(`${base}${path}`).catch((error: Error) => ({ status: 0, text: async () => error.message }));
        answers.push({ where: `${path} (in-process)`, text: await response.text() });
        return response.status;
      };
      expect(await get(app.url, `/api/file?path=boom.txt&${query}`)).toBe(500);
      for (const server of [throwing, unsendable]) {
        const { port, sockets } = await listenOnLoopback(server);
        await get(`http://127.0.0.1:${port}`, `/api/raw?path=a.txt&${query}`);
        for (const socket of sockets) socket.destroy();
      }
      const entries = logged.mock.calls.map((args) => ({ where: 'console.error', text: format(...args) }));
      expect(entries.length).toBeGreaterThanOrEqual(3);
      expect(findSecrets(SECRETS, [...entries, ...answers]).map((hit) => `${hit.where}: …${hit.context}…`)).toEqual([]);
    } finally {
      logged.mockRestore();
      await Promise.all([throwing, unsendable].map((server) => new Promise((resolve) => server.close(resolve))));
      await app.close();
      await rm(folder, { recursive: true, force: true });
    }
  });
});
