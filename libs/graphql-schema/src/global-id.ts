/**
 * Relay global object ids: base64url("<Type>:<localId>"). Content and the gateway both encode
 * ids this way, so an id from a query, a mutation or a subscription event is the same string.
 */
export type NodeType = 'User' | 'Post' | 'Comment';
const TYPES: ReadonlySet<string> = new Set(['User', 'Post', 'Comment']);

export function toGlobalId(type: NodeType, localId: string | number): string {
  return Buffer.from(`${type}:${localId}`, 'utf8').toString('base64url');
}

/** Returns null for anything that is not a well-formed global id of a known type. */
export function fromGlobalId(globalId: string): { type: NodeType; localId: string } | null {
  if (typeof globalId !== 'string' || globalId.length === 0 || globalId.length > 200) return null;
  if (!/^[A-Za-z0-9_-]+={0,2}$/.test(globalId)) return null;
  const decoded = Buffer.from(globalId, 'base64url').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon <= 0) return null;
  const type = decoded.slice(0, colon);
  const localId = decoded.slice(colon + 1);
  if (!TYPES.has(type) || localId.length === 0) return null;
  return { type: type as NodeType, localId };
}
