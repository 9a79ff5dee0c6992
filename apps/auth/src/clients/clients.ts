import type { Model } from 'mongoose';
import type { z } from 'zod/v4';
import { clientRegistration, type ClientRegistration, type PublicClient } from '@platform/contracts';
import { randomToken, sealer, sha256 } from '../crypto/secrets';
import { fapi2RegistrationProblem } from '../fapi/fapi2-profile';
import type { ClientDoc } from './client-model';

type ClientInput = z.output<typeof clientRegistration>;

/**
 * The metadata a registration input gives the client itself, as stored: what a registration sets, and
 * what replacing the registration (RFC 7592 §2.2) sets again, an omitted optional field back to its default.
 * Identity, credentials and the administrator's policy (type, secret, resources, token exchange, profile) are not in it.
 */
export function registeredClientFields(input: ClientInput) {
  return {
    name: input.name,
    grantTypes: input.grant_types,
    redirectUris: input.redirect_uris,
    postLogoutRedirectUris: input.post_logout_redirect_uris,
    backchannelLogoutUri: input.backchannel_logout_uri ?? null,
    backchannelLogoutSessionRequired: input.backchannel_logout_session_required,
    scopes: input.scopes,
    jwks: input.jwks ?? null,
    jwksUri: input.jwks_uri ?? null,
    introspectionSignedResponseAlg: input.introspection_signed_response_alg ?? null,
    requestObjectSigningAlg: input.request_object_signing_alg ?? null,
    // FAPI 2.0 §5.3.2.2: the profile's clients push their authorization requests.
    requirePushedAuthorizationRequests:
      input.require_pushed_authorization_requests ?? input.security_profile === 'fapi2',
    requireSignedRequestObject: input.require_signed_request_object ?? false,
  } satisfies Partial<ClientDoc>;
}

/** What the admin API shows of a registration (libs/contracts, which the document describes). */
export type { PublicClient };

export function toPublicClient(doc: ClientDoc): PublicClient {
  return {
    client_id: doc._id,
    name: doc.name,
    type: doc.type,
    grant_types: doc.grantTypes,
    redirect_uris: doc.redirectUris,
    post_logout_redirect_uris: doc.postLogoutRedirectUris ?? [],
    ...(doc.backchannelLogoutUri
      ? {
          backchannel_logout_uri: doc.backchannelLogoutUri,
          backchannel_logout_session_required: doc.backchannelLogoutSessionRequired ?? false,
        }
      : {}),
    scopes: doc.scopes,
    resources: doc.resources,
    has_secret: Boolean(doc.secretHash),
    has_jwks: Boolean(doc.jwks),
    token_exchange: { allowed_clients: doc.tokenExchange?.allowedClients ?? [] },
    ...(doc.introspectionSignedResponseAlg
      ? { introspection_signed_response_alg: doc.introspectionSignedResponseAlg }
      : {}),
    ...(doc.securityProfile ? { security_profile: doc.securityProfile } : {}),
    ...(doc.jwksUri ? { jwks_uri: doc.jwksUri } : {}),
    ...(doc.requestObjectSigningAlg ? { request_object_signing_alg: doc.requestObjectSigningAlg } : {}),
    ...(doc.requirePushedAuthorizationRequests ? { require_pushed_authorization_requests: true as const } : {}),
    ...(doc.requireSignedRequestObject ? { require_signed_request_object: true as const } : {}),
    created_at: new Date(doc.createdAt).toISOString(),
  };
}

export function clientSecretSealer(internalSecret: string) {
  return sealer(internalSecret, 'client-secret-encryption');
}

/** Registers a client; the secret (when any) is returned once and stored hashed and sealed. */
export async function createClient(
  model: Model<ClientDoc>,
  internalSecret: string,
  raw: ClientRegistration,
  defaultResource: string,
  /** What only dynamic registration stores (registration/): not part of the admin API's input. */
  stored: Pick<ClientDoc, 'tokenEndpointAuthSigningAlg'> = {},
): Promise<{ client: ClientDoc; secret?: string }> {
  const input = clientRegistration.parse(raw);
  const profileProblem = fapi2RegistrationProblem(input);
  if (profileProblem) throw new Error(profileProblem);
  const secret = input.type === 'confidential' && input.secret ? randomToken('cs_') : undefined;
  const created = await model.create({
    _id: input.client_id ?? `client_${randomToken('', 9)}`,
    type: input.type,
    ...registeredClientFields(input),
    resources: input.resources.length ? input.resources : [defaultResource],
    secretHash: secret ? sha256(secret) : null,
    secretSealed: secret ? clientSecretSealer(internalSecret).seal(secret) : null,
    tokenExchange: input.token_exchange?.allowed_clients.length
      ? { allowedClients: input.token_exchange.allowed_clients }
      : null,
    securityProfile: input.security_profile ?? null,
    tokenEndpointAuthSigningAlg: stored.tokenEndpointAuthSigningAlg ?? null,
  });
  return { client: created.toObject(), ...(secret ? { secret } : {}) };
}

// Clients are read on every token/introspection request and change rarely: a short in-process cache
// takes the database off the hot path. A change through the admin API or CLI is announced to every
// replica (client-changes.ts), which drops its copy at once; the cache's lifetime bounds what a replica that
// missed the announcement (its subscription was down) may still serve.
let clientCacheMs = 30_000;
const CLIENT_CACHE_MAX = 10_000;

/** CLIENT_CACHE_SECONDS: how long a replica that missed an announcement may serve a changed client. */
export function setClientCacheLifetime(ms: number): void {
  clientCacheMs = ms;
}
const clientCache = new Map<string, { at: number; doc: ClientDoc }>();

/** The cache key of a client: its database and id (tests run several auth databases in one process). */
export function clientCacheKey(model: Model<ClientDoc>, clientId: string): string {
  return `${model.db.name}/${clientId}`;
}

export async function findClient(model: Model<ClientDoc>, clientId: string): Promise<ClientDoc | null> {
  if (clientId.length > 128) return null;
  const key = clientCacheKey(model, clientId);
  const hit = clientCache.get(key);
  if (hit && Date.now() - hit.at < clientCacheMs) return hit.doc;
  const doc = await model.findById(clientId).lean<ClientDoc>();
  if (doc) {
    if (clientCache.size >= CLIENT_CACHE_MAX) clientCache.delete(clientCache.keys().next().value!);
    clientCache.set(key, { at: Date.now(), doc });
  }
  return doc;
}

/** Drops this replica's cached copy of a client (its cache key), or every copy. */
export function forgetCachedClient(key: string | 'all'): void {
  if (key === 'all') clientCache.clear();
  else clientCache.delete(key);
}

export async function listClients(model: Model<ClientDoc>): Promise<ClientDoc[]> {
  return model.find({}).sort({ createdAt: 1 }).limit(1000).lean<ClientDoc[]>();
}
