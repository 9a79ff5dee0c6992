import type { IncomingMessage } from 'node:http';
import { deleteClient, registerClient, replaceClientMetadata } from '../admin/admin-clients';
import { AdminError } from '../admin/admin-errors';
import type { ClientDoc } from '../clients/client-model';
import { randomToken, safeEqual, sha256 } from '../crypto/secrets';
import type { Deps } from '../deps';
import { publicEndpoint } from '../oauth/dpop-at-token';
import { OAuthError } from '../oauth/oauth-error';
import { parseClientMetadata, registeredMetadata } from './client-metadata';
import {
  initialAccessTokenModel,
  isUsableInitialAccessToken,
  refundInitialAccessToken,
  spendInitialAccessToken,
} from './initial-access-tokens';
import {
  authorizeRegistration,
  bearerToken,
  invalidRegistrationToken,
  newRegistrationToken,
  rotateRegistrationToken,
} from './registration-access';
import { registrationModel, type RegistrationDoc } from './registration-model';

type RegistrationDeps = Pick<Deps, 'config' | 'redis' | 'clients' | 'refreshTokens' | 'apiKeys'>;

const registrations = (deps: RegistrationDeps) => registrationModel(deps.clients.db);

/** The client configuration endpoint of a client (RFC 7592 §1), at the issuer's origin. */
const configurationUri = (deps: RegistrationDeps, clientId: string) =>
  publicEndpoint(deps.config.PUBLIC_URL, `/register/${encodeURIComponent(clientId)}`);

/** An admin API refusal of the metadata in RFC 7591 §3.2.2's words (its description names the field first). */
function metadataRefusal(err: AdminError): OAuthError {
  return new OAuthError(
    /^(post_logout_)?redirect_uris\b/.test(err.description) ? 'invalid_redirect_uri' : 'invalid_client_metadata',
    err.description,
  );
}

function credentials(
  deps: RegistrationDeps,
  client: ClientDoc,
  token: string,
  secret?: string,
): Record<string, unknown> {
  return {
    ...(secret ? { client_secret: secret } : {}),
    // RFC 7591 §3.2.1: 0 is "never expires"; a secret is replaced by the administrator's rotation only.
    ...(client.secretHash ? { client_secret_expires_at: 0 } : {}),
    registration_access_token: token,
    registration_client_uri: configurationUri(deps, client._id),
  };
}

/**
 * `POST /register` (RFC 7591 §3.1): with an initial access token unless REGISTRATION_OPEN. The token is
 * checked before the metadata and spent only when the metadata is accepted, so a refused request costs
 * no use. The registration (its access token's hash) is stored before the client and removed when the
 * client is not: a registration without its client grants nothing (`registeredClient`), whereas a client
 * stored without its registration would be one its registrant never got credentials for and cannot
 * manage or delete.
 */
export async function registerDynamicClient(
  deps: RegistrationDeps,
  req: IncomingMessage,
  body: unknown,
): Promise<Record<string, unknown>> {
  const initial = bearerToken(req);
  const initialTokens = initialAccessTokenModel(deps.clients.db);
  if (!deps.config.REGISTRATION_OPEN) {
    if (!initial) throw invalidRegistrationToken('an initial access token is required to register a client');
    if (!(await isUsableInitialAccessToken(initialTokens, initial)))
      throw invalidRegistrationToken('the initial access token is invalid, expired or used up');
  }
  const request = parseClientMetadata(body, `dyn_${randomToken('', 12)}`);
  if (!deps.config.REGISTRATION_OPEN && !(await spendInitialAccessToken(initialTokens, initial!))) {
    throw invalidRegistrationToken('the initial access token is invalid, expired or used up');
  }
  const clientId = request.client.client_id!;
  const access = newRegistrationToken();
  let registration: RegistrationDoc;
  let registered: Awaited<ReturnType<typeof registerClient>>;
  try {
    registration = (
      await registrations(deps).create({
        _id: clientId,
        tokenHash: access.hash,
        tokenEndpointAuthMethod: request.method,
        info: request.info,
      })
    ).toObject();
    try {
      // The admin API's registration itself: its schema and every policy check beside it (keys, profiles, logout URIs).
      registered = await registerClient(deps, request.client, { tokenEndpointAuthSigningAlg: request.signingAlg });
    } catch (err) {
      await registrations(deps).deleteOne({ _id: clientId });
      throw err;
    }
  } catch (err) {
    if (!deps.config.REGISTRATION_OPEN) await refundInitialAccessToken(initialTokens, initial!);
    throw err instanceof AdminError ? metadataRefusal(err) : err;
  }
  const { secret } = registered;
  const client = (await deps.clients.findById(clientId).lean<ClientDoc>())!;
  return { ...registeredMetadata(client, registration), ...credentials(deps, client, access.token, secret) };
}

