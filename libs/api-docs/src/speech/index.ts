import type { ApiDocument } from '../document';

/** OpenAPI 3.1 description of the speech API as the gateway serves it. */
export function speechOpenApi(): ApiDocument {
  return { openapi: '3.1.0', info: { title: 'Speech API', version: '1.0.0' }, paths: {} };
}
