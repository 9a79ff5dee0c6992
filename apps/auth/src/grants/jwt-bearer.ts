import { jwtBearerForm } from '@platform/oauth-grants';
import { createLocalJWKSet, decodeJwt, jwtVerify, type JSONWebKeySet } from 'jose';
import { OAuthError } from '../oauth/oauth-error';
import { redisReplayCache } from '@platform/oauth-resource';
import type { ClientDoc } from '../clients/client-model';
import type { Deps } from '../deps';
import { publicEndpoint } from '../oauth/dpop-at-token';
import { scopeList } from '../oauth/params';
import { scopesFor } from '../oauth/resources';
import { defineGrant, type GrantHandler } from './grant-descriptor';
import { clientAudience, issueGrantTokens, subjectAccount } from './grant-steps';

const MAX_ASSERTION_LIFETIME = 3600;

/**
 * RFC 7523 §2.1: a JWT from a configured trusted issuer (JWT_BEARER_TRUSTED_ISSUERS) stands for its
 * `sub`. Checks: signature with that issuer's keys, iss, sub, aud (our issuer or token endpoint),
 * exp, iat (not in the future, not too old), and jti once only.
 */
const redeemAssertion: GrantHandler<typeof jwtBearerForm> = async (ctx, form) => {
  const { deps } = ctx;
  const { assertion } = form;
  let iss: unknown;
  try {
    iss = decodeJwt(assertion).iss;
  } catch {
    throw new OAuthError('invalid_grant', 'assertion is not a JWT');
  }
  const trusted = deps.config.JWT_BEARER_TRUSTED_ISSUERS.find((t) => t.issuer === iss);
  if (!trusted) throw new OAuthError('invalid_grant', 'assertion issuer is not trusted');
  const issuer = deps.config.PUBLIC_URL;
  let payload: Record<string, unknown>;
  try {
    ({ payload } = await jwtVerify(assertion, createLocalJWKSet(trusted.jwks as unknown as JSONWebKeySet), {
      issuer: trusted.issuer,
      audience: [issuer, issuer.replace(/\/+$/, ''), publicEndpoint(issuer, '/token')],
      algorithms: ['ES256', 'ES384', 'EdDSA', 'PS256', 'RS256'],
      requiredClaims: ['sub', 'exp', 'iat', 'jti'],
      clockTolerance: 5,
      maxTokenAge: MAX_ASSERTION_LIFETIME,
    }));
  } catch {
    throw new OAuthError('invalid_grant', 'assertion is invalid, expired or not for this server');
  }
  const now = Math.floor(Date.now() / 1000);
  const exp = payload.exp as number;
  if ((payload.iat as number) > now + 5) throw new OAuthError('invalid_grant', 'assertion iat is in the future');
  if (exp - now > MAX_ASSERTION_LIFETIME) throw new OAuthError('invalid_grant', 'assertion lives too long');
  const jti = String(payload.jti);
  if (
    jti.length > 256 ||
    !(await redisReplayCache(deps.redis, 'auth:assertion-jti:').firstUse(`${trusted.issuer}:${jti}`, exp - now + 10))
  ) {
    throw new OAuthError('invalid_grant', 'assertion was already used');
  }
  const requested =
    scopeList(form.scope) ?? (typeof payload.scope === 'string' ? payload.scope.split(' ').filter(Boolean) : undefined);
  const issuerScopes = trusted.scopes.split(' ').filter(Boolean);
  const allowed = issuerScopes.filter((s) => ctx.client.scopes.includes(s));
  const scopes = scopesFor(allowed, requested);
  const sub = String(payload.sub);
  // A disabled account gets no new tokens by any grant, an assertion included.
  const account = sub.length <= 64 ? await subjectAccount(deps, sub) : null;
  const issued = await issueGrantTokens(ctx, {
    sub,
    // Without client authentication the assertion's issuer is the party the token was issued to.
    clientId: ctx.method === 'none' ? trusted.issuer : ctx.client._id,
    scopes,
    audience: clientAudience(ctx, form.resource),
    account,
  });
  return issued.response;
};

/**
 * Stand-in client for jwt-bearer requests without client authentication (RFC 7523 §3.1): the
 * assertion's issuer is trusted for its configured scopes, the audience is the platform.
 */
function trustedIssuersClient(deps: Deps): ClientDoc {
  return {
    _id: 'jwt-bearer',
    name: 'trusted assertion issuer',
    type: 'public',
    grantTypes: ['urn:ietf:params:oauth:grant-type:jwt-bearer'],
    redirectUris: [],
    scopes: [...new Set(deps.config.JWT_BEARER_TRUSTED_ISSUERS.flatMap((t) => t.scopes.split(' ').filter(Boolean)))],
    resources: [deps.config.PUBLIC_URL],
    createdAt: new Date(0),
  };
}

export const jwtBearerGrant = defineGrant({
  form: jwtBearerForm,
  handler: redeemAssertion,
  clients: 'any',
  unauthenticatedClient: trustedIssuersClient,
  issues: { refreshToken: 'never', idToken: false },
});
