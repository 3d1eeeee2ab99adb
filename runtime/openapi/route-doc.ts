import type { z } from 'zod';

/** A success (or protocol) response of one route: a JSON body by its zod schema, or another content type. */
export interface ResponseDoc {
  description: string;
  /** The JSON body, validated against real answers in the tests. */
  json?: z.ZodType;
  /** A body that is not JSON: its media type (`*\/*` for a file served as what it is) and what it holds. */
  content?: { mediaType: string; schema: Record<string, unknown> };
  /** Response headers worth naming (e.g. `ETag`). */
  headers?: Record<string, string>;
}

/** A request header the route reads (conditional requests, ranges, upload preconditions). */
export interface HeaderDoc {
  name: string;
  description: string;
}

/**
 * What the OpenAPI document says about one route beyond the route table (which gives its method, path, and
 * access — hence its error shape and auth): the handler's own input schemas and its answers.
 */
export interface RouteDoc {
  summary: string;
  /** The docs page and anchor that specify it, e.g. `docs/ori.md#read`. */
  docs: string;
  /** Path parameters, by the schema the handler parses them with. */
  params?: z.ZodObject;
  /** The query, by the schema the handler parses it with: one parameter per property. */
  query?: z.ZodObject;
  /** A JSON request body, by the schema the handler parses it with. */
  body?: z.ZodType;
  /** A request body that is not JSON (an upload's raw bytes). */
  rawBody?: { mediaType: string; description: string };
  headers?: HeaderDoc[];
  responses: Record<number, ResponseDoc>;
  /** Error statuses this route can answer beyond every guarded route's 400, 401, 403, 404 and 500. */
  errors?: number[];
}
