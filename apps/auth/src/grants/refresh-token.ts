import { OAuthError } from '@platform/errors';
import type { AccountDoc } from '../accounts/account-model';
import { repeated, required, scopeParam } from '../oauth/params';
import { narrowAudience, narrowTo } from '../oauth/resources';
import { OPENID_SCOPE } from '../oauth/scopes';
import { issueIdToken } from '../oidc/id-token';
import { consumeRefreshToken, findRefreshToken, revokedDuringRotation } from '../tokens/refresh-tokens';
import { issueTokenSet, type TokenResponse } from '../tokens/issue-tokens';
import type { GrantHandler } from './grant-context';

const REASONS = {
  unknown: 'refresh token is invalid',
  expired: 'refresh token expired',
  revoked: 'refresh token was revoked',
  reused: 'refresh token was already used; its family is revoked',
  wrong_client: 'refresh token was issued to another client',
};

/** RFC 6749 §6 with rotation: every use returns a new refresh token of the same family. */
export const refreshTokenGrant: GrantHandler = async (ctx) => {
  const { deps } = ctx;
  const token = required(ctx.params, 'refresh_token', 200);
  const scopes = scopeParam(ctx.params);
  const resources = repeated(ctx.params, 'resource');
  // Validate the narrowing before consuming, so a client's mistake does not burn its refresh token.
  const peek = await findRefreshToken(deps.refreshTokens, token);
  if (peek && peek.clientId === ctx.client._id) {
    // RFC 9449 §5: a DPoP-bound refresh token needs a proof made with its key. Checked before the
    // token is consumed: someone holding a stolen token but not the key must not be able to burn
    // (or, by replaying it, revoke) the legitimate client's family.
    if (peek.jkt && peek.jkt !== ctx.jkt) throw new OAuthError('invalid_grant', 'refresh token is bound to a DPoP key: send a proof made with it');
    narrowTo(peek.scopes, scopes);
    narrowAudience(peek.audience, resources);
  }
  const used = await consumeRefreshToken(deps.refreshTokens, deps.redis, token, ctx.client._id);
  if (!used.ok) throw new OAuthError('invalid_grant', REASONS[used.reason]);
  const doc = used.doc;
  if (doc.jkt && doc.jkt !== ctx.jkt) throw new OAuthError('invalid_grant', 'refresh token is bound to a DPoP key: send a proof made with it');
  const account = await deps.accounts.findById(doc.sub).lean<AccountDoc>();
  if (doc.sub !== doc.clientId && (!account || account.status !== 'active')) throw new OAuthError('invalid_grant', 'the account is no longer active');
  const granted = narrowTo(doc.scopes, scopes);
  const authTime = typeof doc.authTime === 'number' ? doc.authTime : undefined;
  const issued = await issueTokenSet(deps, {
    sub: doc.sub,
    clientId: doc.clientId,
    scopes: granted,
    audience: narrowAudience(doc.audience, resources),
    withRefresh: true,
    familyId: doc.familyId,
    account,
    ...(ctx.jkt ? { jkt: ctx.jkt } : {}),
    ...(doc.jkt ? { refreshJkt: doc.jkt } : {}),
    ...(authTime !== undefined ? { authTime } : {}),
  });
  if (await revokedDuringRotation(deps.refreshTokens, deps.redis, doc.familyId)) throw new OAuthError('invalid_grant', REASONS.reused);
  // OpenID Connect Core 1.0 §12.2: a refresh of an OpenID Connect grant gets a new ID token for the
  // same `sub` and the original `auth_time` (and no `nonce`), while `openid` is still granted.
  if (authTime === undefined || !account || !granted.includes(OPENID_SCOPE)) return issued.response;
  const response: TokenResponse = {
    ...issued.response,
    id_token: await issueIdToken(deps, { sub: doc.sub, clientId: doc.clientId, scopes: granted, account, authTime, accessToken: issued.response.access_token }),
  };
  return response;
};
