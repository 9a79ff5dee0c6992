import { jsonSchemaOf } from '@platform/contracts';
import type { z } from 'zod/v4';
import type { JsonValue } from './document';
import { schemaRef, type JsonObject } from './speech/json-helpers';

/** A contract's JSON Schema as the document holds it (zod writes JSON values only, hence the narrower type). */
export const schemaOf = (schema: z.ZodType, io: 'input' | 'output' = 'output'): JsonObject =>
  jsonSchemaOf(schema, io) as JsonObject;

/** An OpenAPI parameter from a contract's field: its schema as a client sends it, its description beside it. */
function parameter(name: string, where: 'query' | 'path', field: z.ZodType): JsonObject {
  const { description, ...schema } = schemaOf(field, 'input');
  return {
    name,
    in: where,
    required: where === 'path',
    ...(typeof description === 'string' ? { description } : {}),
    schema,
  };
}

export const queryParameter = (name: string, field: z.ZodType) => parameter(name, 'query', field);
export const pathParameter = (name: string, field: z.ZodType) => parameter(name, 'path', field);

/** Every field of a contract's query object, as query parameters in its order. */
export const queryParameters = (query: z.ZodObject): JsonObject[] =>
  Object.entries(query.shape).map(([name, field]) => queryParameter(name, field as z.ZodType));

/**
 * The document's `components.schemas` from contracts: zod writes a schema used inside another (the User of
 * Tokens, the Post of a page) in full, so each copy of a named component becomes a `$ref` to it.
 */
export function componentSchemas(schemas: Record<string, JsonObject>): Record<string, JsonObject> {
  const nameOf = new Map(Object.entries(schemas).map(([name, schema]) => [JSON.stringify(schema), name]));
  const refer = (value: JsonValue): JsonValue => {
    if (Array.isArray(value)) return value.map(refer);
    if (value === null || typeof value !== 'object') return value;
    const name = nameOf.get(JSON.stringify(value));
    if (name !== undefined) return schemaRef(name);
    return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, refer(inner)]));
  };
  // A component itself stays whole; only what it holds is referred.
  return Object.fromEntries(
    Object.entries(schemas).map(([name, schema]) => [
      name,
      Object.fromEntries(Object.entries(schema).map(([key, inner]) => [key, refer(inner)])),
    ]),
  );
}
