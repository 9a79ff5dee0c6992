import type { ServerResponse } from 'node:http';
import { Router } from 'express';
import { OAuthError } from '@platform/errors';
import { authenticateClient } from '../clients/client-auth';
import type { GrantType } from '../clients/client-model';
import type { Deps } from '../deps';
import { authorizationCodeGrant } from '../grants/authorization-code';
import { clientCredentialsGrant } from '../grants/client-credentials';
import { deviceCodeGrant } from '../grants/device-code';
import type { GrantHandler } from '../grants/grant-context';
import { jwtBearerGrant } from '../grants/jwt-bearer';
import { refreshTokenGrant } from '../grants/refresh-token';
import { tokenExchangeGrant } from '../grants/token-exchange';
import { redisNonceStore } from '@platform/oauth-resource';
import { sendNoStoreJson } from '../http/no-store-json';
import { dpopProofAt } from './dpop-at-token';
import type { FormRequest } from '../http/form-body';
import { formBody, paramsOf, required } from './params';

export const GRANTS: Record<GrantType, GrantHandler> = {
  authorization_code: authorizationCodeGrant,
  client_credentials: clientCredentialsGrant,
  refresh_token: refreshTokenGrant,
  'urn:ietf:params:oauth:grant-type:device_code': deviceCodeGrant,
  'urn:ietf:params:oauth:grant-type:jwt-bearer': jwtBearerGrant,
  'urn:ietf:params:oauth:grant-type:token-exchange': tokenExchangeGrant,
};

/** `POST /token` as an express router (the HTTP server's fast lane serves the same endpoint, see main.ts). */
export function tokenRoute(deps: Deps): Router {
  const router = Router();
  const endpoint = tokenEndpoint(deps);
  router.post('/token', formBody(), (req, res) => endpoint(req, res));
  return router;
}

/** `POST /token` once the form body is read: client authentication, DPoP proof, then the grant's own module. */
export function tokenEndpoint(deps: Deps): (req: FormRequest, res: ServerResponse) => Promise<void> {
  return async (req, res) => {
    const params = paramsOf(req.body);
    const grantType = required(params, 'grant_type', 200);
    const grant = GRANTS[grantType as GrantType] as GrantHandler | undefined;
    if (!grant) throw new OAuthError('unsupported_grant_type', `grant_type ${grantType} is not supported`);
    // RFC 7523: the jwt-bearer grant may come without client authentication.
    const anonymousAllowed = grantType === 'urn:ietf:params:oauth:grant-type:jwt-bearer' && !req.headers.authorization && params.client_id === undefined && params.client_assertion === undefined;
    const jkt = await dpopProofAt(deps, req, '/token');
    let response;
    if (anonymousAllowed) {
      response = await grant({ deps, req, params, client: anonymousAssertionClient(deps), method: 'none', ...(jkt ? { jkt } : {}) });
    } else {
      const { client, method } = await authenticateClient(deps, req, params, '/token');
      if (!client.grantTypes.includes(grantType as GrantType)) throw new OAuthError('unauthorized_client', `this client may not use ${grantType}`);
      response = await grant({ deps, req, params, client, method, ...(jkt ? { jkt } : {}) });
    }
    const headers: Record<string, string> = { Pragma: 'no-cache' };
    if (deps.config.DPOP_REQUIRE_NONCE) headers['DPoP-Nonce'] = await redisNonceStore(deps.redis).issue();
    sendNoStoreJson(res, 200, response, headers);
  };
}

/**
 * Stand-in client for jwt-bearer requests without client authentication: the assertion's issuer is
 * trusted for its configured scopes, the audience is the platform.
 */
function anonymousAssertionClient(deps: Deps) {
  return {
    _id: 'jwt-bearer',
    name: 'trusted assertion issuer',
    type: 'public' as const,
    grantTypes: ['urn:ietf:params:oauth:grant-type:jwt-bearer' as const],
    redirectUris: [],
    scopes: [...new Set(deps.config.JWT_BEARER_TRUSTED_ISSUERS.flatMap((t) => t.scopes.split(' ').filter(Boolean)))],
    resources: [deps.config.PUBLIC_URL],
    createdAt: new Date(0),
  };
}
