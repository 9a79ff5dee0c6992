import {
  adminAccountPatch,
  auditEntry,
  deviceAuthorizationResponse,
  initialAccessToken,
  introspectionResponse,
  oauthErrorBody,
  openIdProviderMetadata,
  publicAccount,
  publicClient,
  pushedAuthorizationResponse,
  serverMetadata,
  tokenResponse,
  userInfo,
  clientMetadata,
  clientPatch,
  clientRegistration,
  initialAccessTokenRequest,
  jsonSchemaOf,
  registeredClientMetadata,
} from '@platform/contracts';
import { authOpenApi } from '@platform/api-docs';
import { toPublicAccount, type AccountDoc } from '../src/accounts/account-model';
import { GRANT_TYPES } from '../src/grants';
import type { OAuthErrorCode } from '../src/oauth/oauth-error';

/**
 * The published document (libs/api-docs, `/openapi/auth.json`) against the code it describes: request
 * bodies the code checks with the auth contract's zod schemas, the grant types /token serves, the error
 * codes it answers with.
 */
type Schemas = Record<string, Record<string, unknown>>;
const document = authOpenApi() as { components: { schemas: Schemas }; paths: Record<string, object> };
const schemas = document.components.schemas;

describe('the auth API document and the code', () => {
  it('describes the administration bodies exactly as their zod schemas check them', () => {
    expect(schemas.ClientRegistration).toEqual(jsonSchemaOf(clientRegistration.strict(), 'input'));
    // The patches' refinements (at least one field) are what `minProperties: 1` says.
    expect(schemas.ClientPatch).toEqual({ ...jsonSchemaOf(clientPatch, 'input'), minProperties: 1 });
    expect(schemas.AccountPatch).toEqual({ ...jsonSchemaOf(adminAccountPatch, 'input'), minProperties: 1 });
    expect(schemas.InitialAccessTokenRequest).toEqual(jsonSchemaOf(initialAccessTokenRequest, 'input'));
  });

  it('describes every RFC 7591 metadata field dynamic registration reads, as its schema reads it', () => {
    const described = schemas.ClientMetadata!.properties as Record<string, unknown>;
    const read = { ...clientMetadata.shape, ...registeredClientMetadata.shape };
    expect(Object.keys(described).sort()).toEqual(Object.keys(read).sort());
    for (const [name, schema] of Object.entries(read)) expect(described[name]).toEqual(jsonSchemaOf(schema, 'input'));
  });

  it('has one /token form per grant the token endpoint serves', () => {
    const forms = Object.values(schemas).flatMap((schema) => {
      const grantType = (schema.properties as Record<string, { const?: unknown }> | undefined)?.grant_type?.const;
      return typeof grantType === 'string' ? [grantType] : [];
    });
    expect(forms.sort()).toEqual([...GRANT_TYPES].sort());
  });

  it('lists every OAuth error code the server answers with', () => {
    const codes = (schemas.OAuthError!.properties as { error: { enum: string[] } }).error.enum;
    const every: Record<OAuthErrorCode, true> = {
      invalid_request: true,
      invalid_client: true,
      invalid_grant: true,
      unauthorized_client: true,
      unsupported_grant_type: true,
      invalid_scope: true,
      invalid_target: true,
      access_denied: true,
      unsupported_response_type: true,
      server_error: true,
      temporarily_unavailable: true,
      unsupported_token_type: true,
      authorization_pending: true,
      slow_down: true,
      expired_token: true,
      invalid_token: true,
      insufficient_scope: true,
      invalid_dpop_proof: true,
      use_dpop_nonce: true,
      invalid_request_object: true,
      invalid_request_uri: true,
      invalid_redirect_uri: true,
      invalid_client_metadata: true,
      invalid_software_statement: true,
    };
    expect(codes).toEqual(expect.arrayContaining(Object.keys(every)));
  });

  it('describes the answers as the auth contract declares them', () => {
    const answers = {
      TokenResponse: tokenResponse,
      Introspection: introspectionResponse,
      PushedAuthorizationResponse: pushedAuthorizationResponse,
      DeviceAuthorization: deviceAuthorizationResponse,
      ServerMetadata: serverMetadata,
      UserInfo: userInfo,
      OAuthError: oauthErrorBody,
      Client: publicClient,
      Account: publicAccount,
      AuditEntry: auditEntry,
      InitialAccessToken: initialAccessToken,
    };
    const [metadata, provider] = (schemas.OpenIDConfiguration as { allOf: unknown[] }).allOf;
    expect([metadata, provider]).toEqual([
      { $ref: '#/components/schemas/ServerMetadata' },
      jsonSchemaOf(openIdProviderMetadata),
    ]);
    for (const [name, schema] of Object.entries(answers))
      expect([name, schemas[name]]).toEqual([name, jsonSchemaOf(schema)]);
  });

  it("shows an account in the contract's shape", () => {
    const account = toPublicAccount({
      _id: 'acc_1',
      name: 'Ada',
      email: 'ada@example.com',
      emailKey: 'ada@example.com',
      passwordHash: 'x',
      roles: ['USER'],
      status: 'active',
      plan: 'free',
      createdAt: new Date(0),
    } as AccountDoc);
    expect(publicAccount.strict().safeParse(account).success).toBe(true);
  });
});
