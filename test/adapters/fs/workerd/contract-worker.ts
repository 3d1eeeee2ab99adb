/**
 * A Worker whose Durable Object runs the FileSystem contract (../contract.ts, bundled unchanged with `vitest`
 * pointing at test/support/workerd-vitest.ts) inside workerd, against the backends that run there: the memory one
 * (the runner's own check: it passes in Node too) and DurableObjectFileSystem over the object's SQLite storage.
 * `GET /list` names every test; `GET /run?name=` runs one and answers how it ended.
 */
import { MemoryFileSystem } from '../../../../adapters/fs/memory-file-system.ts';
import { runTest, testNames } from '../../../support/workerd-vitest.ts';
import { runFileSystemContract } from '../contract.ts';

runFileSystemContract('MemoryFileSystem in workerd', async () => {
  const fs = new MemoryFileSystem();
  await fs.mkdir('/ws');
  return { fs, root: '/ws', cleanup: async () => {} };
});

interface Namespace {
  idFromName(name: string): unknown;
  get(id: unknown): { fetch(request: Request): Promise<Response> };
}

export class ContractObject {
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
