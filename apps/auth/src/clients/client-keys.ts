import { createLocalJWKSet, errors, type JSONWebKeySet, type JWTVerifyGetKey } from 'jose';
import type { Deps } from '../deps';
import { fetchJsonWithin, OutboundFetchError } from '../http/outbound-fetch';
import type { ClientDoc } from './client-model';

/** An unknown `kid` refetches a `jwks_uri` at most this often (a client rotating its keys), whatever the cache lifetime. */
const REFETCH_COOLDOWN_MS = 30_000;
const CACHE_MAX = 1000;
const fetched = new Map<string, { at: number; keys: JSONWebKeySet }>();

type KeyDeps = Pick<Deps, 'config'>;

async function fetchKeySet(deps: KeyDeps, uri: string): Promise<JSONWebKeySet> {
  const doc = await fetchJsonWithin(uri, {
    allowPrivate: deps.config.CLIENT_JWKS_URI_ALLOW_PRIVATE,
    timeoutMs: deps.config.CLIENT_JWKS_URI_TIMEOUT_MS,
    maxBytes: deps.config.CLIENT_JWKS_URI_MAX_BYTES,
  });
  const keys = (doc as { keys?: unknown } | null)?.keys;
  if (
    !Array.isArray(keys) ||
    keys.length === 0 ||
    keys.length > 100 ||
    !keys.every((k) => k !== null && typeof k === 'object' && !Array.isArray(k))
  ) {
    throw new OutboundFetchError('the jwks_uri answer is not a JSON Web Key Set');
  }
  const set = { keys } as JSONWebKeySet;
  if (fetched.size >= CACHE_MAX) fetched.delete(fetched.keys().next().value!);
  fetched.set(uri, { at: Date.now(), keys: set });
  return set;
}

async function keySetAt(deps: KeyDeps, uri: string): Promise<JSONWebKeySet> {
  const hit = fetched.get(uri);
  if (hit && Date.now() - hit.at < deps.config.CLIENT_JWKS_URI_CACHE_SECONDS * 1000) return hit.keys;
  return fetchKeySet(deps, uri);
}

/**
 * The keys a client registered, as a jose key getter: `jwks`, or its `jwks_uri` fetched within the
 * OutboundLimits (http/outbound-fetch.ts) and cached per replica for CLIENT_JWKS_URI_CACHE_SECONDS; a
 * `kid` the cached set lacks fetches again (at most every 30 s), so a client's key rotation is seen
 * without waiting for the cache. Undefined when the client has no keys. A fetch failure throws
 * OutboundFetchError from the getter.
 */
export function clientKeys(deps: KeyDeps, client: ClientDoc): JWTVerifyGetKey | undefined {
  if (client.jwks) return createLocalJWKSet(client.jwks as unknown as JSONWebKeySet);
  const uri = client.jwksUri;
  if (!uri) return undefined;
  return async (header, token) => {
    try {
      return await createLocalJWKSet(await keySetAt(deps, uri))(header, token);
    } catch (err) {
      const last = fetched.get(uri)?.at ?? 0;
      if (!(err instanceof errors.JWKSNoMatchingKey) || Date.now() - last < REFETCH_COOLDOWN_MS) throw err;
      return createLocalJWKSet(await fetchKeySet(deps, uri))(header, token);
    }
  };
}
