import type { ClientDoc } from '../clients/client-model';
import type { Deps } from '../deps';
import { isFapi2 } from '../fapi/fapi2-profile';
import { takePushedRequest } from '../par/pushed-requests';
import { requestObjectParams } from '../request-objects/request-object';
import { OAuthError } from './oauth-error';
import { authorizationParam, type Params } from './params';

/** Client authentication parameters of a /par body: never part of the authorization request that is stored. */
const CLIENT_AUTH_PARAMS = ['client_secret', 'client_assertion', 'client_assertion_type'];

function pushRequired(deps: Pick<Deps, 'config'>, client: ClientDoc): boolean {
  // FAPI 2.0 §5.3.2.2: the profile's clients push every authorization request, whatever their registration says.
  return (
    deps.config.REQUIRE_PUSHED_AUTHORIZATION_REQUESTS ||
    client.requirePushedAuthorizationRequests === true ||
    isFapi2(client)
  );
}

function signedRequired(deps: Pick<Deps, 'config'>, client: ClientDoc): boolean {
  return deps.config.REQUIRE_SIGNED_REQUEST_OBJECT || client.requireSignedRequestObject === true;
}

/**
 * The parameters an authorization request stands for, at `/authorize` or `/par`:
 * - `request_uri` (only at /authorize): the request pushed to /par (RFC 9126 §4), taken once;
 * - `request`: the signed request object's parameters; the ones outside it are ignored but `client_id`
 *   (RFC 9101 §5);
 * - otherwise the parameters as sent, unless the client (or the server) requires PAR or a signed request object.
 * Throws OAuthError (`invalid_request`, `invalid_request_object`, `invalid_request_uri`).
 */
export async function authorizationParams(
  deps: Pick<Deps, 'config' | 'redis'>,
  client: ClientDoc,
  outer: Params,
  at: '/authorize' | '/par',
): Promise<Params> {
  const requestUri = authorizationParam(outer, 'request_uri');
  const request = authorizationParam(outer, 'request');
  if (requestUri !== undefined) {
    if (at === '/par')
      throw new OAuthError(
        'invalid_request',
        'request_uri is not allowed at the pushed authorization request endpoint',
      );
    if (request !== undefined) throw new OAuthError('invalid_request', 'give request or request_uri, not both');
    return takePushedRequest(deps, requestUri, client._id);
  }
  if (at === '/authorize' && pushRequired(deps, client))
    throw new OAuthError(
      'invalid_request',
      'this client must push its authorization requests to the pushed authorization request endpoint (PAR) and send request_uri',
    );
  if (request !== undefined) return { ...(await requestObjectParams(deps, client, request)), client_id: client._id };
  if (signedRequired(deps, client))
    throw new OAuthError(
      'invalid_request',
      'this client must send its authorization requests as a signed request object (request)',
    );
  if (at === '/authorize') return outer;
  const params: Params = { ...outer, client_id: client._id };
  for (const name of CLIENT_AUTH_PARAMS) delete params[name];
  return params;
}
