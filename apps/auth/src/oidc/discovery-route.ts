import { Router } from 'express';
import type { Deps } from '../deps';
import { publicEndpoint } from '../oauth/dpop-at-token';
import { metadata } from '../oauth/metadata-route';

/**
 * OpenID Connect Discovery 1.0 §3 provider metadata: the RFC 8414 document (same issuer, endpoints
 * and capabilities, all at PUBLIC_URL, the gateway's origin) plus what an OpenID Provider adds.
 */
export function openidConfiguration(deps: Deps) {
  const at = (path: string) => publicEndpoint(deps.config.PUBLIC_URL, path);
  return {
    ...metadata(deps),
    userinfo_endpoint: at('/userinfo'),
    end_session_endpoint: at('/logout'),
    // Back-Channel Logout 1.0 §2.1: logout tokens carry `sid`, and so do the ID tokens of clients that take them.
    backchannel_logout_supported: true,
    backchannel_logout_session_supported: true,
    subject_types_supported: ['public'],
    id_token_signing_alg_values_supported: ['ES256'],
    claims_supported: [
      'iss',
      'sub',
      'aud',
      'exp',
      'iat',
      'auth_time',
      'nonce',
      'at_hash',
      'azp',
      'sid',
      'name',
      'email',
      'email_verified',
    ],
    claim_types_supported: ['normal'],
    claims_parameter_supported: false,
    request_uri_parameter_supported: false,
    prompt_values_supported: ['none', 'login', 'consent', 'select_account'],
  };
}

export function discoveryRoute(deps: Deps): Router {
  const router = Router();
  router.get('/.well-known/openid-configuration', (_req, res) => {
    res.setHeader('Cache-Control', 'public, max-age=300');
    res.json(openidConfiguration(deps));
  });
  return router;
}
