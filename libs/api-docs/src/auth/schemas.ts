import {
  authorizationRequest,
  deviceAuthorizationForm,
  deviceAuthorizationResponse,
  introspectionResponse,
  jsonSchemaOf,
  openIdProviderMetadata,
  pushedAuthorizationResponse,
  serverJwks,
  serverMetadata,
  tokenForm,
  tokenResponse,
  userInfo,
} from '@platform/contracts';
import { requiredParameters } from '@platform/oauth-grants';
import { schemaRef, type JsonObject } from '../speech/json-helpers';
import { clientAuthenticationFields, formProperties } from './grant-forms';

// RFC 9126 §2.1: the client identifies itself by its authentication, and a request_uri is refused.
const { client_id: _client, request_uri: _requestUri, ...pushedAuthorizationForm } = authorizationRequest;

/** The forms and answers of the OAuth 2.0 and OpenID Connect endpoints, from the auth contract (libs/contracts/src/auth). */
export const oauthSchemas: JsonObject = {
  TokenResponse: jsonSchemaOf(tokenResponse) as JsonObject,
  TokenForm: {
    type: 'object',
    description: 'The token to revoke (RFC 7009 §2.1) or introspect (RFC 7662 §2.1), and the client’s authentication.',
    required: requiredParameters(tokenForm),
    properties: { ...formProperties(tokenForm), ...clientAuthenticationFields },
  },
  Introspection: jsonSchemaOf(introspectionResponse) as JsonObject,
  PushedAuthorizationForm: {
    type: 'object',
    description:
      'RFC 9126 §2.1: the parameters `/authorize` takes (checked as it checks them), or a signed request object (`request`, RFC 9101) carrying them, and the client’s authentication as at `/token`. `request_uri` is refused here.',
    properties: { ...formProperties(pushedAuthorizationForm), ...clientAuthenticationFields },
  },
  PushedAuthorizationResponse: jsonSchemaOf(pushedAuthorizationResponse) as JsonObject,
  DeviceAuthorizationForm: {
    type: 'object',
    properties: { ...formProperties(deviceAuthorizationForm), ...clientAuthenticationFields },
  },
  DeviceAuthorization: jsonSchemaOf(deviceAuthorizationResponse) as JsonObject,
  ServerMetadata: jsonSchemaOf(serverMetadata) as JsonObject,
  OpenIDConfiguration: {
    description: 'OpenID Connect Discovery 1.0 §3: the RFC 8414 metadata plus what an OpenID Provider adds.',
    allOf: [schemaRef('ServerMetadata'), jsonSchemaOf(openIdProviderMetadata) as JsonObject],
  },
  JWKSet: jsonSchemaOf(serverJwks) as JsonObject,
  UserInfo: jsonSchemaOf(userInfo) as JsonObject,
};
