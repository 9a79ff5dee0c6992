import { jsonSchemaOf } from '@platform/contracts';
import type { z } from 'zod/v4';
import type { JsonObject } from '../speech/json-helpers';

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
