import { ACCESS_TOKEN_TYPE, tokenExchangeForm } from '@platform/oauth-grants';
import { OAuthError } from '../oauth/oauth-error';
import type { ClientDoc } from '../clients/client-model';
import type { Deps } from '../deps';
import { scopeList } from '../oauth/params';
import { audienceFor, narrowAudience, narrowTo } from '../oauth/resources';
import { verifyOwnAccessToken, type AccessTokenClaims } from '../tokens/access-token';
import { isAccessTokenRevoked } from '../tokens/revocation';
import { defineGrant, type GrantContext, type GrantHandler } from './grant-descriptor';
import { issueGrantTokens } from './grant-steps';

async function ownActiveToken(deps: Deps, token: string, what: string): Promise<AccessTokenClaims> {
  const claims = await verifyOwnAccessToken(deps.keys, deps.config.PUBLIC_URL, token);
  if (!claims || (await isAccessTokenRevoked(deps.redis, claims.jti)))
    throw new OAuthError('invalid_grant', `${what} is invalid, expired or revoked`);
  return claims;
}

/**
 * The exchange policy (RFC 8693 §5), for the subject token and the actor token alike:
 * - a client presents only tokens issued to itself, or to a client its registration lists in
 *   `token_exchange.allowed_clients` (another client's token: `invalid_grant`, as for a code or a
 *   refresh token of another client, RFC 6749 §5.2);
 * - a DPoP-bound token (`cnf.jkt`) is presented only with a DPoP proof made with its key
 *   (`invalid_dpop_proof`, RFC 9449 §5): a stolen bound token stays useless, exchange included.
 */
function presentable(ctx: GrantContext, token: AccessTokenClaims, what: string): void {
  const allowed =
    token.client_id === ctx.client._id || (ctx.client.tokenExchange?.allowedClients ?? []).includes(token.client_id);
  if (!allowed)
    throw new OAuthError('invalid_grant', `${what} was issued to another client, which this client may not act for`);
  const jkt = token.cnf?.jkt;
  if (jkt !== undefined && jkt !== ctx.jkt)
    throw new OAuthError('invalid_dpop_proof', `${what} is DPoP-bound: send a DPoP proof made with its key`);
}

/**
 * The new token's `aud` never reaches beyond the subject token's: requested targets (`resource`,
 * `audience`) must be among the client's resources and among the subject token's audience
 * (`invalid_target` otherwise, RFC 8693 §2.2.2); without any, the subject token's audience as far
 * as the client may use it.
 */
function exchangedAudience(
  client: ClientDoc,
  subject: AccessTokenClaims,
  targets: string[],
  publicUrl: string,
): string[] {
  const subjectAudience = Array.isArray(subject.aud) ? subject.aud : [subject.aud];
  if (targets.length) return narrowAudience(subjectAudience, audienceFor(client, targets, publicUrl));
  const usable = subjectAudience.filter((a) => client.resources.includes(a));
  if (!usable.length)
    throw new OAuthError('invalid_target', "none of the subject token's audience is among this client's resources");
  return usable;
}

/**
 * RFC 8693: exchanges one of our access tokens for another with narrower scope and/or audience,
 * optionally on behalf of an actor (`act` claim). Never widens scope, audience, lifetime or the
 * sender constraint; the new token is revoked with the subject token (and so with its refresh
 * token family, and with the account's tokens on a change of its rights).
 */
const exchangeToken: GrantHandler<typeof tokenExchangeForm> = async (ctx, form) => {
  const { deps } = ctx;
  // The form took care of subject_token_type (RFC 8693 §2.1): only access tokens are exchanged.
  const { subject_token: subjectToken, actor_token: actorToken, actor_token_type: actorType } = form;
  if (form.requested_token_type !== undefined && form.requested_token_type !== ACCESS_TOKEN_TYPE)
    throw new OAuthError('invalid_request', 'only access tokens can be issued');
  if ((actorToken === undefined) !== (actorType === undefined))
    throw new OAuthError('invalid_request', 'actor_token and actor_token_type go together');
  if (actorType !== undefined && actorType !== ACCESS_TOKEN_TYPE)
    throw new OAuthError('invalid_request', 'actor_token_type must be the access token type');
  const targets = [...(form.resource ?? []), ...(form.audience ?? [])];
  const requestedScopes = scopeList(form.scope);

  const subject = await ownActiveToken(deps, subjectToken, 'subject_token');
  presentable(ctx, subject, 'subject_token');
  const actor = actorToken ? await ownActiveToken(deps, actorToken, 'actor_token') : undefined;
  if (actor) presentable(ctx, actor, 'actor_token');
  // Scopes: within the subject token's and the client's own.
  const scopes = narrowTo(
    subject.scope.split(' ').filter((s) => s && ctx.client.scopes.includes(s)),
    requestedScopes,
  );
  if (!scopes.length)
    throw new OAuthError('invalid_scope', "none of the subject token's scopes is allowed for this client");
  const audience = exchangedAudience(ctx.client, subject, targets, deps.config.PUBLIC_URL);
  const lifetime = subject.exp - Math.floor(Date.now() / 1000);
  if (lifetime < 1) throw new OAuthError('invalid_grant', 'subject_token is invalid, expired or revoked');
  const act = actor
    ? { sub: actor.sub, client_id: actor.client_id, ...(actor.act ? { act: actor.act } : {}) }
    : subject.act;
  const issued = await issueGrantTokens(ctx, {
    sub: subject.sub,
    clientId: ctx.client._id,
    scopes,
    audience,
    profile: {
      ...(subject.roles ? { roles: subject.roles } : {}),
      ...(subject.plan ? { plan: subject.plan } : {}),
      ...(subject.username ? { username: subject.username } : {}),
    },
    // Never outlives the subject token: its revocation (kept until its exp) cascades to this one.
    ttlSeconds: lifetime,
    derivedFrom: { jti: subject.jti, exp: subject.exp },
    ...(act ? { act } : {}),
  });
  return { ...issued.response, issued_token_type: ACCESS_TOKEN_TYPE };
};

export const tokenExchangeGrant = defineGrant({
  form: tokenExchangeForm,
  handler: exchangeToken,
  clients: 'confidential',
  issues: { refreshToken: 'never', idToken: false },
});
