/**
 * The backends the path fuzzer aims at, each the same fixture (./hostile-paths.ts) with the same oracle hooks:
 *
 * - `node`: the real disk through `createNodeWorkspaceApp` (git, ptys, jobs, chat, search: every route), HTTP
 *   in-process through the app's `fetch`, `/ws` over a real WebSocket on a loopback server of the same app. The
 *   inside repo `repo/` and the outside folder are git repositories, so a git command that escaped would act.
 * - `overlay`: the same app and disk, every agent-aware row addressed to an agent's private copy.
 * - `memory`: MemoryFileSystem under the same Node app (HTTP in-process, `/ws` over a real socket); git, ptys,
 *   jobs and chat are left out there (they would run on the real disk, a configuration nobody deploys).
 * - `durable-object`: the Worker bundle in workerd (miniflare), `/w/<id>/…`, HTTP and `/ws` (hibernating sockets);
 *   the fixture, links, link swaps and snapshots go through a test-only subclass of the Durable Object
 *   (./durable-object-probe.ts), since no route makes a link or reaches outside `/workspace`.
 */
import { execFileSync } from 'node:child_process';
import { lstat, mkdtemp, readdir, readFile, readlink, realpath, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WebSocket } from 'undici';
import type { FileSystem } from '../../../adapters/fs/file-system.ts';
import { isFsError } from '../../../adapters/fs/fs-error.ts';
import { MemoryFileSystem } from '../../../adapters/fs/memory-file-system.ts';
import { NodeFileSystem } from '../../../adapters/fs/node-file-system.ts';
import { createNodeWorkspaceApp, type NodeWorkspaceApp } from '../../../runtime/node/node-workspace-app.ts';
import { panelAssetsFrom } from '../../../runtime/panel/panel-assets.ts';
import { TEST_TOKEN } from '../workspace.ts';
import { startDurableObjectProbe, type DurableObjectProbe } from './durable-object-probe.ts';
import { FolderTrader } from './folder-trader.ts';
import { FUZZ_SEED_FILES, outsideFiles, renderLinks, SWAP_LINK, SWAPPED_FOLDER, SWAPPED_HELD, swapFolderThrough, type LinkFlipper, type LinkSpec, type LinkToMake } from './hostile-paths.ts';
import { snapshotTree, type Snapshot, type TreeReader } from './escape-oracle.ts';
import type { HttpCall, Need } from './path-routes.ts';
import { WsChannel } from './ws-channel.ts';

export type TargetName = 'node' | 'overlay' | 'memory' | 'durable-object';

export interface FuzzTarget {
  readonly name: TargetName;
  readonly root: string;
  readonly outside: string;
  readonly decoys: readonly string[];
  /** The fixture's links, relative to the root. */
  readonly links: readonly string[];
  readonly has: ReadonlySet<Need>;
  /** Sent as `agent` by agent-aware rows; only those rows run on a target that has one. */
  readonly agent: string | undefined;
  fetch(call: HttpCall): Promise<Response>;
  /** A `/ws` connection (the runner opens one per batch worker and closes it). */
  openWs(): Promise<WsChannel>;
  readonly flipper: LinkFlipper;
  /** On the disk: the folder traded on a thread of its own, at the same time as the daemon's calls. */
  readonly trader?: FolderTrader;
  /** Puts the fixture back (requests that were allowed to write inside have changed it). */
  reset(): Promise<void>;
  /** Everything outside the root: the outside folder, the root's parent, the decoys. */
  outsideSnapshot(): Promise<Snapshot>;
  /** Everything inside the root. */
  insideSnapshot(): Promise<Snapshot>;
  /** Puts the outside back as it was built (after an escape was counted, so later batches judge cleanly). */
  restoreOutside(): Promise<void>;
  close(): Promise<void>;
}

const AGENT = 'fuzzagent';
/** Top-level entries of the root a reset keeps (the inside repo's history, the agents' copies). */
const KEPT_BY_RESET = new Set(['repo', '.agents']);

// ---------------------------------------------------------------------------------------------------------------
// Fixture through a FileSystem (memory, and the Durable Object's probe does the same on its side)

