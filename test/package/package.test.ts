import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { build } from 'esbuild';
import { Miniflare } from 'miniflare';
import { WebSocket } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { projectRoot } from '../../runtime/worker-build.ts';
import { processTable, waitFor } from '../support/processes.ts';

/**
 * The package as a stranger gets it (docs/package.md): packed with `npm pack`, installed into an empty project
 * with the registry's packages only (npm with the machine's own settings and cache, as a user's), and there
 * mounted in Hono, itty-router and node:http (with WebSocket upgrades), started with `npx`, type-checked against
 * the published declarations and bundled for workerd, which then serves it. One build, one pack and one install
 * for the whole file. The consumer's files are test/package/consumer/.
 */

const run = promisify(execFile);
const CONSUMER_FILES = join(projectRoot, 'test/package/consumer');
const TOKEN = 'packaged-token';
const MIB = 1024 * 1024;

interface PackedFile {
  path: string;
  size: number;
}
let packed: { filename: string; size: number; unpackedSize: number; files: PackedFile[] };
let scratch: string;
let consumer: string;
let tarball: string;
const children: ChildProcess[] = [];

/** npm as the machine's user has it set up (registry, cache, where native addons find Node's headers). */
function npmEnv(): NodeJS.ProcessEnv {
  const machineHome = process.env.WSAPI_TEST_MACHINE_HOME;
  return machineHome === undefined
    ? process.env
    : { ...process.env, npm_config_userconfig: join(machineHome, '.npmrc'), npm_config_cache: join(machineHome, '.npm') };
}

const ourVersion = async (name: string): Promise<string> => {
  const manifest = JSON.parse(await readFile(join(projectRoot, 'package.json'), 'utf8')) as Record<string, Record<string, string>>;
  const version = manifest.dependencies?.[name] ?? manifest.devDependencies?.[name];
  if (version === undefined) throw new Error(`${name} is not one of our packages`);
  return version;
};

