import { randomToken, sha256 } from '../crypto/secrets';
import type { Deps } from '../deps';
import { OAuthError } from '../oauth/oauth-error';
import type { Params } from '../oauth/params';

/** RFC 9126 §2.2: the `request_uri` a pushed request is referred to by. */
const REQUEST_URI_PREFIX = 'urn:ietf:params:oauth:request_uri:';

interface PushedRequest {
  clientId: string;
  params: Params;
}

// Kept in Redis (every replica of auth reads it) under the hash of the reference, as codes are.
const pushedKey = (requestUri: string) => `auth:par:${sha256(requestUri)}`;

/** Stores a validated authorization request for PAR_TTL seconds; the answer of RFC 9126 §2.2. */
export async function pushRequest(
  deps: Pick<Deps, 'config' | 'redis'>,
  clientId: string,
  params: Params,
): Promise<{ request_uri: string; expires_in: number }> {
  const requestUri = `${REQUEST_URI_PREFIX}${randomToken('', 32)}`;
  const record: PushedRequest = { clientId, params };
  await deps.redis.set(pushedKey(requestUri), JSON.stringify(record), 'EX', deps.config.PAR_TTL);
  return { request_uri: requestUri, expires_in: deps.config.PAR_TTL };
}

/**
 * The parameters of a pushed request, for the client it was pushed by; taken once (GETDEL: a second
 * /authorize with the same `request_uri`, or one after `expires_in`, finds nothing). Throws
 * OAuthError `invalid_request_uri`.
 */
export async function takePushedRequest(
  deps: Pick<Deps, 'redis'>,
  requestUri: string,
  clientId: string,
): Promise<Params> {
  if (!requestUri.startsWith(REQUEST_URI_PREFIX))
    throw new OAuthError('invalid_request_uri', 'request_uri is not one this server issued');
  const raw = await deps.redis.getdel(pushedKey(requestUri));
  if (!raw) throw new OAuthError('invalid_request_uri', 'request_uri is unknown, expired or already used');
  const pushed = JSON.parse(raw) as PushedRequest;
  if (pushed.clientId !== clientId)
    throw new OAuthError('invalid_request_uri', 'request_uri was pushed by another client');
  return pushed.params;
}
