import type { z } from 'zod/v4';
import { clientPatch, clientRegistration, type ClientRegistration } from '@platform/contracts';
import { randomToken, sha256 } from '../crypto/secrets';
import type { ClientDoc } from '../clients/client-model';
import { announceClientChange } from '../clients/client-changes';
import {
  clientSecretSealer,
  createClient,
  registeredClientFields,
  toPublicClient,
  type PublicClient,
} from '../clients/clients';
import type { Deps } from '../deps';
import { backchannelRegistrationProblem, backchannelUpdate } from '../backchannel-logout/client-metadata';
import { fapi2RegistrationProblem } from '../fapi/fapi2-profile';
import { isClientGone, revokeClientTokens } from '../tokens/client-token-tracking';
import { conflict, invalidInput, invalidRequest, notFound } from './admin-errors';
import { toPage, type Page, type PageRequest } from './paging';

type ClientDeps = Pick<Deps, 'config' | 'redis' | 'clients' | 'refreshTokens' | 'apiKeys'>;

/** A whole registration input checked against the policy beside its schema (profile, logout URI, keys); the parsed input. */
function checkedRegistration(deps: ClientDeps, raw: unknown): z.output<typeof clientRegistration> {
  const parsed = clientRegistration.strict().safeParse(raw);
  if (!parsed.success) throw invalidInput(parsed.error);
  const profileProblem = fapi2RegistrationProblem(parsed.data);
  if (profileProblem) throw invalidRequest(profileProblem);
  const logoutProblem = backchannelRegistrationProblem(parsed.data, deps.config.BACKCHANNEL_LOGOUT_ALLOW_PRIVATE);
  if (logoutProblem) throw invalidRequest(logoutProblem);
  if (parsed.data.jwks && parsed.data.jwks_uri)
    throw invalidRequest('jwks_uri: give jwks or jwks_uri, not both (RFC 7591 §2)');
  return parsed.data;
}

export async function registerClient(
  deps: ClientDeps,
  raw: unknown,
  stored: Pick<ClientDoc, 'tokenEndpointAuthSigningAlg'> = {},
): Promise<{ client: PublicClient; secret?: string }> {
  const id = checkedRegistration(deps, raw).client_id;
  if (id !== undefined) {
    if (await deps.clients.exists({ _id: id })) throw conflict('a client with this client_id exists');
    // Its tokens are being revoked: a new registration under the same id would be refused tokens too.
    if (await isClientGone(deps.redis, id))
      throw conflict('a client with this client_id was deleted recently; choose another id or wait ACCESS_TOKEN_TTL');
  }
  const { client, secret } = await createClient(
    deps.clients,
    deps.config.INTERNAL_SECRET,
    raw as ClientRegistration,
    deps.config.PUBLIC_URL,
    stored,
  );
  return { client: toPublicClient(client), ...(secret ? { secret } : {}) };
}

/**
 * Replaces the client's own metadata with a whole registration input, checked as at registration: an
 * omitted optional field goes back to its default (RFC 7592 §2.2, dynamic registration's PUT). Type,
 * credentials, resources, token exchange and security profile stay as they are (the caller refuses a
 * change of them).
 */
export async function replaceClientMetadata(
  deps: ClientDeps,
  id: string,
  raw: unknown,
  stored: Pick<ClientDoc, 'tokenEndpointAuthSigningAlg'>,
): Promise<ClientDoc> {
  refusePlatformClient(deps, id);
  const input = checkedRegistration(deps, raw);
  const set: Partial<ClientDoc> = {
    ...registeredClientFields(input),
    tokenEndpointAuthSigningAlg: stored.tokenEndpointAuthSigningAlg ?? null,
  };
  const doc = await deps.clients.findOneAndUpdate({ _id: id }, { $set: set }, { new: true }).lean<ClientDoc>();
  if (!doc) throw notFound('client');
  await announceClientChange(deps.redis, deps.clients, id);
  return doc;
}

export async function getClient(deps: ClientDeps, id: string): Promise<PublicClient> {
  const doc = await deps.clients.findById(id).lean<ClientDoc>();
  if (!doc) throw notFound('client');
  return toPublicClient(doc);
}

/** In client_id order. */
export async function listClientsPage(deps: ClientDeps, page: PageRequest): Promise<Page<PublicClient>> {
  const rows = await deps.clients
    .find(page.after ? { _id: { $gt: page.after } } : {})
    .sort({ _id: 1 })
    .limit(page.limit + 1)
    .lean<ClientDoc[]>();
  return toPage(rows, page.limit, (r) => r._id, toPublicClient);
}

/**
 * The platform's own page clients (the playground's, the queue dashboard's and the API reference's) are written again from
 * PUBLIC_URL at every boot: a change through this API would last until the next boot, and a deletion would
 * lock their client_id for ACCESS_TOKEN_TTL (tokens being issued to a deleted id revoke themselves), so the
 * pages could not sign anyone in until then. They are turned off by configuration instead.
 */
