import { decodeProtectedHeader, jwtVerify, type JWTPayload } from 'jose';
import { redisReplayCache } from '@platform/oauth-resource';
import { CLIENT_KEY_ALGS } from '@platform/contracts';
import { clientKeys } from '../clients/client-keys';
import type { ClientDoc } from '../clients/client-model';
import type { Deps } from '../deps';
import { OutboundFetchError } from '../http/outbound-fetch';
import { OAuthError } from '../oauth/oauth-error';
import type { Params } from '../oauth/params';

/** RFC 9101 §10.8: the media type a request object should declare; `JWT` (or none) is accepted too, any other `typ` is another kind of JWT. */
const ACCEPTED_TYP = new Set(['oauth-authz-req+jwt', 'jwt']);
/** Claims about the object itself, not authorization request parameters. */
const JWT_CLAIMS = new Set(['iss', 'aud', 'exp', 'nbf', 'iat', 'jti', 'sub']);
/** The longest lifetime (exp − now) a request object may declare, as the FAPI 2.0 profile bounds it. */
const MAX_LIFETIME_SECONDS = 3600;

const invalid = (description: string) => new OAuthError('invalid_request_object', description);

/**
 * The authorization request parameters of a signed request object (RFC 9101, `request` by value), for
 * `client`: signed with one of the client's registered keys (`jwks` or `jwks_uri`) with an asymmetric
 * algorithm (its `request_object_signing_alg` when registered; `none` never), `iss` the client, `aud`
 * this issuer, `exp` in the future and at most an hour away, `nbf` (when given) past, `jti` (when given)
 * used once, `client_id` (when given) the client. Throws OAuthError `invalid_request_object`.
 */
export async function requestObjectParams(
  deps: Pick<Deps, 'config' | 'redis'>,
  client: ClientDoc,
  jwt: string,
): Promise<Params> {
  let header: ReturnType<typeof decodeProtectedHeader>;
  try {
    header = decodeProtectedHeader(jwt);
  } catch {
    throw invalid('request is not a JWT');
  }
  if (jwt.split('.').length !== 3) throw invalid('encrypted request objects are not supported; sign it (JWS)');
  if (header.alg === 'none' || typeof header.alg !== 'string')
    throw invalid('request objects must be signed (alg none is refused)');
  const allowed: string[] = client.requestObjectSigningAlg ? [client.requestObjectSigningAlg] : [...CLIENT_KEY_ALGS];
  if (!allowed.includes(header.alg))
    throw invalid(`alg ${header.alg} is not accepted for this client's request objects (${allowed.join(', ')})`);
  if (header.typ !== undefined && !ACCEPTED_TYP.has(header.typ.toLowerCase()))
    throw invalid('typ must be oauth-authz-req+jwt');
  const keys = clientKeys(deps, client);
  if (!keys) throw invalid('the client has no registered keys (jwks or jwks_uri) to verify request objects with');
  const issuer = deps.config.PUBLIC_URL;
  let payload: JWTPayload;
  try {
    ({ payload } = await jwtVerify(jwt, keys, {
      algorithms: allowed,
      issuer: client._id,
      audience: [issuer, issuer.replace(/\/+$/, '')],
      requiredClaims: ['exp'],
      clockTolerance: 5,
    }));
  } catch (err) {
    if (err instanceof OutboundFetchError) throw invalid(`the client's jwks_uri could not be read: ${err.message}`);
    throw invalid(
      'request object signature or claims are invalid (iss must be the client_id, aud the issuer, exp in the future)',
    );
  }
  const now = Math.floor(Date.now() / 1000);
  const exp = payload.exp!;
  if (exp - now > MAX_LIFETIME_SECONDS) throw invalid('request object lives too long (exp at most an hour away)');
  if (payload.client_id !== undefined && payload.client_id !== client._id)
    throw invalid('client_id inside the request object differs from the client');
  if (payload.jti !== undefined) {
    if (typeof payload.jti !== 'string' || payload.jti.length > 256) throw invalid('jti is malformed');
    if (
      !(await redisReplayCache(deps.redis, 'auth:request-object-jti:').firstUse(
        `${client._id}:${payload.jti}`,
        exp - now + 10,
      ))
    )
      throw invalid('request object was already used (jti)');
  }
  return parametersOf(payload);
}

/** The claims that are request parameters, in the shape of a parsed query (strings, or lists of strings for repeated ones). */
function parametersOf(payload: JWTPayload): Params {
  const params: Params = {};
  for (const [name, value] of Object.entries(payload)) {
    if (JWT_CLAIMS.has(name)) continue;
    // RFC 9101 §4: a request object never refers to another.
    if (name === 'request' || name === 'request_uri') throw invalid(`${name} is not allowed inside a request object`);
    if (typeof value === 'string') params[name] = value;
    else if (typeof value === 'number' || typeof value === 'boolean') params[name] = String(value);
    else if (Array.isArray(value) && value.every((v) => typeof v === 'string')) params[name] = value;
    // JSON-valued parameters (`claims`, `authorization_details`) are not supported here and are ignored, as unknown query parameters are.
  }
  return params;
}
