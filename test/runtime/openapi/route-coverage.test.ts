/**
 * The OpenAPI document covers exactly what is routed (docs/architecture.md#openapi): the router is built from
 * runtime/routes.ts's routeTable and nothing else, so every row must have an entry in route-docs.ts and every
 * entry a row; and each entry's docs page and heading exists.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildOpenApiDocument, openApiPath, routeKey } from '../../../runtime/openapi/openapi-document.ts';
import { routeDocIndex as routeDocs } from '../../../runtime/openapi/route-docs.ts';
import { routeTable } from '../../../runtime/routes.ts';
import { projectRoot } from '../../../runtime/worker-build.ts';

const METHODS = ['get', 'head', 'post', 'put', 'delete', 'patch', 'options', 'trace'];

describe('OpenAPI route coverage', () => {
  it('every routed method and path has an entry, and every entry is routed', () => {
    const routed = routeTable.map((row) => routeKey(row.method, row.path)).sort();
    expect(new Set(routed).size).toBe(routed.length);
    expect(Object.keys(routeDocs).sort()).toEqual(routed);
  });

  it('the document has one operation per routed method and path, and no other', () => {
    const document = buildOpenApiDocument() as { paths: Record<string, Record<string, unknown>> };
    const operations = Object.entries(document.paths).flatMap(([path, item]) =>
      Object.keys(item).filter((key) => METHODS.includes(key)).map((method) => `${method.toUpperCase()} ${path}`),
    );
    expect(operations.sort()).toEqual(routeTable.map((row) => `${row.method} ${openApiPath(row.path)}`).sort());
  });

  it('the routes the issue names are all there, /openapi.json and /healthz public', () => {
    const document = buildOpenApiDocument() as { paths: Record<string, Record<string, { security: unknown[] }>> };
    for (const path of ['/healthz', '/openapi.json', '/api/files', '/ws', '/ws/terminal', '/terminals/{name}', '/workspace/tree', '/workspace-files/changes']) {
      expect(document.paths[path], path).toBeDefined();
    }
    expect(document.paths['/healthz']!.get!.security).toEqual([]);
    expect(document.paths['/openapi.json']!.get!.security).toEqual([]);
    expect(document.paths['/workspace/media']!.get!.security).toEqual([]);
    expect(document.paths['/workspace/tree']!.get!.security).toEqual([{ bearer: [] }, { intenticControl: [] }, { queryToken: [] }]);
    // A query token never authorises a write (runtime/auth.ts).
    expect(document.paths['/api/file']!.put!.security).toEqual([{ bearer: [] }, { intenticControl: [] }]);
  });

  it("every entry's docs page and heading exist", () => {
    for (const [key, doc] of Object.entries(routeDocs)) {
      const [, page, anchor] = /^docs\/([\w.-]+\.md)(?:#([\w-]+))?$/.exec(doc.docs) ?? [];
      expect(page, `${key}: ${doc.docs}`).toBeDefined();
      const markdown = readFileSync(join(projectRoot, 'docs', page!), 'utf8');
      if (anchor !== undefined) expect(headingSlugs(markdown), `${key}: ${doc.docs}`).toContain(anchor);
    }
  });
});

/** GitHub's heading anchors for the page's headings (repeats are not needed here). */
function headingSlugs(markdown: string): string[] {
  return [...markdown.matchAll(/^#{1,6}\s+(.*?)\s*$/gm)].map(([, heading]) =>
    heading!.toLowerCase().replace(/[^\w\- ]/g, '').replace(/ /g, '-'),
  );
}
