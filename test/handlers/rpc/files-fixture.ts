/**
 * The file commands' tests: a real Node server (a real WebSocket to `/ws`) over a seeded tree on one of the
 * backends (test/support/backends.ts: the disk through NodeFileSystem, or MemoryFileSystem at /ws), a
 * connected client, and read-backs of the tree that do not go through the server.
 */
import { expect } from 'vitest';
import type { NodeServer, NodeServerOptions } from '../../../runtime/node/server.ts';
import type { Limits } from '../../../runtime/context.ts';
import { createFixture, type BackendName, type Fixture, type Seed } from '../../support/backends.ts';
import { RpcClient, startTestServer, type Reply } from '../../support/rpc-client.ts';

export interface RpcFiles extends Fixture {
  readonly server: NodeServer;
  readonly rpc: RpcClient;
  /** `call`, returning the whole reply frame without its id (ids are the client's own counter). */
  reply(command: string, args?: unknown): Promise<Omit<Reply, 'id'>>;
  /** Absolute path under the root. */
  at(rel: string): string;
  /** Runs `call` and expects the tree, and the folder beside it, exactly as they were (a refused call). */
  unchanged(call: () => Promise<unknown>): Promise<void>;
}

export async function rpcFiles(
  backend: BackendName,
  seed: Seed,
  limits: Partial<Limits> = {},
  server: Partial<NodeServerOptions> = {},
): Promise<RpcFiles> {
  const fixture = await createFixture(backend, seed);
  const started = await startTestServer(fixture.root, { fs: fixture.fs, limits, ...server });
  const rpc = await RpcClient.connect(started);
  return {
    ...fixture,
    server: started,
    rpc,
    async reply(command, args) {
      const { id, ...rest } = await rpc.call(command, args);
      expect(typeof id).toBe('number');
      return rest;
    },
    at: (rel) => (rel === '' ? fixture.root : `${fixture.root}/${rel}`),
    async unchanged(call) {
      const [inside, outside] = [await fixture.tree(), await fixture.outsideTree()];
      await call();
      expect(await fixture.tree()).toEqual(inside);
      expect(await fixture.outsideTree()).toEqual(outside);
    },
    async cleanup() {
      await rpc.close();
      await started.close();
      await fixture.cleanup();
    },
  };
}

export const ok = (result: unknown) => ({ ok: true, result });
export const failed = (error: string) => ({ ok: false, error });
