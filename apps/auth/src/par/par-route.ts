import { Router } from 'express';
import { authenticateClient } from '../clients/client-auth';
import type { Deps } from '../deps';
import { sendNoStoreJson } from '../http/no-store-json';
import { authorizationParams } from '../oauth/authorization-params';
import { dpopProofAt } from '../oauth/dpop-at-token';
import { validateRequest } from '../oauth/authorization-request';
import { OAuthError } from '../oauth/oauth-error';
import { authorizationParam, formBody, paramsOf } from '../oauth/params';
import { pushRequest } from './pushed-requests';

/**
 * `POST /par`, the pushed authorization request endpoint (RFC 9126): the client authenticates as at
 * /token, the request (plain parameters or a signed `request` object) is validated as /authorize would,
 * and is stored for PAR_TTL seconds behind a one-time `request_uri`. Errors are JSON (RFC 9126 §2.3).
 * A DPoP proof sent with it binds the code to the proof's key, as `dpop_jkt` does (RFC 9449 §10.1).
 */
export function parRoute(deps: Deps): Router {
  const router = Router();
  router.post('/par', formBody(), async (req, res) => {
    const form = paramsOf(req.body);
    const { client } = await authenticateClient(deps, req, form, '/par');
    const jkt = await dpopProofAt(deps, req, '/par');
    const params = await authorizationParams(deps, client, form, '/par');
    if (jkt !== undefined) {
      const asked = authorizationParam(params, 'dpop_jkt');
      if (asked !== undefined && asked !== jkt)
        throw new OAuthError('invalid_dpop_proof', "dpop_jkt differs from the DPoP proof's key");
      params.dpop_jkt = jkt;
    }
    const redirectUri = authorizationParam(params, 'redirect_uri');
    if (!redirectUri || !client.redirectUris.includes(redirectUri))
      throw new OAuthError('invalid_request', 'redirect_uri is missing or not registered for this client');
    authorizationParam(params, 'state');
    validateRequest(deps, client, params, redirectUri);
    sendNoStoreJson(res, 201, await pushRequest(deps, client._id, params));
  });
  return router;
}
