import {
  CLIENT_AUTH_METHODS,
  CLIENT_KEY_ALGS,
  HMAC_ALGS,
  clientMetadata,
  clientRegistration,
  registeredClientMetadata,
  type ClientAuthMethod,
  type ClientRegistration,
} from '@platform/contracts';
import { ADMIN_SCOPE } from '../admin/admin-scope';
import type { ClientDoc } from '../clients/client-model';
import { toPublicClient } from '../clients/clients';
import { FAPI2_SIGNING_ALGS } from '../fapi/fapi2-profile';
import { GRANT_TYPES, grantFor } from '../grants';
import { OAuthError } from '../oauth/oauth-error';
import { OPENID_SCOPE, SUPPORTED_SCOPES } from '../oauth/scopes';

/**
 * Client metadata of RFC 7591 §2 (and OpenID Connect Dynamic Client Registration 1.0 §2) checked against
 * what this server supports, then turned into the admin API's registration input (`clientRegistration`),
 * so a dynamically registered client passes the same policy as one an administrator registers
 * (redirect URIs, grant types, keys, scopes). Fields the server does not understand are ignored
 * (RFC 7591 §2); fields it understands with a value it does not support are refused.
 */

/** Stored and returned as registered, nothing more (registration-model.ts `info`). */
const INFO_FIELDS = [
  'client_uri',
  'logo_uri',
  'tos_uri',
  'policy_uri',
  'contacts',
  'software_id',
  'software_version',
  'application_type',
] as const;

/** Metadata that the client model holds under the RFC 7591 name itself (the contract's `registeredClientMetadata`). */
const CLIENT_FIELDS = Object.keys(registeredClientMetadata.shape);

/** Scopes a registration may ask for: every supported one but the administration API's. */
const REGISTRABLE_SCOPES = SUPPORTED_SCOPES.filter((scope) => scope !== ADMIN_SCOPE);

interface ClientRegistrationRequest {
  /** The admin API's input for the client (clients/clients.ts `createClient`). */
  client: ClientRegistration & Record<string, unknown>;
  method: ClientAuthMethod;
  signingAlg: string | null;
  info: Record<string, unknown>;
}

const invalidMetadata = (description: string) => new OAuthError('invalid_client_metadata', description);
const invalidRedirect = (description: string) => new OAuthError('invalid_redirect_uri', description);

/** A zod issue, of the contract's schemas (zod/v4) and of this file's. */
interface ZodIssueLike {
  path: readonly PropertyKey[];
  message: string;
}

/** Names a zod failure by its field under the RFC 7591 name, never echoing the value. */
function metadataError(err: { issues: readonly ZodIssueLike[] }, rename: Record<string, string> = {}): OAuthError {
  const issue = err.issues[0];
  const top = String(issue?.path[0] ?? 'body');
  const field = [rename[top] ?? top, ...(issue?.path.slice(1) ?? [])].map(String).join('.');
  const description = `${field}: ${issue?.message ?? 'invalid'}`;
  return top === 'redirect_uris' || top === 'post_logout_redirect_uris'
    ? invalidRedirect(description)
    : invalidMetadata(description);
}

/**
 * The registration request (`POST /register`, or `PUT` of the client configuration endpoint, which
 * replaces the whole registration: RFC 7592 §2.2) as the client model's input, or the RFC 7591 §3.2.2
 * error saying what the server does not accept.
 */