async function registeredClient(
  deps: RegistrationDeps,
  req: IncomingMessage,
  clientId: string,
): Promise<{ registration: RegistrationDoc; client: ClientDoc }> {
  const registration = await authorizeRegistration(registrations(deps), req, clientId);
  const client = await deps.clients.findById(clientId).lean<ClientDoc>();
  // Deleted by an administrator: the registration access token went with it (RFC 7592 §3).
  if (!client) throw invalidRegistrationToken('the registration access token is invalid');
  return { registration, client };
}

/**
 * `GET /register/:client_id` (RFC 7592 §2.1). The answer carries a new registration access token (the
 * one used stops working): RFC 7592 §3 requires one in every answer and only its hash is stored. The
 * client secret is not repeated: it was shown once, at registration.
 */
export async function readDynamicClient(
  deps: RegistrationDeps,
  req: IncomingMessage,
  clientId: string,
): Promise<Record<string, unknown>> {
  const { registration, client } = await registeredClient(deps, req, clientId);
  const token = await rotateRegistrationToken(registrations(deps), registration);
  return { ...registeredMetadata(client, registration), ...credentials(deps, client, token) };
}

/**
 * `PUT /register/:client_id` (RFC 7592 §2.2): the whole registration is replaced by the metadata sent
 * (an omitted optional field goes back to its default, lists become empty), checked as at registration.
 * `client_id` must be the client's, a `client_secret` sent must be its secret, and neither the
 * authentication method (the client's credentials were issued for it) nor the security profile can change. The fields the server issues (`registration_access_token`,
 * `registration_client_uri`, `client_secret_expires_at`, `client_id_issued_at`) are ignored.
 */
export async function updateDynamicClient(
  deps: RegistrationDeps,
  req: IncomingMessage,
  clientId: string,
  body: unknown,
): Promise<Record<string, unknown>> {
  const { registration, client } = await registeredClient(deps, req, clientId);
  const sent = (body && typeof body === 'object' ? body : {}) as Record<string, unknown>;
  if (sent.client_id !== clientId)
    throw new OAuthError('invalid_client_metadata', "client_id: must be the client's own client_id");
  if (
    sent.client_secret !== undefined &&
    !(
      typeof sent.client_secret === 'string' &&
      client.secretHash &&
      safeEqual(sha256(sent.client_secret), client.secretHash)
    )
  ) {
    throw new OAuthError('invalid_client_metadata', "client_secret: does not match the client's secret");
  }
  const request = parseClientMetadata(body, clientId);
  if (request.method !== registration.tokenEndpointAuthMethod)
    throw new OAuthError(
      'invalid_client_metadata',
      `token_endpoint_auth_method: cannot change (registered: ${registration.tokenEndpointAuthMethod}); register a new client`,
    );
  // The profile's rules were checked for the client's credentials at registration (and it is an administrator's to lift).
  if ((request.client.security_profile ?? null) !== (client.securityProfile ?? null)) {
    throw new OAuthError(
      'invalid_client_metadata',
      `security_profile: cannot change (registered: ${client.securityProfile ?? 'none'}); register a new client`,
    );
  }
  let doc: ClientDoc;
  try {
    // Announces the change to every replica.
    doc = await replaceClientMetadata(deps, clientId, request.client, {
      tokenEndpointAuthSigningAlg: request.signingAlg,
    });
  } catch (err) {
    if (err instanceof AdminError) throw metadataRefusal(err);
    throw err;
  }
  const updated = await registrations(deps)
    .findOneAndUpdate({ _id: clientId }, { $set: { info: request.info } }, { new: true })
    .lean<RegistrationDoc>();
  if (!updated) throw invalidRegistrationToken('the registration access token is invalid');
  const token = await rotateRegistrationToken(registrations(deps), updated);
  return { ...registeredMetadata(doc, updated), ...credentials(deps, doc, token) };
}

/**
 * `DELETE /register/:client_id` (RFC 7592 §2.3): the client goes as an administrator's deletion does
 * (every token issued to it and every API key minted through it revoked), then its registration.
 */
export async function deleteDynamicClient(
  deps: RegistrationDeps,
  req: IncomingMessage,
  clientId: string,
): Promise<void> {
  await registeredClient(deps, req, clientId);
  await deleteClient(deps, clientId);
  await registrations(deps).deleteOne({ _id: clientId });
}
