import { Router } from 'express';
import { DPOP_SIGNING_ALGORITHMS } from '@platform/oauth-resource';
import {
  CLIENT_ASSERTION_ALGS,
  CLIENT_AUTH_METHODS,
  CLIENT_KEY_ALGS,
  INTROSPECTION_SIGNING_ALGS,
} from '@platform/contracts';
import type { Deps } from '../deps';
import { GRANT_TYPES } from '../grants';
import { publicEndpoint } from './dpop-at-token';
import { SUPPORTED_SCOPES } from './scopes';

/** The methods that authenticate (introspection needs one: `none` is not among them). */
const AUTH_METHODS = CLIENT_AUTH_METHODS.filter((method) => method !== 'none');
const AUTH_SIGNING_ALGS = [...CLIENT_ASSERTION_ALGS];

/** RFC 8414 metadata: exactly what this server implements. */
export function metadata(deps: Deps) {
  const issuer = deps.config.PUBLIC_URL;
  const at = (path: string) => publicEndpoint(issuer, path);
  return {
    issuer,
    authorization_endpoint: at('/authorize'),
    token_endpoint: at('/token'),
    jwks_uri: at('/jwks'),
    revocation_endpoint: at('/revoke'),
    introspection_endpoint: at('/introspect'),
    device_authorization_endpoint: at('/device_authorization'),
    // RFC 7591 §3: with an initial access token unless REGISTRATION_OPEN (registration/).
    registration_endpoint: at('/register'),
    // RFC 9126 §5 (PAR) and RFC 9101 §10.5 / OpenID Connect Discovery (signed request objects by value).
    pushed_authorization_request_endpoint: at('/par'),
    require_pushed_authorization_requests: deps.config.REQUIRE_PUSHED_AUTHORIZATION_REQUESTS,
    request_parameter_supported: true,
    request_object_signing_alg_values_supported: [...CLIENT_KEY_ALGS],
    ...(deps.config.REQUIRE_SIGNED_REQUEST_OBJECT ? { require_signed_request_object: true } : {}),
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    grant_types_supported: [...GRANT_TYPES],
    token_endpoint_auth_methods_supported: [...AUTH_METHODS, 'none'],
    token_endpoint_auth_signing_alg_values_supported: AUTH_SIGNING_ALGS,
    revocation_endpoint_auth_methods_supported: [...AUTH_METHODS, 'none'],
    revocation_endpoint_auth_signing_alg_values_supported: AUTH_SIGNING_ALGS,
    introspection_endpoint_auth_methods_supported: AUTH_METHODS,
    introspection_endpoint_auth_signing_alg_values_supported: AUTH_SIGNING_ALGS,
    // RFC 9701 §7: the JWT introspection answer's algorithms (the server's keys').
    introspection_signing_alg_values_supported: [...INTROSPECTION_SIGNING_ALGS],
    code_challenge_methods_supported: ['S256'],
    scopes_supported: SUPPORTED_SCOPES,
    dpop_signing_alg_values_supported: DPOP_SIGNING_ALGORITHMS,
    authorization_response_iss_parameter_supported: true,
    access_token_signing_alg_values_supported: ['ES256'],
  };
}

export function metadataRoute(deps: Deps): Router {
  const router = Router();
  router.get('/.well-known/oauth-authorization-server', (_req, res) => {
    res.setHeader('Cache-Control', 'public, max-age=300');
    res.json(metadata(deps));
  });
  return router;
}