function refusePlatformClient(deps: ClientDeps, id: string): void {
  const owned = [
    ['PLAYGROUND_CLIENT_ID', deps.config.PLAYGROUND_CLIENT_ID],
    ['QUEUE_DASHBOARD_CLIENT_ID', deps.config.QUEUE_DASHBOARD_CLIENT_ID],
    ['API_REFERENCE_CLIENT_ID', deps.config.API_REFERENCE_CLIENT_ID],
  ].find(([, value]) => value !== '' && value === id);
  if (owned)
    throw conflict(
      `the client ${id} is registered by the platform at every boot; set ${owned[0]} to an empty value to turn it off`,
    );
}

/** Applies a patch; returns the client and the fields changed (their new values, for the audit log). */
export async function updateClient(
  deps: ClientDeps,
  id: string,
  raw: unknown,
): Promise<{ client: PublicClient; changes: Record<string, unknown> }> {
  refusePlatformClient(deps, id);
  const parsed = clientPatch.safeParse(raw);
  if (!parsed.success) throw invalidInput(parsed.error);
  const patch = parsed.data;
  const set: Partial<ClientDoc> = {};
  if (patch.name !== undefined) set.name = patch.name;
  if (patch.grant_types !== undefined) set.grantTypes = patch.grant_types;
  if (patch.redirect_uris !== undefined) set.redirectUris = patch.redirect_uris;
  if (patch.post_logout_redirect_uris !== undefined) set.postLogoutRedirectUris = patch.post_logout_redirect_uris;
  if (patch.scopes !== undefined) set.scopes = patch.scopes;
  if (patch.resources !== undefined) set.resources = patch.resources;
  if (patch.jwks_uri !== undefined) {
    if ((await deps.clients.findById(id).lean<ClientDoc>())?.jwks)
      throw invalidRequest('jwks_uri: the client has jwks; give jwks or jwks_uri, not both (RFC 7591 §2)');
    set.jwksUri = patch.jwks_uri;
  }
  if (patch.request_object_signing_alg !== undefined) set.requestObjectSigningAlg = patch.request_object_signing_alg;
  if (patch.require_pushed_authorization_requests !== undefined)
    set.requirePushedAuthorizationRequests = patch.require_pushed_authorization_requests;
  if (patch.require_signed_request_object !== undefined)
    set.requireSignedRequestObject = patch.require_signed_request_object;
  const logoutProblem = backchannelRegistrationProblem(patch, deps.config.BACKCHANNEL_LOGOUT_ALLOW_PRIVATE);
  if (logoutProblem) throw invalidRequest(logoutProblem);
  Object.assign(set, backchannelUpdate(patch));
  if (patch.token_exchange !== undefined)
    set.tokenExchange = patch.token_exchange.allowed_clients.length
      ? { allowedClients: patch.token_exchange.allowed_clients }
      : null;
  const doc = await deps.clients.findOneAndUpdate({ _id: id }, { $set: set }, { new: true }).lean<ClientDoc>();
  if (!doc) throw notFound('client');
  await announceClientChange(deps.redis, deps.clients, id);
  return { client: toPublicClient(doc), changes: patch };
}

/**
 * A new secret for a confidential client, returned once. The old one stops working at once on every
 * replica (the change is announced: client-changes.ts). No grace period: a rotation is usually done
 * because the old secret leaked; a client is given the new secret before the rotation counts as done.
 */
export async function rotateClientSecret(
  deps: ClientDeps,
  id: string,
): Promise<{ client_id: string; client_secret: string }> {
  const doc = await deps.clients.findById(id).lean<ClientDoc>();
  if (!doc) throw notFound('client');
  if (doc.type !== 'confidential') throw conflict('a public client has no secret');
  const secret = randomToken('cs_');
  await deps.clients.updateOne(
    { _id: id },
    {
      $set: { secretHash: sha256(secret), secretSealed: clientSecretSealer(deps.config.INTERNAL_SECRET).seal(secret) },
    },
  );
  await announceClientChange(deps.redis, deps.clients, id);
  return { client_id: id, client_secret: secret };
}

/** Deletes a registration and revokes every token issued to it and every API key minted through it (tokens/client-token-tracking.ts). */
export async function deleteClient(deps: ClientDeps, id: string): Promise<{ revoked_access_tokens: number }> {
  refusePlatformClient(deps, id);
  const removed = await deps.clients.findOneAndDelete({ _id: id }).lean<ClientDoc>();
  if (!removed) throw notFound('client');
  await announceClientChange(deps.redis, deps.clients, id);
  return { revoked_access_tokens: await revokeClientTokens(deps, id) };
}