export function parseClientMetadata(body: unknown, clientId: string): ClientRegistrationRequest {
  if (!body || typeof body !== 'object' || Array.isArray(body))
    throw invalidMetadata('the body must be a JSON object of client metadata');
  const raw = body as Record<string, unknown>;
  const parsed = clientMetadata.safeParse(raw);
  if (!parsed.success) throw metadataError(parsed.error);
  const meta = parsed.data;
  // Decision (docs/decisions.md): no software statements. This server trusts no statement issuer, and
  // registering without the statement's assertions would give the client less than it asked to prove.
  if (meta.software_statement !== undefined)
    throw new OAuthError(
      'invalid_software_statement',
      'software statements are not accepted; register the metadata itself',
    );

  const method = (meta.token_endpoint_auth_method ?? 'client_secret_basic') as ClientAuthMethod;
  if (!(CLIENT_AUTH_METHODS as readonly string[]).includes(method))
    throw invalidMetadata(`token_endpoint_auth_method: one of ${CLIENT_AUTH_METHODS.join(', ')}`);

  const grants = meta.grant_types ?? ['authorization_code'];
  const unsupported = grants.find((grant) => !(GRANT_TYPES as readonly string[]).includes(grant));
  if (unsupported !== undefined) throw invalidMetadata(`grant_types: ${unsupported} is not supported`);
  if (method === 'none') {
    const confidentialOnly = grants.find((grant) => grantFor(grant)?.clients === 'confidential');
    if (confidentialOnly)
      throw invalidMetadata(
        `grant_types: ${confidentialOnly} needs a client that authenticates (token_endpoint_auth_method other than none)`,
      );
  }
  // RFC 7591 §2.1: response types and grant types must agree; `code` is the only response type served.
  const usesCode = grants.includes('authorization_code');
  const responseTypes = meta.response_types ?? (usesCode ? ['code'] : []);
  if (responseTypes.some((type) => type !== 'code')) throw invalidMetadata('response_types: only code is supported');
  if (responseTypes.includes('code') !== usesCode)
    throw invalidMetadata('response_types: code goes with the authorization_code grant type, and only with it');
  if (usesCode && !meta.redirect_uris?.length)
    throw invalidRedirect('redirect_uris: the authorization_code grant needs at least one');

  const alg = meta.token_endpoint_auth_signing_alg;
  if (alg !== undefined) {
    const family: readonly string[] =
      method === 'client_secret_jwt' ? HMAC_ALGS : method === 'private_key_jwt' ? CLIENT_KEY_ALGS : [];
    if (!family.includes(alg))
      throw invalidMetadata(
        `token_endpoint_auth_signing_alg: ${family.length ? `one of ${family.join(', ')} with ${method}` : `only with client_secret_jwt or private_key_jwt`}`,
      );
  }
  if (raw.jwks !== undefined && raw.jwks_uri !== undefined)
    throw invalidMetadata('jwks and jwks_uri: give one of them, not both (RFC 7591 §2)');
  if (
    method === 'private_key_jwt' &&
    raw.jwks === undefined &&
    !(raw.jwks_uri !== undefined && CLIENT_FIELDS.includes('jwks_uri'))
  ) {
    throw invalidMetadata("private_key_jwt needs the client's public keys: jwks");
  }

  // The FAPI 2.0 profile (fapi/fapi2-profile.ts) in this interface's terms; the admin API's checks follow.
  if (raw.security_profile === 'fapi2') {
    if (method !== 'private_key_jwt')
      throw invalidMetadata('security_profile fapi2: token_endpoint_auth_method must be private_key_jwt');
    if (alg !== undefined && !FAPI2_SIGNING_ALGS.includes(alg))
      throw invalidMetadata(
        `token_endpoint_auth_signing_alg: one of ${FAPI2_SIGNING_ALGS.join(', ')} with security_profile fapi2`,
      );
  }

  const scopes = meta.scope === undefined ? [OPENID_SCOPE] : meta.scope.split(' ').filter(Boolean);
  const unknownScope = scopes.find((scope) => !REGISTRABLE_SCOPES.includes(scope));
  if (unknownScope !== undefined)
    throw invalidMetadata(`scope: ${unknownScope} cannot be registered (registrable: ${REGISTRABLE_SCOPES.join(' ')})`);

  const client: ClientRegistration & Record<string, unknown> = {
    client_id: clientId,
    name: meta.client_name ?? clientId,
    type: method === 'none' ? 'public' : 'confidential',
    grant_types: grants as ClientRegistration['grant_types'],
    redirect_uris: meta.redirect_uris ?? [],
    scopes,
    // A client that authenticates with its keys alone has no secret to leak.
    secret: method !== 'none' && method !== 'private_key_jwt',
  };
  for (const name of CLIENT_FIELDS) if (raw[name] !== undefined) client[name] = raw[name];
  // The admin API's policy, field for field (clients/clients.ts), answered in RFC 7591's words.
  const checked = clientRegistration.strict().safeParse(client);
  if (!checked.success) throw metadataError(checked.error, { name: 'client_name', scopes: 'scope' });

  const info: Record<string, unknown> = {};
  for (const name of INFO_FIELDS) if (meta[name] !== undefined) info[name] = meta[name];
  return { client, method, signingAlg: alg ?? null, info };
}

/** The registered metadata (RFC 7591 §3.2.1), as stored: what `POST`, `GET` and `PUT` answer besides the credentials. */
export function registeredMetadata(
  client: ClientDoc,
  registration: { tokenEndpointAuthMethod: ClientAuthMethod; info: Record<string, unknown> },
): Record<string, unknown> {
  const published = toPublicClient(client) as unknown as Record<string, unknown>;
  const fields: Record<string, unknown> = {};
  for (const name of CLIENT_FIELDS)
    if (name !== 'jwks' && published[name] !== undefined) fields[name] = published[name];
  return {
    client_id: client._id,
    client_id_issued_at: Math.floor(new Date(client.createdAt).getTime() / 1000),
    client_name: client.name,
    redirect_uris: client.redirectUris,
    grant_types: client.grantTypes,
    response_types: client.grantTypes.includes('authorization_code') ? ['code'] : [],
    token_endpoint_auth_method: registration.tokenEndpointAuthMethod,
    ...(client.tokenEndpointAuthSigningAlg
      ? { token_endpoint_auth_signing_alg: client.tokenEndpointAuthSigningAlg }
      : {}),
    scope: client.scopes.join(' '),
    ...(client.jwks ? { jwks: client.jwks } : {}),
    ...fields,
    ...registration.info,
  };
}
