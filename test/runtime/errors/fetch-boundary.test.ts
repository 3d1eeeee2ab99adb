/**
 * The app's outermost guard (runtime/errors/fetch-boundary.ts): what escapes routing answers in the shape of the
 * dialect its path belongs to, 500 `internal error`, logged once with its stack; a request whose URL does not parse
 * (a host server that does not check, as @whatwg-node/server does not) is a 400, not a TypeError.
 */
import { format } from 'node:util';
import { Request as PonyfillRequest } from '@whatwg-node/fetch';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { MemoryFileSystem } from '../../../adapters/fs/memory-file-system.ts';
import { createWorkspaceApp } from '../../../runtime/app.ts';
import { withFetchBoundary } from '../../../runtime/errors/fetch-boundary.ts';

afterEach(() => vi.restoreAllMocks());

const failing = withFetchBoundary('/base', async () => {
  throw new TypeError("Cannot read properties of undefined (reading 'secret')");
});

describe.each([
  ['/base/api/files', { error: 'internal error' }],
  ['/base/ws', { error: 'internal error' }],
  ['/base/workspace/raw', { error: 'internal error' }],
  ['/base/workspace/tree', { defined: false, code: 'INTERNAL_SERVER_ERROR', status: 500, message: 'internal error' }],
  ['/base/workspace-files/stat', { error: { code: 'workspace-file/internal', message: 'internal error', details: {} } }],
  ['/elsewhere', { error: 'internal error' }],
])('a throw past the routes on %s', (path, body) => {
  it('answers 500 in that dialect’s shape and logs it once, with the stack', async () => {
    const log = vi.spyOn(console, 'error').mockImplementation(() => {});
    const response = await failing(new Request(`http://localhost${path}?token=t`));
    expect(response.status).toBe(500);
    expect(await response.json()).toEqual(body);
    expect(log).toHaveBeenCalledTimes(1);
    const entry = format(...log.mock.calls[0]!);
    expect(entry).toContain(`GET ${path}: TypeError: Cannot read properties of undefined (reading 'secret')\n`);
    expect(entry).not.toContain('token=t');
  });
});

it('a request URL that does not parse is a 400 from the app itself', async () => {
  const app = createWorkspaceApp({ fs: new MemoryFileSystem({ '/ws/a.txt': 'a' }), root: '/ws', auth: { disabled: true } });
  const log = vi.spyOn(console, 'error').mockImplementation(() => {});
  const request = new PonyfillRequest('http://a b/healthz') as unknown as Request;
  const response = await app.fetch(request);
  expect(response.status).toBe(400);
  expect(await response.json()).toEqual({ error: 'malformed request URL' });
  expect(log).not.toHaveBeenCalled();
  await app.close();
});
