// The speech interface's request and response shapes (zod, from 'zod/v4'): its app validates with them and
// libs/api-docs writes its OpenAPI document from them.
export {};
