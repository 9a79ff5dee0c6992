import type { ApiDocument } from '../document';

/** OpenAPI 3.1 description of the auth API as the gateway serves it. */
export function authOpenApi(): ApiDocument {
  return { openapi: '3.1.0', info: { title: 'Auth API', version: '1.0.0' }, paths: {} };
}
