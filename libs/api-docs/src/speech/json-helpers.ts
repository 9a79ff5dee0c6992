import type { JsonValue } from '../document';

type JsonObject = { [key: string]: JsonValue };

/** A reference to a schema of this document's `components.schemas`. */
export const schemaRef = (name: string): JsonObject => ({ $ref: `#/components/schemas/${name}` });

/** A reference to a response of this document's `components.responses`. */
export const responseRef = (name: string): JsonObject => ({ $ref: `#/components/responses/${name}` });

/** A reference to a parameter of this document's `components.parameters`. */
export const parameterRef = (name: string): JsonObject => ({ $ref: `#/components/parameters/${name}` });

/** An `application/json` response (or request body content) with a schema and an optional example. */
export function jsonContent(schema: JsonObject, example?: JsonValue): JsonObject {
  return { 'application/json': { schema, ...(example !== undefined ? { example } : {}) } };
}

export function jsonResponse(description: string, schema: JsonObject, example?: JsonValue): JsonObject {
  return { description, content: jsonContent(schema, example) };
}

/** A binary response body in each of the media types given. */
export function binaryResponse(description: string, mediaTypes: readonly string[], headers?: JsonObject): JsonObject {
  const content: JsonObject = {};
  for (const type of mediaTypes) content[type] = { schema: { type: 'string', contentMediaType: type } };
  return { description, ...(headers ? { headers } : {}), content };
}

/** `{status: "ok"}`, the answer of the speech API's changes that return nothing else. */
export const okResponse = (description: string): JsonObject =>
  jsonResponse(description, schemaRef('StatusOk'), { status: 'ok' });

export type { JsonObject, JsonValue };
