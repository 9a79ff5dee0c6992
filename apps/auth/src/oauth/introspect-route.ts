import type { ServerResponse } from 'node:http';
import { Router } from 'express';
import { authenticateClient } from '../clients/client-auth';
import type { Deps } from '../deps';
import { sendNoStoreJson } from '../http/no-store-json';
import { looksLikeJwt, verifyOwnAccessToken } from '../tokens/access-token';
import { findRefreshToken } from '../tokens/refresh-tokens';
import { isAccessTokenRevoked } from '../tokens/revocation';
import type { FormRequest } from '../http/form-body';
import { mayIntrospect } from './introspection-policy';
import { INTROSPECTION_JWT_MEDIA_TYPE, introspectionJwt, wantsIntrospectionJwt } from './introspection-jwt';
import { countIntrospection } from './oauth-metrics';
import { tokenForm } from '@platform/contracts';
import { formBody, formParams, paramsOf } from './params';

type Introspection =
  { active: false } | (Record<string, unknown> & { active: true; client_id: string; aud: string | string[] });

/**
 * `POST /introspect` (RFC 7662). Authenticated confidential clients may ask; the answer is authoritative
 * (signature, expiry, revocation) for the token's own client and the resource servers it is meant for
 * (introspection-policy.ts). Inactive, or not the caller's to know: only `{active:false}`.
 */
export function introspectRoute(deps: Deps): Router {
  const router = Router();
  const endpoint = introspectEndpoint(deps);
  router.post('/introspect', formBody(), (req, res) => endpoint(req, res));
  return router;
}

/** `POST /introspect` once the form body is read (the HTTP server's fast lane calls it too, see main.ts). */
export function introspectEndpoint(deps: Deps): (req: FormRequest, res: ServerResponse) => Promise<void> {
  return async (req, res) => {
    const params = paramsOf(req.body);
    const { client } = await authenticateClient(deps, req, params, '/introspect', false);
    const { token } = formParams(tokenForm, params);
    const answer = await introspect(deps, token);
    const allowed =
      answer.active &&
      mayIntrospect(client, deps.config.INTROSPECTION_RESOURCE_SERVERS, {
        clientId: answer.client_id,
        audience: answer.aud,
      });
    const body = allowed ? answer : { active: false };
    if (wantsIntrospectionJwt(req)) sendNoStoreJwt(res, await introspectionJwt(deps, client, body));
    else sendNoStoreJson(res, 200, body);
    countIntrospection(allowed);
  };
}

/** RFC 9701 §5: the signed answer, not cacheable (it describes a token that may be revoked any moment). */
function sendNoStoreJwt(res: ServerResponse, jwt: string): void {
  res.writeHead(200, {
    'Content-Type': INTROSPECTION_JWT_MEDIA_TYPE,
    'Content-Length': String(Buffer.byteLength(jwt)),
    'Cache-Control': 'no-store',
  });
  res.end(jwt);
}

async function introspect(deps: Deps, token: string): Promise<Introspection> {
  if (looksLikeJwt(token)) {
    const claims = await verifyOwnAccessToken(deps.keys, deps.config.PUBLIC_URL, token);
    if (!claims || (await isAccessTokenRevoked(deps.redis, claims.jti))) return { active: false };
    return {
      active: true,
      scope: claims.scope,
      client_id: claims.client_id,
      ...(claims.username ? { username: claims.username } : {}),
      token_type: claims.cnf?.jkt ? 'DPoP' : 'Bearer',
      exp: claims.exp,
      iat: claims.iat,
      nbf: claims.iat,
      sub: claims.sub,
      aud: claims.aud,
      iss: claims.iss,
      jti: claims.jti,
      ...(claims.cnf ? { cnf: claims.cnf } : {}),
      ...(claims.act ? { act: claims.act } : {}),
    };
  }
  const refresh = await findRefreshToken(deps.refreshTokens, token);
  if (!refresh || refresh.usedAt || refresh.revokedAt || new Date(refresh.expiresAt).getTime() <= Date.now())
    return { active: false };
  const iat = Math.floor(new Date(refresh.createdAt ?? Date.now()).getTime() / 1000);
  return {
    active: true,
    scope: refresh.scopes.join(' '),
    client_id: refresh.clientId,
    token_type: 'refresh_token',
    exp: Math.floor(new Date(refresh.expiresAt).getTime() / 1000),
    iat,
    nbf: iat,
    sub: refresh.sub,
    aud: refresh.audience.length === 1 ? refresh.audience[0]! : refresh.audience,
    iss: deps.config.PUBLIC_URL,
    ...(refresh.jkt ? { cnf: { jkt: refresh.jkt } } : {}),
  };
}
