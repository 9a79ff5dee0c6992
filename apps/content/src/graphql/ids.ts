import { fromGlobalId, type NodeType } from '@platform/graphql-schema';

/**
 * GraphQL ids are global ids (base64url "Type:localId"). Arguments also accept the local id
 * (REST post id "42", account id) so REST and GraphQL clients can use the ids they have.
 * Returns null for ids that cannot name an entity of `type`.
 */
export function localId(id: string, type: NodeType): string | null {
  const global = fromGlobalId(id);
  if (global) return global.type === type ? global.localId : null;
  if (typeof id !== 'string' || id.length === 0 || id.length > 100) return null;
  return id;
}

export function localNumericId(id: string, type: 'Post' | 'Comment'): number | null {
  const local = localId(id, type);
  if (local === null || !/^[1-9]\d{0,14}$/.test(local)) return null;
  return Number(local);
}
