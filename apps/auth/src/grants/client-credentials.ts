import { OAuthError } from '@platform/errors';
import { scopeParam, repeated } from '../oauth/params';
import { audienceFor, scopesFor } from '../oauth/resources';
import { issueTokenSet } from '../tokens/issue-tokens';
import type { GrantHandler } from './grant-context';

/** RFC 6749 §4.4: the token represents the client itself; no refresh token. */
export const clientCredentialsGrant: GrantHandler = async (ctx) => {
  if (ctx.client.type !== 'confidential') throw new OAuthError('unauthorized_client', 'client_credentials needs a confidential client');
  const scopes = scopesFor(ctx.client.scopes, scopeParam(ctx.params));
  const audience = audienceFor(ctx.client, repeated(ctx.params, 'resource'), ctx.deps.config.PUBLIC_URL);
  const issued = await issueTokenSet(ctx.deps, {
    sub: ctx.client._id,
    clientId: ctx.client._id,
    scopes,
    audience,
    withRefresh: false,
    ...(ctx.jkt ? { jkt: ctx.jkt } : {}),
  });
  return issued.response;
};
