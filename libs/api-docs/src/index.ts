export type { ApiDocument, JsonValue } from './document';
export { speechOpenApi } from './speech';
export { contentOpenApi } from './content';
export { authOpenApi } from './auth';
export { asyncApi } from './asyncapi';
