/**
 * A Worker whose Durable Object runs the FileSystem contract (../contract.ts, bundled unchanged with `vitest`
 * pointing at test/support/workerd-vitest.ts) inside workerd, against the backends that run there: the memory one
 * (the runner's own check: it passes in Node too) and DurableObjectFileSystem over the object's SQLite storage.
 * `GET /list` names every test; `GET /run?name=` runs one and answers how it ended.
 */
import { DurableObjectFileSystem, type DurableObjectSqlStorage } from '../../../../adapters/fs/durable-object-file-system.ts';
import { MemoryFileSystem } from '../../../../adapters/fs/memory-file-system.ts';
import { runTest, testNames } from '../../../support/workerd-vitest.ts';
import { runFileSystemContract } from '../contract.ts';

runFileSystemContract('MemoryFileSystem in workerd', async () => {
  const fs = new MemoryFileSystem();
  await fs.mkdir('/ws');
  return { fs, root: '/ws', cleanup: async () => {} };
});

// The object's storage, set when workerd makes the object (before any test runs). Every test works in a fresh folder
// of it, removed afterwards, so tests never see each other's files.
let storage: DurableObjectSqlStorage | undefined;
let folders = 0;

runFileSystemContract('DurableObjectFileSystem', async () => {
  if (!storage) throw new Error('no Durable Object storage yet');
  const fs = new DurableObjectFileSystem(storage);
  const root = `/test-${++folders}`;
  await fs.mkdir(root);
  return { fs, root, cleanup: () => fs.remove(root, { recursive: true }) };
});

interface Namespace {
  idFromName(name: string): unknown;
  get(id: unknown): { fetch(request: Request): Promise<Response> };
}

export class ContractObject {
  constructor(ctx: { storage: DurableObjectSqlStorage }) {
    storage = ctx.storage;
  }

  async fetch(request: Request): Promise<Response> {
    const url = new URL(request.url);
    if (url.pathname === '/list') return Response.json(testNames());
    return Response.json(await runTest(url.searchParams.get('name') ?? ''));
  }
}

export default {
  fetch(request: Request, env: { CONTRACT: Namespace }): Promise<Response> {
    return env.CONTRACT.get(env.CONTRACT.idFromName('contract')).fetch(request);
  },
};
