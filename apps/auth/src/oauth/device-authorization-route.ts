import { Router } from 'express';
import { OAuthError } from './oauth-error';
import { authenticateClient } from '../clients/client-auth';
import type { Deps } from '../deps';
import { createDeviceAuthorization } from '../device/device-codes';
import { publicEndpoint } from './dpop-at-token';
import { deviceAuthorizationForm } from '@platform/contracts';
import { formBody, formParams, paramsOf, scopeList } from './params';
import { audienceFor, scopesFor } from './resources';

/** `POST /device_authorization` (RFC 8628 §3.1/§3.2). */
export function deviceAuthorizationRoute(deps: Deps): Router {
  const router = Router();
  router.post('/device_authorization', formBody(), async (req, res) => {
    const params = paramsOf(req.body);
    const { client } = await authenticateClient(deps, req, params, '/device_authorization');
    if (!client.grantTypes.includes('urn:ietf:params:oauth:grant-type:device_code')) {
      throw new OAuthError('unauthorized_client', 'this client may not use the device flow');
    }
    const form = formParams(deviceAuthorizationForm, params);
    const scopes = scopesFor(client.scopes, scopeList(form.scope));
    const audience = audienceFor(client, form.resource ?? [], deps.config.PUBLIC_URL);
    const { deviceCode, userCode, record } = await createDeviceAuthorization(deps, {
      clientId: client._id,
      scopes,
      audience,
    });
    const verification = publicEndpoint(deps.config.PUBLIC_URL, '/device');
    res.setHeader('Cache-Control', 'no-store');
    res.json({
      device_code: deviceCode,
      user_code: userCode,
      verification_uri: verification,
      verification_uri_complete: `${verification}?user_code=${encodeURIComponent(userCode)}`,
      expires_in: deps.config.DEVICE_CODE_TTL,
      interval: record.interval,
    });
  });
  return router;
}
