import { z } from 'zod/v4';

/** A JSON Schema (draft 2020-12, the dialect of OpenAPI 3.1 and AsyncAPI 3), as the API documents hold it. */
export type JsonSchema = { [keyword: string]: unknown };

/**
 * The JSON Schema of a contract, for the API documents (libs/api-docs). `io: 'input'` describes what a client
 * may send (defaults optional, no `additionalProperties: false` unless the schema is strict); `'output'` what
 * the server answers. The `$schema` keyword is left out: the document's dialect already says it.
 */
export function jsonSchemaOf(schema: z.ZodType, io: 'input' | 'output' = 'output'): JsonSchema {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as JsonSchema;
  return rest;
}