async function removeIfThere(fs: FileSystem, path: string): Promise<void> {
  try {
    await fs.remove(path, { recursive: true });
  } catch (error) {
    if (!isFsError(error, 'not-found')) throw error;
  }
}

/** Writes the seed files and (re)makes every link under `root`, after removing what requests added. */
async function resetThrough(fs: FileSystem, root: string, links: readonly LinkToMake[]): Promise<void> {
  for (const entry of await fs.readdir(root)) if (!KEPT_BY_RESET.has(entry.name)) await removeIfThere(fs, `${root}/${entry.name}`);
  for (const [rel, content] of Object.entries(FUZZ_SEED_FILES)) {
    if (rel.endsWith('/')) await fs.mkdir(`${root}/${rel.slice(0, -1)}`, { recursive: true });
    else await fs.write(`${root}/${rel}`, content, { mkdirs: true });
  }
  await fs.mkdir(`${root}/links`, { recursive: true });
  for (const link of links) await fs.symlink(link.target, `${root}/${link.path}`);
}

async function writeOutside(fs: FileSystem, outside: string, marker: string): Promise<void> {
  await removeIfThere(fs, outside);
  for (const [rel, content] of Object.entries(outsideFiles(marker))) await fs.write(`${outside}/${rel}`, content, { mkdirs: true });
}

function fileSystemReader(fs: FileSystem): TreeReader {
  return {
    async list(path) {
      try {
        return (await fs.readdir(path)).map(({ name, type }) => ({ name, type: type === 'file' || type === 'dir' || type === 'symlink' ? type : 'other' }));
      } catch (error) {
        if (isFsError(error, 'not-found')) return undefined;
        throw error;
      }
    },
    readlink: (path) => fs.readlink(path),
    read: (path) => fs.read(path),
  };
}

/** Flips the swap link atomically: a new link beside it, renamed over it. */
function fileSystemFlipper(fs: FileSystem, root: string, outside: string): LinkFlipper {
  let n = 0;
  return {
    swapFolder: (out) => swapFolderThrough(fs, root, outside, out),
    async point(target) {
      const temp = `${root}/links/.swap-${n++}`;
      try {
        await fs.symlink(target, temp);
        await fs.rename(temp, `${root}/${SWAP_LINK}`, { overwrite: true });
      } catch {
        // A request removed or replaced `links/` (allowed: it is inside); the next reset makes it again.
      }
    },
  };
}

// ---------------------------------------------------------------------------------------------------------------
// The disk

const diskReader: TreeReader = {
  async list(path) {
    try {
      return (await readdir(path, { withFileTypes: true })).map((d) => ({
        name: d.name,
        type: d.isSymbolicLink() ? 'symlink' : d.isDirectory() ? 'dir' : d.isFile() ? 'file' : 'other',
      }));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
  },
  readlink: (path) => readlink(path),
  read: (path) => readFile(path),
};

function git(cwd: string, ...args: string[]): void {
  execFileSync('git', ['-c', 'user.name=fuzz', '-c', 'user.email=fuzz@example.invalid', '-c', 'init.defaultBranch=main', ...args], { cwd, stdio: 'ignore' });
}

/** An app with every Node power over `fs` at `root`, served on loopback for `/ws`. */
async function serveNodeApp(fs: FileSystem, root: string): Promise<{ app: NodeWorkspaceApp; server: Server; url: string }> {
  const app = createNodeWorkspaceApp({
    root,
    fs,
    token: TEST_TOKEN,
    watch: false,
    // A panel of one file: `/panel/{file}` looks names up in it, never on disk.
    panel: panelAssetsFrom({ 'app.js': { body: 'console.log(1)', contentType: 'text/javascript', immutable: false, etag: '"p1"' } }),
  });
  const server = createServer(app.handleRequest).on('upgrade', app.handleUpgrade);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { app, server, url: `ws://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

async function openNodeWs(url: string): Promise<WsChannel> {
  const socket = new WebSocket(`${url}/ws?token=${TEST_TOKEN}`);
  await new Promise<void>((resolve, reject) => {
    socket.addEventListener('open', () => resolve(), { once: true });
    socket.addEventListener('error', () => reject(new Error('WebSocket to /ws failed')), { once: true });
  });
  return new WsChannel(socket as never);
}

async function closeServer(app: NodeWorkspaceApp, server: Server): Promise<void> {
  await app.close();
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
}

const inProcess = (fetch: (request: Request) => Promise<Response>, base = '') => (call: HttpCall) =>
  fetch(
    new Request(`http://localhost${base}${call.target}`, {
      method: call.method,
      headers: { authorization: `Bearer ${TEST_TOKEN}`, ...call.headers },
      ...(call.body === undefined ? {} : { body: call.body as BodyInit }),
    }),
  );

