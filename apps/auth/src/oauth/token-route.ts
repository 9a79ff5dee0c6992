import type { ServerResponse } from 'node:http';
import { Router } from 'express';
import { redisNonceStore } from '@platform/oauth-resource';
import { authenticateClient, type AuthenticatedClient } from '../clients/client-auth';
import type { Deps } from '../deps';
import { grantFor } from '../grants';
import type { GrantDescriptor } from '../grants/grant-descriptor';
import { checkFapi2TokenRequest } from '../fapi/fapi2-profile';
import { checkClientMayUse, grantTokens } from '../grants/grant-steps';
import type { FormRequest } from '../http/form-body';
import { sendNoStoreJson } from '../http/no-store-json';
import { dpopProofAt } from './dpop-at-token';
import { countTokenIssued } from './oauth-metrics';
import { OAuthError } from './oauth-error';
import { formBody, paramsOf, required, type Params } from './params';

/** `POST /token` as an express router (the HTTP server's fast lane serves the same endpoint, see main.ts). */
export function tokenRoute(deps: Deps): Router {
  const router = Router();
  const endpoint = tokenEndpoint(deps);
  router.post('/token', formBody(), (req, res) => endpoint(req, res));
  return router;
}

/** `POST /token` once the form body is read: the grant's descriptor, client authentication, DPoP proof, then the grant's handler. */
export function tokenEndpoint(deps: Deps): (req: FormRequest, res: ServerResponse) => Promise<void> {
  const tokens = grantTokens(deps);
  return async (req, res) => {
    const params = paramsOf(req.body);
    const grantType = required(params, 'grant_type', 200);
    const grant = grantFor(grantType);
    if (!grant) throw new OAuthError('unsupported_grant_type', `grant_type ${grantType} is not supported`);
    const jkt = await dpopProofAt(deps, req, '/token');
    const { client, method } = await clientOf(deps, req, params, grant);
    checkClientMayUse(grant, client);
    checkFapi2TokenRequest(client, req, jkt);
    const response = await grant.handler({
      deps,
      req,
      params,
      client,
      method,
      ...(jkt ? { jkt } : {}),
      issues: grant.issues,
      tokens,
    });
    const headers: Record<string, string> = { Pragma: 'no-cache' };
    if (deps.config.DPOP_REQUIRE_NONCE) headers['DPoP-Nonce'] = await redisNonceStore(deps.redis).issue();
    sendNoStoreJson(res, 200, response, headers);
    countTokenIssued(grantType);
  };
}

/** The authenticated client, or the grant's stand-in when it admits requests without client authentication and this one has none. */
async function clientOf(
  deps: Deps,
  req: FormRequest,
  params: Params,
  grant: GrantDescriptor,
): Promise<AuthenticatedClient> {
  const unauthenticated =
    !req.headers.authorization && params.client_id === undefined && params.client_assertion === undefined;
  if (grant.unauthenticatedClient && unauthenticated)
    return { client: grant.unauthenticatedClient(deps), method: 'none' };
  return authenticateClient(deps, req, params, '/token');
}
