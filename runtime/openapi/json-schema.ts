import { z } from 'zod';

export type JsonSchema = Record<string, unknown>;

/**
 * A zod schema as an OpenAPI 3.1 schema object (JSON Schema 2020-12): `io: 'input'` for what a handler parses
 * (a query's digit strings stay strings, transforms and refinements are the parser's business), `'output'` for
 * what it answers. Named sub-schemas (`.meta({ id })`, e.g. the recursive tree entry) come out as `$defs`,
 * which inside an OpenAPI document would resolve against the document's root: they are moved into `shared`
 * (the document's components.schemas) and referred to there.
 */
export function toOpenApiSchema(schema: z.ZodType, io: 'input' | 'output', shared: Record<string, JsonSchema>): JsonSchema {
  return toSharedSchema(schema, io, shared, '#/components/schemas/');
}

/**
 * The same conversion for a document that keeps its named sub-schemas elsewhere: they go into `shared`, and
 * references point at `base` + name (the `/ws` protocol document keeps them in its root `$defs`).
 */
export function toSharedSchema(schema: z.ZodType, io: 'input' | 'output', shared: Record<string, JsonSchema>, base: string): JsonSchema {
  const converted = z.toJSONSchema(schema, { target: 'draft-2020-12', io, unrepresentable: 'any' }) as JsonSchema;
  const { $schema: _dialect, $defs, ...rest } = converted;
  for (const [name, definition] of Object.entries(($defs ?? {}) as Record<string, JsonSchema>)) {
    shared[name] = pointAt(definition, base) as JsonSchema;
  }
  return pointAt(rest, base) as JsonSchema;
}

function pointAt(value: unknown, base: string): unknown {
  if (Array.isArray(value)) return value.map((item) => pointAt(item, base));
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    out[key] = key === '$ref' && typeof item === 'string' && item.startsWith('#/$defs/')
      ? `${base}${item.slice('#/$defs/'.length)}`
      : pointAt(item, base);
  }
  return out;
}
