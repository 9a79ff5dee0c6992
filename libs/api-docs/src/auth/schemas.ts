import { schemaRef, type JsonObject } from '../speech/json-helpers';
import { authorizationRequest, deviceAuthorizationForm, tokenForm } from '@platform/contracts';
import { requiredParameters } from '@platform/oauth-grants';
import { clientAuthenticationFields, formProperties } from './grant-forms';

const seconds = { type: 'integer', minimum: 0 };
const url = { type: 'string', format: 'uri' };
const strings = { type: 'array', items: { type: 'string' } };

// RFC 9126 §2.1: the client identifies itself by its authentication, and a request_uri is refused.
const { client_id: _client, request_uri: _requestUri, ...pushedAuthorizationForm } = authorizationRequest;

/** The answers of the OAuth 2.0 and OpenID Connect endpoints. */
export const oauthSchemas: JsonObject = {
  TokenResponse: {
    type: 'object',
    description:
      'RFC 6749 §5.1, with `Cache-Control: no-store`. A DPoP-bound token has `token_type: DPoP` (RFC 9449 §5).',
    required: ['access_token', 'token_type', 'expires_in', 'scope'],
    properties: {
      access_token: { type: 'string', description: 'A JWT (RFC 9068) signed with ES256.' },
      token_type: { type: 'string', enum: ['Bearer', 'DPoP'] },
      expires_in: { ...seconds, minimum: 1 },
      scope: { type: 'string' },
      refresh_token: { type: 'string' },
      refresh_expires_in: { ...seconds, minimum: 1 },
      issued_token_type: { type: 'string', description: 'Token exchange only (RFC 8693 §2.2.1).' },
      id_token: { type: 'string', description: 'When `openid` was granted (OpenID Connect Core 1.0 §3.1.3.3).' },
    },
    additionalProperties: false,
  },
  TokenForm: {
    type: 'object',
    description: 'The token to revoke (RFC 7009 §2.1) or introspect (RFC 7662 §2.1), and the client’s authentication.',
    required: requiredParameters(tokenForm),
    properties: { ...formProperties(tokenForm), ...clientAuthenticationFields },
  },
  Introspection: {
    type: 'object',
    description:
      'RFC 7662 §2.2. `{active: false}` for a token that is invalid, expired, revoked, or not the asking client’s to know about (its own tokens and those meant for a resource server it is, INTROSPECTION_RESOURCE_SERVERS).',
    required: ['active'],
    properties: {
      active: { type: 'boolean' },
      scope: { type: 'string' },
      client_id: { type: 'string' },
      username: { type: 'string' },
      token_type: { type: 'string', enum: ['Bearer', 'DPoP', 'refresh_token'] },
      exp: seconds,
      iat: seconds,
      nbf: seconds,
      sub: { type: 'string' },
      aud: { oneOf: [{ type: 'string' }, strings] },
      iss: { type: 'string' },
      jti: { type: 'string' },
      cnf: {
        type: 'object',
        required: ['jkt'],
        properties: { jkt: { type: 'string' } },
        description: 'The DPoP key thumbprint (RFC 9449 §6).',
      },
      act: { type: 'object', description: 'The actor of a delegated token (RFC 8693 §4.1).' },
    },
    additionalProperties: false,
  },
  PushedAuthorizationForm: {
    type: 'object',
    description:
      'RFC 9126 §2.1: the parameters `/authorize` takes (checked as it checks them), or a signed request object (`request`, RFC 9101) carrying them, and the client’s authentication as at `/token`. `request_uri` is refused here.',
    properties: { ...formProperties(pushedAuthorizationForm), ...clientAuthenticationFields },
  },
  PushedAuthorizationResponse: {
    type: 'object',
    description: 'RFC 9126 §2.2, with `Cache-Control: no-store`.',
    required: ['request_uri', 'expires_in'],
    properties: {
      request_uri: {
        type: 'string',
        pattern: '^urn:ietf:params:oauth:request_uri:',
        description: 'For `/authorize?client_id=…&request_uri=…`: once, by this client.',
      },
      expires_in: { ...seconds, minimum: 1, description: 'PAR_TTL seconds.' },
    },
    additionalProperties: false,
  },
  DeviceAuthorizationForm: {
    type: 'object',
    properties: { ...formProperties(deviceAuthorizationForm), ...clientAuthenticationFields },
  },
  DeviceAuthorization: {
    type: 'object',
    description: 'RFC 8628 §3.2.',
    required: ['device_code', 'user_code', 'verification_uri', 'verification_uri_complete', 'expires_in', 'interval'],
    properties: {
      device_code: { type: 'string' },
      user_code: { type: 'string', description: 'What the person types at `verification_uri`.' },
      verification_uri: url,
      verification_uri_complete: url,
      expires_in: { ...seconds, minimum: 1 },
      interval: { ...seconds, minimum: 1, description: 'Seconds between polls of `/token`.' },
    },
    additionalProperties: false,
  },
  ServerMetadata: {
    type: 'object',
    description:
      'OAuth 2.0 Authorization Server Metadata (RFC 8414 §2); every URL is at the gateway’s origin, the issuer.',
    required: [
      'issuer',
      'authorization_endpoint',
      'token_endpoint',
      'jwks_uri',
      'response_types_supported',
      'grant_types_supported',
      'code_challenge_methods_supported',
    ],
    properties: {
      issuer: url,
      authorization_endpoint: url,
      token_endpoint: url,
      jwks_uri: url,
      revocation_endpoint: url,
      introspection_endpoint: url,
      device_authorization_endpoint: url,
      registration_endpoint: url,
      pushed_authorization_request_endpoint: url,
      require_pushed_authorization_requests: {
        type: 'boolean',
        description: 'REQUIRE_PUSHED_AUTHORIZATION_REQUESTS: every client must use PAR.',
      },
      request_parameter_supported: { type: 'boolean' },
      request_object_signing_alg_values_supported: strings,
      require_signed_request_object: {
        type: 'boolean',
        const: true,
        description: 'Present when REQUIRE_SIGNED_REQUEST_OBJECT is set.',
      },
      userinfo_endpoint: url,
      end_session_endpoint: url,
      response_types_supported: strings,
      response_modes_supported: strings,
      grant_types_supported: strings,
      token_endpoint_auth_methods_supported: strings,
      code_challenge_methods_supported: strings,
      scopes_supported: strings,
      dpop_signing_alg_values_supported: strings,
      authorization_response_iss_parameter_supported: { type: 'boolean' },
      introspection_signing_alg_values_supported: strings,
    },
  },
  OpenIDConfiguration: {
    description: 'OpenID Connect Discovery 1.0 §3: the RFC 8414 metadata plus what an OpenID Provider adds.',
    allOf: [
      schemaRef('ServerMetadata'),
      {
        type: 'object',
        required: ['userinfo_endpoint', 'subject_types_supported', 'id_token_signing_alg_values_supported'],
        properties: {
          subject_types_supported: strings,
          id_token_signing_alg_values_supported: strings,
          claims_supported: strings,
          backchannel_logout_supported: {
            type: 'boolean',
            description: 'OpenID Connect Back-Channel Logout 1.0 §2.1.',
          },
          backchannel_logout_session_supported: { type: 'boolean' },
        },
      },
    ],
  },
  JWKSet: {
    type: 'object',
    description: 'RFC 7517 §5: the current signing key and, after a rotation, the previous one.',
    required: ['keys'],
    properties: {
      keys: {
        type: 'array',
        minItems: 1,
        items: {
          type: 'object',
          required: ['kty', 'kid'],
          properties: {
            kty: { type: 'string' },
            kid: { type: 'string' },
            alg: { type: 'string' },
            use: { type: 'string' },
            crv: { type: 'string' },
            x: { type: 'string' },
            y: { type: 'string' },
          },
          not: { anyOf: [{ required: ['d'] }, { required: ['p'] }, { required: ['q'] }] },
        },
      },
    },
  },
  UserInfo: {
    type: 'object',
    description:
      'OpenID Connect Core 1.0 §5.3.2: `name` with the `profile` scope, `email` and `email_verified` with `email`.',
    required: ['sub'],
    properties: {
      sub: { type: 'string' },
      name: { type: 'string' },
      email: { type: 'string', format: 'email' },
      email_verified: { type: 'boolean' },
    },
    additionalProperties: false,
  },
};
