/**
 * The JSON shape every published document shares. The documents are plain data built in TypeScript, so the
 * gateway serves them, tests validate responses against them, and client types are generated from them.
 */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };
export type ApiDocument = { [key: string]: JsonValue };
