/**
 * `GET /openapi.json` (docs/architecture.md#openapi): served without a token, the document a real OpenAPI 3.1
 * validator accepts, in the package's version.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import SwaggerParser from '@apidevtools/swagger-parser';
import { describe, expect, it } from 'vitest';
import { MemoryFileSystem } from '../../../adapters/fs/memory-file-system.ts';
import { createWorkspaceApp } from '../../../runtime/app.ts';
import { API_VERSION, buildOpenApiDocument } from '../../../runtime/openapi/openapi-document.ts';
import { projectRoot } from '../../../runtime/worker-build.ts';
import { TEST_TOKEN } from '../../support/workspace.ts';

describe('GET /openapi.json', () => {
  it('is served without a token, as JSON, and is the built document', async () => {
    const app = createWorkspaceApp({ fs: new MemoryFileSystem({ '/ws/a.txt': 'a' }), root: '/ws', auth: { token: TEST_TOKEN } });
    const response = await app.fetch(new Request('http://localhost/openapi.json'));
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(await response.json()).toEqual(buildOpenApiDocument());
    await app.close();
  });

  it('is valid OpenAPI 3.1 by @apidevtools/swagger-parser', async () => {
    const document = buildOpenApiDocument();
    expect(document.openapi).toBe('3.1.0');
    // validate() dereferences in place: give it a copy.
    await expect(SwaggerParser.validate(structuredClone(document) as never)).resolves.toBeDefined();
  });

  it("carries the package's version", () => {
    const pkg = JSON.parse(readFileSync(join(projectRoot, 'package.json'), 'utf8')) as { version: string };
    expect(API_VERSION).toBe(pkg.version);
    expect((buildOpenApiDocument().info as { version: string }).version).toBe(pkg.version);
  });

  it('documents each dialect error shape and the three ways to present the token', () => {
    const { components } = buildOpenApiDocument() as { components: { schemas: Record<string, unknown>; securitySchemes: Record<string, unknown> } };
    expect(Object.keys(components.schemas).sort()).toEqual(['OrpcError', 'PlainError', 'TreeEntry', 'WorkspaceFilesError']);
    expect(components.securitySchemes).toMatchObject({
      bearer: { type: 'http', scheme: 'bearer' },
      intenticControl: { type: 'apiKey', in: 'header', name: 'x-intentic-control' },
      queryToken: { type: 'apiKey', in: 'query', name: 'token' },
    });
  });
});
