import type { IncomingMessage } from 'node:http';
import { decodeJwt, decodeProtectedHeader, jwtVerify } from 'jose';
import { OAuthError } from '../oauth/oauth-error';
import { redisReplayCache } from '@platform/oauth-resource';
import { safeEqual, sha256 } from '../crypto/secrets';
import type { Deps } from '../deps';
import { checkFapi2ClientAuth, fapi2AssertionProblem, isFapi2 } from '../fapi/fapi2-profile';
import { publicEndpoint } from '../oauth/dpop-at-token';
import { formParams, type Params } from '../oauth/params';
import {
  CLIENT_ASSERTION_TYPE,
  CLIENT_KEY_ALGS,
  HMAC_ALGS,
  clientAuthentication,
  type ClientAuthMethod,
} from '@platform/contracts';
import { clientKeys } from './client-keys';
import type { ClientDoc } from './client-model';
import { clientSecretSealer, findClient } from './clients';

export interface AuthenticatedClient {
  client: ClientDoc;
  method: ClientAuthMethod;
}

function invalidClient(description: string): OAuthError {
  return new OAuthError('invalid_client', description, 401, {
    'WWW-Authenticate': 'Basic realm="auth", charset="UTF-8"',
  });
}

function basicCredentials(header: string | undefined): { id: string; secret: string } | undefined {
  if (!header || !/^basic /i.test(header)) return undefined;
  const decoded = Buffer.from(header.slice(6).trim(), 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) throw invalidClient('malformed Basic credentials');
  try {
    // RFC 6749 §2.3.1: both parts are form-urlencoded before base64.
    return {
      id: decodeURIComponent(decoded.slice(0, colon).replace(/\+/g, ' ')),
      secret: decodeURIComponent(decoded.slice(colon + 1).replace(/\+/g, ' ')),
    };
  } catch {
    throw invalidClient('malformed Basic credentials');
  }
}

/**
 * Client authentication at /token, /revoke, /introspect and /device_authorization (RFC 6749 §2.3,
 * RFC 7523 §2.2). Exactly one method per request; `allowNone` admits public clients by client_id.
 */
export async function authenticateClient(
  deps: Deps,
  req: IncomingMessage,
  params: Params,
  endpointPath: string,
  allowNone = true,
): Promise<AuthenticatedClient> {
  const authenticated = await identifyClient(deps, req, params, endpointPath, allowNone);
  checkFapi2ClientAuth(authenticated.client, authenticated.method, invalidClient);
  return authenticated;
}

async function identifyClient(
  deps: Deps,
  req: IncomingMessage,
  params: Params,
  endpointPath: string,
  allowNone: boolean,
): Promise<AuthenticatedClient> {
  const basic = basicCredentials(typeof req.headers.authorization === 'string' ? req.headers.authorization : undefined);
  const {
    client_id: bodyId,
    client_secret: bodySecret,
    client_assertion_type: assertionType,
    client_assertion: assertion,
  } = formParams(clientAuthentication, params);
  const methods = [basic, bodySecret, assertion ?? assertionType].filter((m) => m !== undefined).length;
  if (methods > 1) throw new OAuthError('invalid_request', 'use exactly one client authentication method');

  if (basic) {
    if (bodyId !== undefined && bodyId !== basic.id)
      throw new OAuthError('invalid_request', 'client_id does not match the Basic credentials');
    return { client: await checkSecret(deps, basic.id, basic.secret), method: 'client_secret_basic' };
  }
  if (bodySecret !== undefined) {
    if (!bodyId) throw invalidClient('client_id is required with client_secret');
    return { client: await checkSecret(deps, bodyId, bodySecret), method: 'client_secret_post' };
  }
  if (assertion !== undefined || assertionType !== undefined) {
    if (assertionType !== CLIENT_ASSERTION_TYPE || !assertion)
      throw invalidClient('client_assertion_type must be jwt-bearer with a client_assertion');
    return checkAssertion(deps, assertion, bodyId, endpointPath);
  }
  if (!bodyId) throw invalidClient('client authentication is required');
  const client = await findClient(deps.clients, bodyId);
  if (!client) throw invalidClient('unknown client');
  if (client.type !== 'public' || !allowNone) throw invalidClient('this client must authenticate');
  return { client, method: 'none' };
}

