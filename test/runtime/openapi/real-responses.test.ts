/**
 * Real answers validate against the schemas the OpenAPI document gives them (docs/architecture.md#openapi): a
 * sample of calls through the in-process app over the memory FileSystem — successes of every dialect and one
 * 400 and one 404 per dialect — each checked with ajv (JSON Schema 2020-12) against the document's own
 * response schema for that route and status.
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryFileSystem } from '../../../adapters/fs/memory-file-system.ts';
import { createWorkspaceApp, type WorkspaceApp } from '../../../runtime/app.ts';
import { buildOpenApiDocument } from '../../../runtime/openapi/openapi-document.ts';
import { FakePtyAdapter } from '../../support/terminals.ts';
import { request, TEST_TOKEN } from '../../support/workspace.ts';

const DOCUMENT_ID = 'https://workspace-api.invalid/openapi.json';

/** The ajv validator of one route's response body, by JSON pointer into the document. */
function responseValidator(ajv: Ajv2020, path: string, method: string, status: number) {
  const pointer = ['paths', path, method, 'responses', String(status), 'content', 'application/json', 'schema']
    .map((part) => part.replace(/~/g, '~0').replace(/\//g, '~1'))
    .join('/');
  const validate = ajv.getSchema(`${DOCUMENT_ID}#/${pointer}`);
  if (!validate) throw new Error(`no schema at ${method} ${path} ${status}`);
  return validate;
}

interface Call {
  /** The route as the document names it. */
  route: string;
  /** The request target, with its query. */
  target: string;
  init?: RequestInit;
  status: number;
}

const json = (body: unknown): RequestInit => ({ body: JSON.stringify(body), headers: { 'content-type': 'application/json' } });

const calls: Call[] = [
  { route: 'GET /healthz', target: '/healthz', status: 200 },
  { route: 'GET /api/files', target: '/api/files', status: 200 },
  { route: 'GET /api/file', target: '/api/file?path=a.txt', status: 200 },
  { route: 'PUT /api/file', target: '/api/file?path=new/b.txt', init: { method: 'PUT', ...json({ content: 'bee' }) }, status: 200 },
  { route: 'GET /api/skills', target: '/api/skills', status: 200 },
  { route: 'GET /workspace/tree', target: '/workspace/tree', status: 200 },
  { route: 'GET /workspace/children', target: '/workspace/children?path=src', status: 200 },
  { route: 'GET /workspace/file', target: '/workspace/file?path=a.txt', status: 200 },
  { route: 'GET /workspace/file', target: '/workspace/file?path=missing.txt', status: 200 },
  { route: 'GET /workspace/resolve', target: '/workspace/resolve?path=see%20src/main.ts', status: 200 },
  { route: 'GET /workspace/search', target: '/workspace/search?query=hello', status: 200 },
  { route: 'POST /workspace/dir', target: '/workspace/dir', init: { method: 'POST', ...json({ path: 'made/here' }) }, status: 200 },
  { route: 'POST /workspace/media-ticket', target: '/workspace/media-ticket', init: { method: 'POST', ...json({ path: 'a.txt' }) }, status: 200 },
  { route: 'GET /workspace-files/stat', target: '/workspace-files/stat?path=a.txt', status: 200 },
  { route: 'GET /workspace-files/read', target: '/workspace-files/read?path=a.txt', status: 200 },
  { route: 'GET /workspace-files/read-bytes', target: '/workspace-files/read-bytes?path=a.txt', status: 200 },
  { route: 'GET /workspace-files/list', target: '/workspace-files/list?path=src', status: 200 },
  { route: 'GET /terminals', target: '/terminals', status: 200 },
  { route: 'POST /terminals', target: '/terminals', init: { method: 'POST', ...json({ name: 'dev' }) }, status: 201 },
  // one 400 and one 404 per dialect
  { route: 'GET /api/file', target: '/api/file', status: 400 },
  { route: 'GET /api/file', target: '/api/file?path=nope.txt', status: 404 },
  { route: 'GET /terminals/{name}', target: '/terminals/no-such', status: 404 },
  { route: 'GET /workspace/children', target: '/workspace/children', status: 400 },
  { route: 'GET /workspace/children', target: '/workspace/children?path=nope', status: 404 },
  { route: 'GET /workspace/raw', target: '/workspace/raw', status: 400 },
  { route: 'GET /workspace/raw', target: '/workspace/raw?path=nope.txt', status: 404 },
  { route: 'GET /workspace-files/stat', target: '/workspace-files/stat', status: 400 },
  { route: 'GET /workspace-files/stat', target: '/workspace-files/stat?path=nope.txt', status: 404 },
  // the token's refusal, in the Intentic shape with its pinned code
  { route: 'GET /workspace/tree', target: '/workspace/tree', init: { headers: { authorization: 'Bearer wrong' } }, status: 401 },
];

describe('real responses match the OpenAPI document', () => {
  let app: WorkspaceApp;
  let ajv: Ajv2020;

  beforeAll(() => {
    const fs = new MemoryFileSystem({
      '/ws/a.txt': 'hello\nworld\n',
      '/ws/src/main.ts': 'export const hello = 1;\n',
    });
    app = createWorkspaceApp({ fs, root: '/ws', auth: { token: TEST_TOKEN }, pty: new FakePtyAdapter(true) });
    ajv = new Ajv2020({ strict: false, allErrors: true });
    ajv.addSchema(buildOpenApiDocument(), DOCUMENT_ID);
  });
  afterAll(async () => {
    await app.close();
  });

  for (const call of calls) {
    it(`${call.route} → ${call.status} (${call.target})`, async () => {
      const response = await app.fetch(request(call.target, call.init));
      expect(response.status).toBe(call.status);
      const body: unknown = await response.json();
      const [method, path] = call.route.split(' ') as [string, string];
      const validate = responseValidator(ajv, path, method.toLowerCase(), call.status);
      expect(validate(body) ? [] : validate.errors, JSON.stringify(body)).toEqual([]);
    });
  }

  it('a body the document does not describe fails the check (the schemas are strict)', () => {
    const validate = responseValidator(ajv, '/workspace-files/stat', 'get', 200);
    expect(validate({ absolutePath: '/ws/a.txt', version: '1', bytes: 3 })).toBe(true);
    expect(validate({ absolutePath: '/ws/a.txt', version: '1', bytes: 3, extra: true })).toBe(false);
    const notFound = responseValidator(ajv, '/workspace/tree', 'get', 404);
    expect(notFound({ defined: false, code: 'NOT_FOUND', status: 404, message: 'x' })).toBe(true);
    expect(notFound({ defined: false, code: 'BAD_REQUEST', status: 404, message: 'x' })).toBe(false);
  });
});
