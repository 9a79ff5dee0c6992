import { resource, scope, text } from '@platform/oauth-grants';

/**
 * The parameters of an authorization request (RFC 6749 §4.1.1, RFC 7636 §4.3, RFC 8707, RFC 9449 §10,
 * OpenID Connect Core 1.0 §3.1.2.1, RFC 9101 §5, RFC 9126 §4): `/authorize`'s query and `/par`'s form
 * (RFC 9126 §2.1). The schemas bound each parameter's form (given once, its length); what its value must be
 * (`code`, `S256`, the prompts) auth checks after, with the error codes those rules have, so it is described
 * here (`meta`) rather than parsed. Auth reads them one at a time in the order of its checks (`formParam`):
 * that order decides which error is shown on a page and which is redirected to the client (RFC 6749 §4.1.2.1).
 */
export const authorizationRequest = {
  response_type: text(50, 'Only `code` (anything else: `unsupported_response_type`).').meta({ const: 'code' }),
  client_id: text(128, 'The registered client.'),
  redirect_uri: text(2000, 'One of the client’s registered redirect URIs (required, as a parameter or in `request`).')
    .meta({ format: 'uri' })
    .optional(),
  scope,
  state: text(1000, 'Returned unchanged.').optional(),
  code_challenge: text(
    128,
    'PKCE (RFC 7636): BASE64URL(SHA-256(code_verifier)); required for public clients and FAPI 2.0 clients.',
  )
    .meta({ pattern: '^[A-Za-z0-9_-]{43}$' })
    .optional(),
  code_challenge_method: text(10).meta({ const: 'S256' }).optional(),
  nonce: text(512, 'Put in the ID token (OpenID Connect).').optional(),
  prompt: text(100, '`none`, `login`, `consent` or `select_account`, space-separated; `none` alone.').optional(),
  login_hint: text(
    254,
    'OpenID Connect Core 1.0 §3.1.2.1: the email the sign-in page starts with (a hint: the person may change it).',
  ).optional(),
  max_age: text(12, 'Seconds since the person last signed in, at most.').meta({ pattern: '^[0-9]{1,10}$' }).optional(),
  resource,
  dpop_jkt: text(
    100,
    'RFC 9449 §10: binds the code to this key; at `/par` with a `DPoP` header it must be that proof’s key.',
  ).optional(),
  request: text(
    16_384,
    'A request object signed with a key of the client’s `jwks`/`jwks_uri` (RFC 9101 §5.1) carrying the parameters; the ones outside it are ignored but `client_id` (`invalid_request_object` when it does not verify).',
  ).optional(),
  request_uri: text(
    200,
    'Only at `/authorize`: the `request_uri` from `/par` (RFC 9126 §4), which stands for every other parameter but `client_id`; once, before it expires (`invalid_request_uri`).',
  )
    .meta({ pattern: '^urn:ietf:params:oauth:request_uri:' })
    .optional(),
};