async function checkSecret(deps: Deps, clientId: string, secret: string): Promise<ClientDoc> {
  const client = await findClient(deps.clients, clientId);
  // Compare even for unknown clients so timing does not tell which client ids exist.
  const ok = safeEqual(sha256(secret), client?.secretHash ?? sha256('no-such-client'));
  if (!client || !client.secretHash || !ok) throw invalidClient('client authentication failed');
  return client;
}

async function checkAssertion(
  deps: Deps,
  assertion: string,
  bodyId: string | undefined,
  endpointPath: string,
): Promise<AuthenticatedClient> {
  let iss: unknown;
  let alg: unknown;
  try {
    iss = decodeJwt(assertion).iss;
    alg = decodeProtectedHeader(assertion).alg;
  } catch {
    throw invalidClient('client_assertion is not a JWT');
  }
  if (typeof iss !== 'string' || (bodyId !== undefined && bodyId !== iss))
    throw invalidClient('client_assertion iss must be the client_id');
  const client = await findClient(deps.clients, iss);
  if (!client) throw invalidClient('unknown client');
  // OpenID Connect Registration §2 `token_endpoint_auth_signing_alg`: when registered, the only alg accepted, at every endpoint.
  if (client.tokenEndpointAuthSigningAlg && alg !== client.tokenEndpointAuthSigningAlg) {
    throw invalidClient(
      `client_assertion must be signed with ${client.tokenEndpointAuthSigningAlg} (the client's token_endpoint_auth_signing_alg)`,
    );
  }
  const issuer = deps.config.PUBLIC_URL;
  const audience = [
    issuer,
    issuer.replace(/\/+$/, ''),
    publicEndpoint(issuer, '/token'),
    publicEndpoint(issuer, endpointPath),
  ];
  const verify = {
    issuer: client._id,
    subject: client._id,
    audience,
    requiredClaims: ['exp', 'jti'],
    clockTolerance: 5,
  };
  let method: ClientAuthMethod;
  let payload: Record<string, unknown>;
  try {
    if (typeof alg === 'string' && (HMAC_ALGS as readonly string[]).includes(alg)) {
      if (!client.secretSealed) throw new Error('client has no secret');
      method = 'client_secret_jwt';
      const key = new TextEncoder().encode(clientSecretSealer(deps.config.INTERNAL_SECRET).open(client.secretSealed));
      ({ payload } = await jwtVerify(assertion, key, { ...verify, algorithms: [...HMAC_ALGS] }));
    } else {
      // `jwks`, or the `jwks_uri` fetched within the SSRF bounds and cached (client-keys.ts).
      const keys = clientKeys(deps, client);
      if (!keys) throw new Error('client has no keys');
      method = 'private_key_jwt';
      ({ payload } = await jwtVerify(assertion, keys, { ...verify, algorithms: [...CLIENT_KEY_ALGS] }));
    }
  } catch {
    throw invalidClient('client_assertion is invalid');
  }
  if (isFapi2(client)) {
    const problem = fapi2AssertionProblem(alg, payload.aud, issuer);
    if (problem) throw invalidClient(problem);
  }
  const now = Math.floor(Date.now() / 1000);
  const exp = payload.exp as number;
  if (exp - now > 600) throw invalidClient('client_assertion lives too long (10 minutes at most)');
  const jti = String(payload.jti);
  if (
    jti.length > 256 ||
    !(await redisReplayCache(deps.redis, 'auth:client-assertion-jti:').firstUse(`${client._id}:${jti}`, exp - now + 10))
  ) {
    throw invalidClient('client_assertion was already used');
  }
  return { client, method };
}
