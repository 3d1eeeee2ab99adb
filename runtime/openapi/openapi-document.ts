import { routeTable, type RouteAccessKind, type RouteMethod, type RouteRow } from '../routes.ts';
import { API_VERSION } from './api-version.ts';
import { errorDescriptions, errorSchemas, errorShapeOf, orpcCodeOf } from './error-schemas.ts';
import { toOpenApiSchema, type JsonSchema } from './json-schema.ts';
import type { ResponseDoc, RouteDoc } from './route-doc.ts';
import { routeDocIndex as routeDocs } from './route-docs.ts';

/** The document's own version: the package's. */
export { API_VERSION };

/** The statuses every guarded route can answer (bad input, token, containment or origin, missing, a bug). */
const GUARDED_ERRORS = [400, 401, 403, 404, 500];
/** …and every route, guarded or not: no turn for it while the daemon is busy (docs/architecture.md#admission). */
const EVERY_ROUTE_ERRORS = [429];

/** The key route-docs.ts uses for a route-table row: `GET /terminals/{name}` for itty's `/terminals/:name`. */
export function routeKey(method: RouteMethod, path: string): string {
  return `${method} ${openApiPath(path)}`;
}

export function openApiPath(path: string): string {
  return path.replace(/:(\w+)\+?/g, '{$1}'); // `:file+` (a greedy parameter) is one parameter too
}

/**
 * OpenAPI 3.1 for every route of the route table (docs/architecture.md#openapi): inputs from the zod schemas
 * the handlers parse with, answers from ./responses, errors in each route's dialect shape, and the three ways
 * to present the token. Throws if a routed path has no entry in ./route-docs.ts.
 */
export function buildOpenApiDocument(): JsonSchema {
  const shared: Record<string, JsonSchema> = {};
  for (const [name, schema] of Object.entries(errorSchemas)) shared[name] = toOpenApiSchema(schema, 'output', shared);
  const paths: Record<string, Record<string, unknown>> = {};
  for (const row of routeTable) {
    const doc = routeDocs[routeKey(row.method, row.path)];
    if (!doc) throw new Error(`no OpenAPI entry for ${routeKey(row.method, row.path)}`);
    (paths[openApiPath(row.path)] ??= {})[row.method.toLowerCase()] = operation(row, doc, shared);
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'workspace-api',
      version: API_VERSION,
      description:
        'The workspace daemon: files, search, terminals and projects over four client dialects. Each dialect has its ' +
        'own error shape; the WebSocket protocols on /ws, /ws/terminal and /terminals/{name} are specified in docs/.',
    },
    paths,
    components: {
      schemas: shared,
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', description: '`Authorization: Bearer <token>`' },
        intenticControl: { type: 'apiKey', in: 'header', name: 'x-intentic-control', description: "Intentic's header" },
        queryToken: {
          type: 'apiKey',
          in: 'query',
          name: 'token',
          description: '`?token=`: GET and HEAD only (WebSocket upgrades, links); it never authorises a write',
        },
      },
    },
  };
}

function operation(row: RouteRow, doc: RouteDoc, shared: Record<string, JsonSchema>): Record<string, unknown> {
  const op: Record<string, unknown> = {
    operationId: `${row.method.toLowerCase()}${openApiPath(row.path).replace(/[^A-Za-z0-9]+(.)?/g, (_, c: string = '') => c.toUpperCase())}`,
    summary: doc.summary,
    description: `Specified in ${doc.docs}.`,
    tags: [tagOf(row)],
    security: securityOf(row),
  };
  const parameters = [
    ...propertiesOf(doc.params, shared).map(({ name, schema }) => ({ name, in: 'path', required: true, schema })),
    ...queryParameters(doc, shared),
    ...(doc.headers ?? []).map(({ name, description }) => ({ name, in: 'header', required: false, description, schema: { type: 'string' } })),
  ];
  if (parameters.length > 0) op.parameters = parameters;
  if (doc.body) {
    const schema = toOpenApiSchema(doc.body, 'input', shared);
    op.requestBody = { required: !doc.body.safeParse(undefined).success, content: { 'application/json': { schema } } };
  } else if (doc.rawBody) {
    op.requestBody = {
      required: true,
      description: doc.rawBody.description,
      content: { [doc.rawBody.mediaType]: { schema: { type: 'string', contentMediaType: doc.rawBody.mediaType } } },
    };
  }
  const responses: Record<string, unknown> = {};
  for (const [status, response] of Object.entries(doc.responses)) responses[status] = responseObject(response, shared);
  for (const status of errorStatuses(row, doc)) {
    responses[String(status)] ??= errorResponse(row.access, status);
  }
  op.responses = responses;
  return op;
}

/** One parameter per property of the query schema, `required` as the schema says. */
function queryParameters(doc: RouteDoc, shared: Record<string, JsonSchema>): Record<string, unknown>[] {
  return propertiesOf(doc.query, shared).map(({ name, schema, required }) => ({ name, in: 'query', required, schema }));
}

function propertiesOf(object: RouteDoc['query'], shared: Record<string, JsonSchema>) {
  if (!object) return [];
  const schema = toOpenApiSchema(object, 'input', shared);
  const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set((schema.required ?? []) as string[]);
  return Object.entries(properties).map(([name, property]) => ({ name, schema: property, required: required.has(name) }));
}

function responseObject(response: ResponseDoc, shared: Record<string, JsonSchema>): Record<string, unknown> {
  const out: Record<string, unknown> = { description: response.description };
  if (response.json) out.content = { 'application/json': { schema: toOpenApiSchema(response.json, 'output', shared) } };
  else if (response.content) out.content = { [response.content.mediaType]: { schema: response.content.schema } };
  if (response.headers) {
    out.headers = Object.fromEntries(
      Object.entries(response.headers).map(([name, description]) => [name, { description, schema: { type: 'string' } }]),
    );
  }
  return out;
}

function errorStatuses(row: RouteRow, doc: RouteDoc): number[] {
  const base = row.access === 'public' ? EVERY_ROUTE_ERRORS : [...GUARDED_ERRORS, ...EVERY_ROUTE_ERRORS];
  return [...new Set([...base, ...(doc.errors ?? [])])].sort((a, b) => a - b);
}

/** An error in the route's dialect shape; an oRPC body's `status` and `code` are pinned to the status. */
function errorResponse(access: RouteAccessKind, status: number): Record<string, unknown> {
  const shape = errorShapeOf(access);
  const ref = { $ref: `#/components/schemas/${shape}` };
  const code = orpcCodeOf[status];
  const schema = shape === 'OrpcError' && code
    ? { allOf: [ref, { properties: { status: { const: status }, code: { const: code } } }] }
    : ref;
  return { description: errorDescriptions[status] ?? 'an error', content: { 'application/json': { schema } } };
}

/**
 * Who may call: public routes anyone; the media stream its ticket (a query parameter of its own); every other
 * route the token, by header — or, on GET and HEAD, by `?token=`.
 */
function securityOf(row: RouteRow): Record<string, string[]>[] {
  if (row.access === 'public' || row.access === 'intentic-ticketed') return [];
  const headers: Record<string, string[]>[] = [{ bearer: [] }, { intenticControl: [] }];
  return row.method === 'GET' || row.method === 'HEAD' ? [...headers, { queryToken: [] }] : headers;
}

function tagOf(row: RouteRow): string {
  if (row.access === 'public') return 'common';
  if (row.path.startsWith('/terminals')) return 'terminals';
  if (row.path.startsWith('/ws')) return 'websocket';
  return row.access === 'intentic-ticketed' ? 'intentic-bytes' : row.access;
}
