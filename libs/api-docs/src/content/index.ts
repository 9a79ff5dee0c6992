import type { ApiDocument } from '../document';

/** OpenAPI 3.1 description of the content API as the gateway serves it. */
export function contentOpenApi(): ApiDocument {
  return { openapi: '3.1.0', info: { title: 'Content API', version: '1.0.0' }, paths: {} };
}
