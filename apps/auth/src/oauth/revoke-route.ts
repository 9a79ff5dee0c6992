import { Router } from 'express';
import { countRevocation } from './oauth-metrics';
import { OAuthError } from './oauth-error';
import { API_KEY_PREFIX } from '../api-keys/api-keys';
import { revokeGrantKeys } from '../api-keys/grant-key-revocation';
import { authenticateClient } from '../clients/client-auth';
import type { Deps } from '../deps';
import { looksLikeJwt, verifyOwnAccessToken } from '../tokens/access-token';
import { findRefreshToken, revokeFamily } from '../tokens/refresh-tokens';
import { revokeAccessToken } from '../tokens/revocation';
import { tokenForm } from '@platform/contracts';
import { formBody, formParams, paramsOf } from './params';

/**
 * `POST /revoke` (RFC 7009). Unknown, expired or already revoked tokens: 200. A token of another client:
 * 400 `invalid_request` and nothing revoked. Revoking a refresh token revokes its whole family (the grant),
 * the access tokens issued with it and the API keys minted with any of them; revoking an access token
 * revokes it and the API keys it minted (the grant itself, its refresh token, lives on). Hints other than access_token/refresh_token, and API keys, get
 * `unsupported_token_type` (API keys are revoked through the account's key management).
 */
export function revokeRoute(deps: Deps): Router {
  const router = Router();
  router.post('/revoke', formBody(), async (req, res) => {
    const params = paramsOf(req.body);
    const { client } = await authenticateClient(deps, req, params, '/revoke');
    const { token, token_type_hint: hint } = formParams(tokenForm, params);
    if (hint !== undefined && hint !== 'access_token' && hint !== 'refresh_token') {
      throw new OAuthError('unsupported_token_type', `token_type_hint ${hint} cannot be revoked here`);
    }
    if (token.startsWith(API_KEY_PREFIX))
      throw new OAuthError('unsupported_token_type', 'API keys are revoked through key management, not /revoke');
    res.setHeader('Cache-Control', 'no-store');
    if (looksLikeJwt(token)) {
      const claims = await verifyOwnAccessToken(deps.keys, deps.config.PUBLIC_URL, token);
      if (claims) {
        if (claims.client_id !== client._id)
          throw new OAuthError('invalid_request', 'the token was not issued to this client');
        await revokeAccessToken(deps.redis, claims.jti, claims.exp);
        await revokeGrantKeys(deps, { tokenId: claims.jti });
      }
      res.status(200).end();
      countRevocation();
      return;
    }
    const refresh = await findRefreshToken(deps.refreshTokens, token);
    if (refresh) {
      if (refresh.clientId !== client._id)
        throw new OAuthError('invalid_request', 'the token was not issued to this client');
      await revokeFamily(deps, refresh.familyId);
    }
    res.status(200).end();
    countRevocation();
  });
  return router;
}
