/**
 * Every public contract, declared once: each interface's request and response shapes as zod schemas. The apps
 * validate requests with them; libs/api-docs turns them into the OpenAPI documents (`jsonSchemaOf`).
 */
export { jsonSchemaOf, type JsonSchema } from './json-schema';
export * from './speech';
export * from './content';
export * from './auth';
