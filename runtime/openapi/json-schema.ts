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
  const converted = z.toJSONSchema(schema, { target: 'draft-2020-12', io, unrepresentable: 'any' }) as JsonSchema;
  const { $schema: _dialect, $defs, ...rest } = converted;
  for (const [name, definition] of Object.entries(($defs ?? {}) as Record<string, JsonSchema>)) {
    shared[name] = pointAtComponents(definition) as JsonSchema;
  }
  return pointAtComponents(rest) as JsonSchema;
}

function pointAtComponents(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(pointAtComponents);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    out[key] = key === '$ref' && typeof item === 'string' && item.startsWith('#/$defs/')
      ? `#/components/schemas/${item.slice('#/$defs/'.length)}`
      : pointAtComponents(item);
  }
  return out;
}