beforeAll(async () => {
  // The build the package ships (rebuilt only when a source is newer than it: runtime/ensure-built.mjs).
  await run(process.execPath, ['runtime/ensure-built.mjs'], { cwd: projectRoot });
  scratch = await mkdtemp(join(tmpdir(), 'wsapi-package-'));
  const { stdout } = await run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', scratch], { cwd: projectRoot, env: npmEnv() });
  packed = (JSON.parse(stdout) as (typeof packed)[])[0]!;
  tarball = join(scratch, packed.filename);

  consumer = join(scratch, 'consumer');
  await mkdir(consumer);
  const manifest = {
    name: 'a-strangers-project',
    private: true,
    type: 'module',
    dependencies: {
      'workspace-api': `file:${tarball}`,
      hono: await ourVersion('hono'),
      'itty-router': await ourVersion('itty-router'),
      '@whatwg-node/server': await ourVersion('@whatwg-node/server'),
      '@types/node': await ourVersion('@types/node'),
    },
  };
  await writeFile(join(consumer, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  for (const file of ['hosts.mjs', 'worker.mjs', 'consumer.ts', 'tsconfig.json']) await copyFile(join(CONSUMER_FILES, file), join(consumer, file));
  await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund'], { cwd: consumer, env: npmEnv(), maxBuffer: 16 * MIB });
}, 240_000);

afterAll(async () => {
  await Promise.all(children.map(stop));
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

async function stop(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  child.kill('SIGTERM');
  return exited;
}

/** Starts `command` in the consumer project and collects its stdout; `group`: in a process group of its own. */
function start(command: string, args: string[], { group = false } = {}): { child: ChildProcess; stdout: () => string } {
  let out = '';
  const child = spawn(command, args, { cwd: consumer, env: { ...process.env, SHELL: '/bin/sh' }, stdio: ['ignore', 'pipe', 'inherit'], detached: group });
  children.push(child);
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
  return { child, stdout: () => out };
}

/** The package's own module for `specifier`, resolved the way the consumer project resolves it. */
async function fromPackage<T>(specifier: string): Promise<T> {
  const resolved = createRequire(join(consumer, 'package.json')).resolve(specifier);
  return (await import(pathToFileURL(resolved).href)) as T;
}

describe('the npm package', () => {
  it('ships the build, the bin and the papers, nothing else, under 2 MiB packed', async () => {
    const paths = packed.files.map((file) => file.path);
    console.log(`package: ${paths.length} files, ${(packed.size / MIB).toFixed(2)} MiB packed, ${(packed.unpackedSize / MIB).toFixed(1)} MiB unpacked`);
    expect(packed.size).toBeLessThan(2 * MIB);
    for (const required of ['package.json', 'README.md', 'LICENSE', 'CHANGELOG.md', 'bin/workspace-api.js', 'dist/build/runtime/entries/index.js', 'dist/build/runtime/entries/node.d.ts', 'dist/build/runtime/panel/embedded-panel.js', 'dist/build/templates/templates.json']) {
      expect(paths, required).toContain(required);
    }
    const papers = /^(package\.json|README\.md|LICENSE|CHANGELOG\.md|bin\/workspace-api\.js)$/;
    expect(paths.filter((path) => !papers.test(path) && !path.startsWith('dist/build/'))).toEqual([]);
    expect(paths.filter((path) => path.endsWith('.ts') && !path.endsWith('.d.ts'))).toEqual([]); // no sources
    // Development tools and the panel's sources stay home: the build carries the panel prebuilt.
    expect(paths.filter((path) => /(package-build|worker-build|build-panel)\.|client\/panel\/|^test\/|^bench\//.test(path))).toEqual([]);
    // The type resolution every ESM consumer uses (node16 from ESM, bundlers) finds JavaScript and declarations.
    const attw = await run(process.execPath, [join(projectRoot, 'node_modules/@arethetypeswrong/cli/dist/index.js'), tarball, '--profile', 'esm-only'], { cwd: scratch }).catch(
      (error: { stdout: string; code: number }) => ({ stdout: error.stdout, failed: error.code }),
    );
    expect('failed' in attw ? attw.stdout : 'passed').toBe('passed');
  });

  it('keeps its insides private: only the named entry points resolve', async () => {
    const script = `import('workspace-api/dist/build/runtime/app.js').then(() => console.log('reachable'), (error) => console.log(error.code))`;
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], { cwd: consumer });
    expect(stdout.trim()).toBe('ERR_PACKAGE_PATH_NOT_EXPORTED');
    const index = await fromPackage<Record<string, unknown>>('workspace-api');
    expect(Object.keys(index).sort()).toEqual(['WorkspaceError', 'createWorkspaceApp', 'defaultLimits', 'generateToken', 'mintScopedToken', 'panelAssetsFrom', 'parseScope', 'verifyScopedToken']);
  });

  it('mounts under a base path in Hono, itty-router and node:http, with /ws and a real terminal over node:http upgrades', async () => {
    const roots = await Promise.all(['hono', 'itty', 'node'].map(async (name) => {
      const root = join(scratch, `root-${name}`);
      await mkdir(root);
      await writeFile(join(root, 'hello.txt'), `hello from ${name}\n`);
      return root;
    }));
    const hosts = start(process.execPath, ['hosts.mjs', ...roots, TOKEN]);
    const urls = JSON.parse(await waitFor(() => hosts.stdout().split('\n')[0] || undefined, { timeoutMs: 20_000, what: 'the hosts' })) as Record<'hono' | 'itty' | 'node', string>;
    const auth = { authorization: `Bearer ${TOKEN}` };

    for (const [name, url] of Object.entries(urls) as ['hono' | 'itty' | 'node', string][]) {
      const base = `${url}/sandbox/${name}`;
      const file = await fetch(`${base}/api/file?path=hello.txt`, { headers: auth });
      expect([name, file.status, await file.json()]).toEqual([name, 200, expect.objectContaining({ content: `hello from ${name}\n` })]);
      const written = await fetch(`${base}/api/file?path=made/by-${name}.txt`, { method: 'PUT', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify({ content: `${name} wrote this` }) });
      expect([name, written.status]).toEqual([name, 200]);
      expect(await readFile(join(roots[['hono', 'itty', 'node'].indexOf(name)]!, `made/by-${name}.txt`), 'utf8')).toBe(`${name} wrote this`);
      expect((await fetch(`${base}/api/file?path=hello.txt`)).status).toBe(401); // the token is required
      expect((await fetch(`${url}/api/file?path=hello.txt`, { headers: auth })).status).toBe(404); // nothing outside the base path
    }
    expect(await (await fetch(`${urls.hono}/`)).text()).toBe('the host app');
    expect(await (await fetch(`${urls.itty}/`)).text()).toBe('the host app');

    // The packaged typed client over the node:http host's upgrades: the /ws protocol and a pty.
    const { createWorkspaceClient } = await fromPackage<typeof import('../../runtime/entries/client.ts')>('workspace-api/client');
    const rpc = createWorkspaceClient({ baseUrl: `${urls.node}/sandbox/node`, token: TOKEN, WebSocket: WebSocket as never }).rpc({ reconnect: false });
    try {
      expect(await rpc.call('read_file', { path: 'hello.txt' })).toBe('hello from node\n');
      let output = '';
      rpc.on('pty-output', ({ session_id, data }) => {
        if (session_id === 'pkg') output += data;
      });
      await rpc.call('pty_spawn', { sessionId: 'pkg', shell: '/bin/sh' });
      await rpc.call('pty_write', { sessionId: 'pkg', data: 'echo "packaged-$((6*7))"\n' });
      await waitFor(() => output.includes('packaged-42'), { timeoutMs: 10_000, what: 'the shell to answer' });
      await rpc.call('pty_kill', { sessionId: 'pkg' });
    } finally {
      rpc.close();
    }
    expect(await stop(hosts.child)).toBe(0);
  });

  it('npx workspace-api starts the daemon with plain node, prints its token URL, serves the panel and searches on its workers', async () => {
    const folder = join(scratch, 'npx-root');
    await mkdir(join(folder, 'notes'), { recursive: true });
    await writeFile(join(folder, 'notes/todo.md'), 'remember the packaged daemon\n');
    // npx runs the bin as its child and does not pass SIGTERM on: like a terminal's Ctrl-C, the stop goes to the group.
    const daemon = start('npx', ['--no-install', 'workspace-api', '--cwd', folder, '--port', '0'], { group: true });
    const signIn = await waitFor(() => /^(http:\/\/127\.0\.0\.1:\d+)\/\?token=([\w-]+)$/m.exec(daemon.stdout()) ?? undefined, { timeoutMs: 20_000, what: 'the token URL' });
    const [, base, token] = signIn;
    expect(daemon.stdout()).toContain(`listening on ${base}\n`);
    const page = await fetch(`${base}/`);
    expect([page.status, page.headers.get('content-type')]).toEqual([200, 'text/html; charset=utf-8']);
    expect(await page.text()).toContain('<div id="panel" class="panel"></div>');
    const headers = { authorization: `Bearer ${token}` };
    const found = await fetch(`${base}/workspace/search?query=packaged%20daemon&mode=find&literal=true`, { headers });
    expect([found.status, await found.json()]).toEqual([200, expect.objectContaining({ total: 1, groups: [expect.objectContaining({ path: 'notes/todo.md' })] })]);
    const group = daemon.child.pid!;
    const exited = new Promise((resolve) => daemon.child.once('exit', resolve));
    process.kill(-group, 'SIGTERM');
    await exited;
    // The daemon shuts down on its own (its terminals, watcher and search workers with it): nothing of the group stays.
    await waitFor(() => !processTable().some((entry) => entry.pgrp === group && entry.state !== 'Z'), { timeoutMs: 10_000, what: 'the daemon to exit' });
  });

  it('type-checks a consumer against the published declarations (strict, NodeNext, no skipLibCheck)', async ({ signal }) => {
    // The test's signal: a timed-out test stops its tsc instead of leaving it running.
    const tsc = await run(process.execPath, [join(projectRoot, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.json'], { cwd: consumer, signal }).catch(
      (error: { stdout: string }) => ({ stdout: error.stdout || 'tsc failed' }),
    );
    expect(tsc.stdout).toBe('');
  }, 60_000); // a whole tsc run over the package's declarations: ~10 s alone, past 20 s beside the rest of the suite

  it('bundles the Workers entry for workerd with esbuild, and workerd serves the bundle', async () => {
    // Miniflare runs scripts from under its working folder: the bundle goes beside this project's other test bundles.
    const outfile = join(projectRoot, 'dist/test-package/worker.js');
    await build({
      entryPoints: [join(consumer, 'worker.mjs')],
      absWorkingDir: consumer,
      bundle: true,
      format: 'esm',
      platform: 'browser',
      conditions: ['workerd', 'worker', 'browser'],
      outfile,
      logLevel: 'silent',
    });
    const mf = new Miniflare({
      scriptPath: outfile,
      modules: true,
      compatibilityDate: '2026-04-26',
      bindings: { WORKSPACE_TOKEN: TOKEN },
      durableObjects: { WORKSPACES: { className: 'WorkspaceObject', useSQLite: true } },
    });
    try {
      const health = await mf.dispatchFetch('http://worker.test/healthz');
      expect([health.status, await health.json()]).toEqual([200, { ok: true }]);
      const readme = await mf.dispatchFetch('http://worker.test/w/pkg/api/file?path=README.md', { headers: { authorization: `Bearer ${TOKEN}` } });
      expect(readme.status).toBe(200);
      expect(((await readme.json()) as { content: string }).content).toContain('# Welcome to workspace-api on Cloudflare Workers');
      const panel = await mf.dispatchFetch('http://worker.test/w/pkg/');
      expect([panel.status, (await panel.text()).includes('<div id="panel"')]).toEqual([200, true]);
    } finally {
      await mf.dispose();
    }
  });
});
