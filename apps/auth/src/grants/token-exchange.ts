import { OAuthError } from '@platform/errors';
import type { Deps } from '../deps';
import { repeated, required, scopeParam, single } from '../oauth/params';
import { audienceFor, narrowTo } from '../oauth/resources';
import { verifyOwnAccessToken, type AccessTokenClaims } from '../tokens/access-token';
import { issueTokenSet } from '../tokens/issue-tokens';
import { isAccessTokenRevoked } from '../tokens/revocation';
import type { GrantHandler } from './grant-context';

export const ACCESS_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:access_token';

async function ownActiveToken(deps: Deps, token: string, what: string): Promise<AccessTokenClaims> {
  const claims = await verifyOwnAccessToken(deps.keys, deps.config.PUBLIC_URL, token);
  if (!claims || (await isAccessTokenRevoked(deps.redis, claims.jti))) throw new OAuthError('invalid_grant', `${what} is invalid, expired or revoked`);
  return claims;
}

/**
 * RFC 8693: exchanges one of our access tokens for another with narrower scope and/or another
 * audience, optionally on behalf of an actor (`act` claim). Never widens scope.
 */
export const tokenExchangeGrant: GrantHandler = async (ctx) => {
  const { deps, params } = ctx;
  if (ctx.client.type !== 'confidential') throw new OAuthError('unauthorized_client', 'token exchange needs a confidential client');
  const subjectToken = required(params, 'subject_token', 8192);
  if (required(params, 'subject_token_type', 200) !== ACCESS_TOKEN_TYPE) throw new OAuthError('invalid_request', 'subject_token_type must be the access token type');
  const requestedType = single(params, 'requested_token_type', 200);
  if (requestedType !== undefined && requestedType !== ACCESS_TOKEN_TYPE) throw new OAuthError('invalid_request', 'only access tokens can be issued');
  const actorToken = single(params, 'actor_token', 8192);
  const actorType = single(params, 'actor_token_type', 200);
  if ((actorToken === undefined) !== (actorType === undefined)) throw new OAuthError('invalid_request', 'actor_token and actor_token_type go together');
  if (actorType !== undefined && actorType !== ACCESS_TOKEN_TYPE) throw new OAuthError('invalid_request', 'actor_token_type must be the access token type');
  const targets = [...repeated(params, 'resource'), ...repeated(params, 'audience')];
  const requestedScopes = scopeParam(params);

  const subject = await ownActiveToken(deps, subjectToken, 'subject_token');
  const actor = actorToken ? await ownActiveToken(deps, actorToken, 'actor_token') : undefined;
  const scopes = narrowTo(subject.scope.split(' ').filter(Boolean), requestedScopes);
  const audience = targets.length ? audienceFor(ctx.client, targets, deps.config.PUBLIC_URL) : Array.isArray(subject.aud) ? subject.aud : [subject.aud];
  const act = actor ? { sub: actor.sub, client_id: actor.client_id, ...(actor.act ? { act: actor.act } : {}) } : subject.act;
  const issued = await issueTokenSet(deps, {
    sub: subject.sub,
    clientId: ctx.client._id,
    scopes,
    audience,
    withRefresh: false,
    profile: {
      ...(subject.roles ? { roles: subject.roles } : {}),
      ...(subject.plan ? { plan: subject.plan } : {}),
      ...(subject.username ? { username: subject.username } : {}),
    },
    ...(act ? { act } : {}),
    ...(ctx.jkt ? { jkt: ctx.jkt } : {}),
  });
  return { ...issued.response, issued_token_type: ACCESS_TOKEN_TYPE };
};
