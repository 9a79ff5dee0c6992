import { Router, type Request, type Response } from 'express';
import {
  buildChallenge,
  createTokenVerifier,
  DPOP_SIGNING_ALGORITHMS,
  ResourceAuthError,
} from '@platform/oauth-resource';
import type { AccountDoc } from '../accounts/account-model';
import type { Deps } from '../deps';
import { sendNoStoreJson } from '../http/no-store-json';
import { publicEndpoint } from '../oauth/dpop-at-token';
import { OPENID_SCOPE } from '../oauth/scopes';
import { accountClaims } from './id-token';

/**
 * `GET/POST /userinfo` (OpenID Connect Core 1.0 §5.3): the account's claims for an access token
 * granted `openid`, sent as `Authorization: Bearer` or, for a DPoP-bound token, `Authorization: DPoP`
 * with a proof for this URL (RFC 9449 §7). The token is checked like any resource server checks it
 * (libs/oauth-resource: signature, issuer, `aud` = the issuer, expiry, revocation, binding), against
 * auth's own key set. Refusals are RFC 6750 §3 / RFC 9449 §7 challenges in `WWW-Authenticate`.
 */
export function userinfoRoute(deps: Deps): Router {
  const router = Router();
  const url = publicEndpoint(deps.config.PUBLIC_URL, '/userinfo');
  const verifier = createTokenVerifier({
    issuer: deps.config.PUBLIC_URL,
    jwksUrl: publicEndpoint(deps.config.PUBLIC_URL, '/jwks'),
    // The key set is this server's own: no HTTP round trip, and a rotated-out key is refused at once.
    keys: async (header) => {
      const key = typeof header.kid === 'string' ? await deps.keys.publicKey(header.kid) : undefined;
      if (!key) throw new ResourceAuthError(401, 'invalid_token', 'token is invalid', {});
      return key;
    },
    audiences: [deps.config.PUBLIC_URL],
    redis: deps.redis,
    realm: 'auth',
    verifiedTokenCacheMs: 0,
    dpop: {
      algorithms: DPOP_SIGNING_ALGORITHMS,
      iatWindowSeconds: deps.config.DPOP_IAT_WINDOW,
      requireNonce: deps.config.DPOP_REQUIRE_NONCE,
      replayPrefix: 'auth:dpop-jti:',
    },
  });

  const userinfo = async (req: Request, res: Response) => {
    let token;
    try {
      token = await verifier.verify(
        { authorization: req.headers.authorization, dpop: req.headers.dpop, method: req.method, url },
        [OPENID_SCOPE],
      );
    } catch (err) {
      if (err instanceof ResourceAuthError) return sendNoStoreJson(res, err.status, err.toBody(), err.headers);
      throw err;
    }
    // A client's own token (client_credentials) or an account gone or disabled since: nobody to describe.
    const account = token.sub === token.clientId ? null : await deps.accounts.findById(token.sub).lean<AccountDoc>();
    if (!account || account.status !== 'active') {
      const description = 'the token is not for an active account';
      return sendNoStoreJson(
        res,
        401,
        { error: 'invalid_token', error_description: description },
        {
          'WWW-Authenticate': buildChallenge({
            scheme: token.scheme,
            realm: 'auth',
            error: 'invalid_token',
            description,
            ...(token.scheme === 'DPoP' ? { algs: DPOP_SIGNING_ALGORITHMS } : {}),
          }),
        },
      );
    }
    sendNoStoreJson(res, 200, { sub: account._id, ...accountClaims(account, token.scopes) });
  };
  router.get('/userinfo', userinfo);
  router.post('/userinfo', userinfo);
  return router;
}