/**
 * The disk backend and the overlay over it (one app, one fixture). The container holds the root (`ws`) and the
 * outside folder (`ws-outside`, a git repository with the marked files committed); decoys are absolute paths in
 * the temp folder beside the container that must never come to exist.
 */
export async function diskTargets(specs: readonly LinkSpec[], marker: string): Promise<{ node: FuzzTarget; overlay: FuzzTarget; close(): Promise<void> }> {
  const container = await realpath(await mkdtemp(join(tmpdir(), 'wsapi-fuzz-')));
  const root = `${container}/ws`;
  const outside = `${container}/ws-outside`;
  const decoys = [`${container}-decoy`, `${tmpdir()}/wsapi-fuzz-decoy-${marker.slice(-8)}`];
  const fs = new NodeFileSystem();
  const links = renderLinks(specs, root, outside);
  await fs.mkdir(root, { recursive: true });
  await resetThrough(fs, root, links);
  await fs.write(`${root}/repo/tracked.txt`, 'tracked\n', { mkdirs: true });
  git(`${root}/repo`, 'init', '-q');
  git(`${root}/repo`, 'add', '-A');
  git(`${root}/repo`, 'commit', '-q', '-m', 'inside');
  const buildOutside = async () => {
    await writeOutside(fs, outside, marker);
    git(outside, 'init', '-q');
    git(outside, 'add', '-A');
    git(outside, 'commit', '-q', '-m', 'outside');
  };
  await buildOutside();

  const { app, server, url } = await serveNodeApp(fs, root);
  const trader = new FolderTrader(`${root}/${SWAPPED_FOLDER}`, `${root}/${SWAPPED_HELD}`, outside);
  const created = await app.fetch(new Request('http://localhost/workspace/agents', {
    method: 'POST',
    headers: { authorization: `Bearer ${TEST_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ agent: AGENT }),
  }));
  if (created.status !== 200) throw new Error(`creating the agent's copy: ${created.status} ${await created.text()}`);

  const outsideSnapshot = async () => {
    const around = await snapshotTree(diskReader, container, new Set([root]));
    for (const decoy of decoys) around[`decoy:${decoy}`] = String(await lstat(decoy).then(() => 'exists', () => 'absent'));
    return around;
  };
  const common = {
    root,
    outside,
    decoys,
    links: links.map((link) => link.path),
    fetch: inProcess((request) => app.fetch(request)),
    openWs: () => openNodeWs(url),
    flipper: fileSystemFlipper(fs, root, outside),
    trader,
    reset: () => resetThrough(fs, root, links),
    outsideSnapshot,
    insideSnapshot: () => snapshotTree(diskReader, root),
    restoreOutside: async () => {
      for (const decoy of decoys) await rm(decoy, { recursive: true, force: true });
      for (const name of await readdir(container)) if (name !== 'ws' && name !== 'ws-outside') await rm(join(container, name), { recursive: true, force: true });
      await buildOutside();
    },
    close: async () => {},
  };
  const node: FuzzTarget = { ...common, name: 'node', agent: undefined, has: new Set<Need>(['ws', 'git', 'pty', 'jobs', 'search', 'chat']) };
  const overlay: FuzzTarget = { ...common, name: 'overlay', agent: AGENT, has: new Set<Need>(['search']) };
  return {
    node,
    overlay,
    async close() {
      await trader.close();
      await closeServer(app, server);
      await rm(container, { recursive: true, force: true });
      for (const decoy of decoys) await rm(decoy, { recursive: true, force: true });
    },
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Memory

/** MemoryFileSystem at `/ws`, the outside folder at `/ws-outside`, decoys in `/tmp` of the same memory. */
export async function memoryTarget(specs: readonly LinkSpec[], marker: string): Promise<FuzzTarget> {
  const fs = new MemoryFileSystem();
  const root = '/ws';
  const outside = '/ws-outside';
  const decoys = ['/ws-decoy', '/tmp/wsapi-fuzz-decoy'];
  const links = renderLinks(specs, root, outside);
  await fs.mkdir(root, { recursive: true });
  await fs.mkdir('/tmp', { recursive: true });
  await resetThrough(fs, root, links);
  await writeOutside(fs, outside, marker);
  const reader = fileSystemReader(fs);
  const { app, server, url } = await serveNodeApp(fs, root);
  return {
    name: 'memory',
    root,
    outside,
    decoys,
    links: links.map((link) => link.path),
    has: new Set<Need>(['ws', 'search']),
    agent: undefined,
    fetch: inProcess((request) => app.fetch(request)),
    openWs: () => openNodeWs(url),
    flipper: fileSystemFlipper(fs, root, outside),
    reset: () => resetThrough(fs, root, links),
    outsideSnapshot: () => snapshotTree(reader, '/', new Set([root])),
    insideSnapshot: () => snapshotTree(reader, root),
    restoreOutside: async () => {
      for (const entry of await fs.readdir('/')) if (entry.name !== 'ws' && entry.name !== 'tmp') await removeIfThere(fs, `/${entry.name}`);
      for (const entry of await fs.readdir('/tmp')) await removeIfThere(fs, `/tmp/${entry.name}`);
      await writeOutside(fs, outside, marker);
    },
    close: () => closeServer(app, server),
  };
}

// ---------------------------------------------------------------------------------------------------------------
// The Durable Object

export async function durableObjectTarget(specs: readonly LinkSpec[], marker: string): Promise<FuzzTarget> {
  const root = '/workspace';
  const outside = '/workspace-outside';
  const decoys = ['/workspace-decoy', '/tmp/wsapi-fuzz-decoy'];
  const links = renderLinks(specs, root, outside);
  const probe: DurableObjectProbe = await startDurableObjectProbe();
  const api = (method: string, target: string, body: unknown) =>
    probe.fetch(target, { method, headers: { authorization: `Bearer ${probe.token}`, 'content-type': 'application/json' }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  // Files through the API, so the object's change feed and search engine hear of them; links through the probe.
  const reset = async () => {
    const listing = (await (await api('GET', '/api/files', undefined)).json()) as { entries: { name: string }[] };
    for (const { name } of listing.entries) if (!KEPT_BY_RESET.has(name)) await (await api('DELETE', '/workspace/entry', { path: name })).arrayBuffer();
    for (const [rel, content] of Object.entries(FUZZ_SEED_FILES)) {
      const answer = rel.endsWith('/') ? await api('POST', '/workspace/dir', { path: rel.slice(0, -1) }) : await api('PUT', `/api/file?path=${encodeURIComponent(rel)}`, { content });
      if (answer.status !== 200) throw new Error(`resetting ${rel}: ${answer.status} ${await answer.text()}`);
    }
    await probe.op('links', { links: links.map((link) => ({ path: `${root}/${link.path}`, target: link.target })) });
  };
  const buildOutside = () => probe.op('outside', { root, outside, files: outsideFiles(marker) });
  await reset();
  await buildOutside();
  return {
    name: 'durable-object',
    root,
    outside,
    decoys,
    links: links.map((link) => link.path),
    has: new Set<Need>(['ws', 'search']),
    agent: undefined,
    fetch: (call) =>
      probe.fetch(`${call.target}`, {
        method: call.method,
        headers: { authorization: `Bearer ${probe.token}`, ...call.headers },
        ...(call.body === undefined ? {} : { body: call.body as BodyInit }),
      }),
    openWs: () => probe.openWs(),
    flipper: {
      point: async (target) => void (await probe.op('point', { path: `${root}/${SWAP_LINK}`, target })),
      swapFolder: async (out) => void (await probe.op('swap-folder', { root, outside, out })),
    },
    reset,
    outsideSnapshot: async () => (await probe.op('snapshot', { folder: '/', skip: [root] })) as Snapshot,
    insideSnapshot: async () => (await probe.op('snapshot', { folder: root, skip: [] })) as Snapshot,
    restoreOutside: async () => void (await buildOutside()),
    close: () => probe.close(),
  };
}


