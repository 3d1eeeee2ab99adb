/**
 * A bug in the daemon (here: storage that throws a TypeError for one path) answers every dialect in its own error
 * shape with status 500 and `internal error` — no stack, no message of the TypeError — and is logged exactly
 * once, with its stack. Over a real server: ori, Intentic's contract calls (through its oRPC client) and byte
 * routes, workspace-files, the `/ws` protocol and the named terminals.
 */
import { format } from 'node:util';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi, type MockInstance } from 'vitest';
import { fetch } from 'undici';
import { NodeFileSystem } from '../../adapters/fs/node-file-system.ts';
import type { NodeServer } from '../../runtime/node/server.ts';
import { intenticClient, orpcError } from '../support/intentic-contract.ts';
import { RpcClient, startTestServer } from '../support/rpc-client.ts';
import { TEST_TOKEN, tempWorkspace, type TempWorkspace } from '../support/workspace.ts';

const BUG = "Cannot read properties of undefined (reading 'secret')";

/** The disk, except that any call naming a path with `boom` in it throws the TypeError a bug would. */
function buggyFileSystem(): NodeFileSystem {
  return new Proxy(new NodeFileSystem(), {
    get(target, key) {
      const value: unknown = Reflect.get(target, key, target);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        if (args.some((arg) => typeof arg === 'string' && arg.includes('boom'))) throw new TypeError(BUG);
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
}

let workspace: TempWorkspace;
let server: NodeServer;
let logged: MockInstance<typeof console.error>;
beforeAll(async () => {
  workspace = await tempWorkspace({ 'fine.txt': 'fine\n' });
  server = await startTestServer(workspace.root, { fs: buggyFileSystem() });
});
afterAll(async () => {
  await server.close();
  await workspace.cleanup();
});
afterEach(() => logged?.mockRestore());

/** Runs `call` with console.error recorded; the entries that carry the bug. */
async function logOf(call: () => Promise<void>): Promise<string[]> {
  logged = vi.spyOn(console, 'error').mockImplementation(() => {});
  await call();
  const entries = logged.mock.calls.map((args) => format(...args)); // as console.error prints them
  logged.mockRestore();
  return entries;
}

function expectLoggedOnce(entries: string[]): void {
  expect(entries).toHaveLength(1);
  expect(entries[0]).toContain(`TypeError: ${BUG}`);
  expect(entries[0]).toMatch(/\n\s+at /); // the stack, for whoever fixes it
}

const get = (path: string, init: Parameters<typeof fetch>[1] = {}) =>
  fetch(`${server.url}${path}`, { ...init, headers: { authorization: `Bearer ${TEST_TOKEN}`, ...(init.headers as object) } });

/** The body as text, checked to carry nothing of the error's internals. */
async function internalsFree(response: Awaited<ReturnType<typeof fetch>>): Promise<unknown> {
  const text = await response.text();
  expect(text).not.toMatch(/TypeError|secret|\bat \//);
  return JSON.parse(text);
}

describe('an unexpected error answers 500 `internal error` in each dialect’s shape, logged once', () => {
  it('ori: {"error"}', async () => {
    const entries = await logOf(async () => {
      const response = await get('/api/file?path=boom.txt');
      expect(response.status).toBe(500);
      expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(await internalsFree(response)).toEqual({ error: 'internal error' });
    });
    expectLoggedOnce(entries);
  });

  it('Intentic contract calls: the oRPC error body, as its client reads it', async () => {
    const entries = await logOf(async () => {
      const error = await orpcError(intenticClient(server).workspace.file({ path: 'boom.txt' }));
      expect({ code: error.code, status: error.status, message: error.message }).toEqual({
        code: 'INTERNAL_SERVER_ERROR',
        status: 500,
        message: 'internal error',
      });
    });
    expectLoggedOnce(entries);
    const entriesRaw = await logOf(async () => {
      const response = await get('/workspace/file?path=boom.txt');
      expect(response.status).toBe(500);
      expect(await internalsFree(response)).toEqual({ defined: false, code: 'INTERNAL_SERVER_ERROR', status: 500, message: 'internal error' });
    });
    expectLoggedOnce(entriesRaw);
  });

  it('Intentic byte routes: {"error"}', async () => {
    const entries = await logOf(async () => {
      const response = await get('/workspace/raw?path=boom.txt');
      expect(response.status).toBe(500);
      expect(await internalsFree(response)).toEqual({ error: 'internal error' });
    });
    expectLoggedOnce(entries);
  });

  it('workspace-files: {"error": {code, message, details}}', async () => {
    const entries = await logOf(async () => {
      const response = await get('/workspace-files/stat?path=boom.txt');
      expect(response.status).toBe(500);
      expect(await internalsFree(response)).toEqual({ error: { code: 'workspace-file/internal', message: 'internal error', details: {} } });
    });
    expectLoggedOnce(entries);
  });

  it('named terminals: {"error"}', async () => {
    const entries = await logOf(async () => {
      const response = await get('/terminals', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: 't1', cwd: 'boom' }) });
      expect(response.status).toBe(500);
      expect(await internalsFree(response)).toEqual({ error: 'internal error' });
    });
    expectLoggedOnce(entries);
  });

  it('/ws: {id, ok: false, error: "internal error"}, and the socket serves on', async () => {
    const client = await RpcClient.connect(server);
    try {
      const entries = await logOf(async () => {
        expect(await client.call('read_file', { path: 'boom.txt' })).toEqual({ id: 1, ok: false, error: 'internal error' });
      });
      expectLoggedOnce(entries);
      expect(await client.ok('read_file', { path: 'fine.txt' })).toBe('fine\n');
    } finally {
      await client.close();
    }
  });
});
