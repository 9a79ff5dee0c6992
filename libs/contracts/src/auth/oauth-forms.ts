import { resource, scope, text } from '@platform/oauth-grants';

// The form parameters of the OAuth endpoints other than the grants' (libs/oauth-grants): auth parses them
// with `formParams` (RFC 6749 §3.2: each once, bounded; `invalid_request` naming the first problem), and
// the auth API document describes them.

/** RFC 7523 §2.2: the `client_assertion_type` of a JWT client assertion. */
export const CLIENT_ASSERTION_TYPE = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';

/** The client's authentication in the body (RFC 6749 §2.3.1 `client_secret_post`; RFC 7523 §2.2 `private_key_jwt` / `client_secret_jwt`; `client_id` alone for a public client). */
export const clientAuthentication = {
  client_id: text(128).optional(),
  client_secret: text(512, 'client_secret_post (RFC 6749 §2.3.1).').optional(),
  // Any other value is `invalid_client` (auth checks it with the assertion), not a malformed request.
  client_assertion_type: text(200).meta({ const: CLIENT_ASSERTION_TYPE }).optional(),
  client_assertion: text(
    8192,
    'A JWT signed with the client’s registered key (private_key_jwt) or its secret (client_secret_jwt), RFC 7523 §2.2; at most 10 minutes of life, used once.',
  ).optional(),
};

/** The token to revoke (RFC 7009 §2.1) or introspect (RFC 7662 §2.1). */
export const tokenForm = {
  token: text(8192),
  token_type_hint: text(
    100,
    '`access_token` or `refresh_token`; anything else is `unsupported_token_type` at /revoke.',
  ).optional(),
};

/** `POST /device_authorization` (RFC 8628 §3.1): what the device asks for; the client authenticates as at `/token`. */
export const deviceAuthorizationForm = { scope, resource };
