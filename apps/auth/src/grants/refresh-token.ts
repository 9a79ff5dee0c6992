import { refreshTokenForm } from '@platform/oauth-grants';
import { OAuthError } from '../oauth/oauth-error';
import { scopeList } from '../oauth/params';
import { narrowAudience, narrowTo } from '../oauth/resources';
import { consumeRefreshToken, findRefreshToken, revokedDuringRotation } from '../tokens/refresh-tokens';
import { defineGrant, type GrantHandler } from './grant-descriptor';
import { activeAccount, findAccount, issueGrantTokens, withIdToken } from './grant-steps';

const REASONS = {
  unknown: 'refresh token is invalid',
  expired: 'refresh token expired',
  revoked: 'refresh token was revoked',
  reused: 'refresh token was already used; its family is revoked',
  wrong_client: 'refresh token was issued to another client',
};

/** RFC 6749 §6 with rotation: every use returns a new refresh token of the same family. */
const rotateRefreshToken: GrantHandler<typeof refreshTokenForm> = async (ctx, form) => {
  const { deps } = ctx;
  const token = form.refresh_token;
  const scopes = scopeList(form.scope);
  const resources = form.resource ?? [];
  // Validate the narrowing before consuming, so a client's mistake does not burn its refresh token.
  const peek = await findRefreshToken(deps.refreshTokens, token);
  if (peek && peek.clientId === ctx.client._id) {
    // RFC 9449 §5: a DPoP-bound refresh token needs a proof made with its key. Checked before the
    // token is consumed: someone holding a stolen token but not the key must not be able to burn
    // (or, by replaying it, revoke) the legitimate client's family.
    if (peek.jkt && peek.jkt !== ctx.jkt)
      throw new OAuthError('invalid_grant', 'refresh token is bound to a DPoP key: send a proof made with it');
    narrowTo(peek.scopes, scopes);
    narrowAudience(peek.audience, resources);
  }
  const used = await consumeRefreshToken(deps, token, ctx.client._id);
  if (!used.ok) throw new OAuthError('invalid_grant', REASONS[used.reason]);
  const doc = used.doc;
  if (doc.jkt && doc.jkt !== ctx.jkt)
    throw new OAuthError('invalid_grant', 'refresh token is bound to a DPoP key: send a proof made with it');
  // A client's own tokens (subject = client) belong to no account that must stay active.
  const account = doc.sub === doc.clientId ? await findAccount(deps, doc.sub) : await activeAccount(deps, doc.sub);
  const granted = narrowTo(doc.scopes, scopes);
  const authTime = typeof doc.authTime === 'number' ? doc.authTime : undefined;
  const issued = await issueGrantTokens(ctx, {
    sub: doc.sub,
    clientId: doc.clientId,
    scopes: granted,
    audience: narrowAudience(doc.audience, resources),
    rotates: { familyId: doc.familyId, jkt: doc.jkt },
    account,
    ...(authTime !== undefined ? { authTime } : {}),
  });
  if (await revokedDuringRotation(deps, doc.familyId)) throw new OAuthError('invalid_grant', REASONS.reused);
  // A new ID token only for a grant that started as an OpenID Connect authentication (it has an auth_time).
  if (authTime === undefined || !account) return issued.response;
  return withIdToken(ctx, issued.response, {
    sub: doc.sub,
    clientId: doc.clientId,
    scopes: granted,
    account,
    authTime,
  });
};

export const refreshTokenGrant = defineGrant({
  form: refreshTokenForm,
  handler: rotateRefreshToken,
  clients: 'any',
  issues: { refreshToken: 'rotation', idToken: true },
});
