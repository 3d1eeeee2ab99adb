/**
 * The Worker bundle in workerd (miniflare) with a test-only subclass of its Durable Object, so the path fuzzer can
 * do to a Durable Object workspace what it does to a disk: no route makes a link, and nothing outside
 * `/workspace` is reachable by design — which is exactly what the oracle must look at. The subclass answers
 * `POST /w/<id>/__fuzz/<op>` itself (every other request goes to the real object) with a DurableObjectFileSystem
 * of its own over the same storage:
 *
 * - `links {links: [{path, target}]}`: (re)makes links;
 * - `outside {outside, files}`: removes every top-level entry but the root, then writes the outside folder;
 * - `point {path, target}`: flips a link atomically (a new link renamed over it);
 * - `swap-folder {root, outside, out}`: trades the folder `swapped` for a link to the outside folder, or back;
 * - `snapshot {folder, skip}`: the tree under `folder` as ./escape-oracle.ts's Snapshot.
 *
 * Files inside the root are reset through the API instead (./path-fuzz-targets.ts), so the object's change feed and
 * search engine hear of them; the links the probe makes go unreported, as a link made by `ln -s` would.
 */
import { randomUUID } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { Miniflare } from 'miniflare';
import { build } from 'esbuild';
import { projectRoot, workerBuildOptions } from '../../../runtime/worker-build.ts';
import { WsChannel } from './ws-channel.ts';

const PROBE_ENTRY = `
import worker, { WorkspaceObject } from './runtime/worker.ts';
import { DurableObjectFileSystem } from './adapters/fs/durable-object-file-system.ts';

export default worker;

async function gone(fs, path) {
  try { await fs.remove(path, { recursive: true }); } catch (error) { if (error?.code !== 'not-found') throw error; }
}

async function snapshot(fs, folder, skip) {
  const out = {};
  async function walk(path, prefix) {
    let entries;
    try { entries = await fs.readdir(path); } catch (error) { if (error?.code === 'not-found') return; throw error; }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const { name, type } of entries) {
      const abs = path === '/' ? '/' + name : path + '/' + name;
      if (skip.includes(abs)) continue;
      const rel = prefix + name;
      if (type === 'symlink') out[rel] = '-> ' + (await fs.readlink(abs));
      else if (type === 'dir') { out[rel] = '<dir>'; await walk(abs, rel + '/'); }
      else { let s = ''; for (const b of await fs.read(abs)) s += String.fromCharCode(b); out[rel] = s; }
    }
  }
  await walk(folder, '');
  return out;
}

export class FuzzProbedWorkspaceObject extends WorkspaceObject {
  constructor(ctx, env) {
    super(ctx, env);
    this.probeFs = new DurableObjectFileSystem(ctx.storage);
    this.flips = 0;
  }

  async fetch(request) {
    const at = new URL(request.url).pathname.indexOf('/__fuzz/');
    if (at < 0) return super.fetch(request);
    const op = new URL(request.url).pathname.slice(at + '/__fuzz/'.length);
    const body = await request.json();
    const fs = this.probeFs;
    switch (op) {
      case 'links':
        for (const { path, target } of body.links) {
          await fs.mkdir(path.slice(0, path.lastIndexOf('/')), { recursive: true });
          await gone(fs, path);
          await fs.symlink(target, path);
        }
        return Response.json({ ok: true });
      case 'outside':
        for (const { name } of await fs.readdir('/')) if ('/' + name !== body.root) await gone(fs, '/' + name);
        for (const [rel, content] of Object.entries(body.files)) await fs.write(body.outside + '/' + rel, content, { mkdirs: true });
        return Response.json({ ok: true });
      case 'point': {
        const temp = body.path.slice(0, body.path.lastIndexOf('/')) + '/.swap-' + this.flips++;
        try {
          await fs.symlink(body.target, temp);
          await fs.rename(temp, body.path, { overwrite: true });
        } catch {
          // A request removed or replaced links/ (allowed: it is inside); the next reset makes it again.
        }
        return Response.json({ ok: true });
      }
      case 'swap-folder': {
        // The folder 'swapped' traded for a link to the outside folder, or back (hostile-paths.ts, swapFolderThrough).
        const folder = body.root + '/swapped';
        const held = body.root + '/.swapped-held';
        try {
          if (body.out) {
            await fs.rename(folder, held);
            await fs.symlink(body.outside, folder);
          } else if ((await fs.lstat(folder)).type === 'symlink') {
            await fs.remove(folder);
            await fs.rename(held, folder);
          }
        } catch {
          // A request moved or removed the folder (allowed: it is inside); the next reset makes it again.
        }
        return Response.json({ ok: true });
      }
      case 'snapshot':
        return Response.json(await snapshot(fs, body.folder, body.skip));
      default:
        return Response.json({ error: 'unknown probe op' }, { status: 400 });
    }
  }
}
`;

export interface DurableObjectProbe {
  readonly token: string;
  /** A request to the workspace, `target` relative to its base `/w/<id>`. */
  fetch(target: string, init: RequestInit): Promise<Response>;
  op(name: 'links' | 'outside' | 'point' | 'swap-folder' | 'snapshot', body: unknown): Promise<unknown>;
  openWs(): Promise<WsChannel>;
  close(): Promise<void>;
}

const TOKEN = 'fuzz-token';

export async function startDurableObjectProbe(): Promise<DurableObjectProbe> {
  // Miniflare refuses a script outside its working folder: the bundle goes under dist/, one per run.
  const script = `dist/test-fuzz-worker-${randomUUID()}/worker.js`;
  const { entryPoints: _entry, ...options } = workerBuildOptions;
  void _entry;
  await build({ ...options, stdin: { contents: PROBE_ENTRY, resolveDir: projectRoot, loader: 'js', sourcefile: 'fuzz-probe-entry.js' }, outfile: `${projectRoot}/${script}` });
  const mf = new Miniflare({
    scriptPath: script,
    modules: true,
    compatibilityDate: '2026-04-26',
    durableObjects: { WORKSPACES: { className: 'FuzzProbedWorkspaceObject', useSQLite: true } },
    bindings: { WORKSPACE_TOKEN: TOKEN },
  });
  await mf.ready;
  const base = `http://localhost/w/fuzz`;
  const fetch = async (target: string, init: RequestInit): Promise<Response> => (await mf.dispatchFetch(base + target, init as never)) as unknown as Response;
  // The first request mounts the app (and makes /workspace with its welcome README).
  await (await fetch('/api/files', { headers: { authorization: `Bearer ${TOKEN}` } })).arrayBuffer();
  return {
    token: TOKEN,
    fetch,
    async op(name, body) {
      const response = await fetch(`/__fuzz/${name}`, { method: 'POST', body: JSON.stringify(body), headers: { 'content-type': 'application/json' } });
      if (response.status !== 200) throw new Error(`probe ${name}: ${response.status} ${await response.text()}`);
      return response.json();
    },
    async openWs() {
      const response = await mf.dispatchFetch(`${base}/ws?token=${TOKEN}`, { headers: { upgrade: 'websocket' } });
      const socket = response.webSocket;
      if (!socket) throw new Error(`no WebSocket from the Durable Object: ${response.status}`);
      socket.accept();
      return new WsChannel(socket as never);
    },
    async close() {
      await mf.dispose();
      await rm(`${projectRoot}/${script.slice(0, script.lastIndexOf('/'))}`, { recursive: true, force: true });
    },
  };
}
