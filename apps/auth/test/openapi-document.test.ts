import { zodToJsonSchema } from 'zod-to-json-schema';
import { authOpenApi } from '@platform/api-docs';
import { adminAccountPatch } from '../src/admin/admin-accounts';
import { clientPatchInput } from '../src/admin/admin-clients';
import { newClientInput } from '../src/clients/clients';
import { GRANT_TYPES } from '../src/grants';
import { newInitialAccessTokenInput } from '../src/registration/initial-access-tokens';
import type { OAuthErrorCode } from '../src/oauth/oauth-error';

/**
 * The published document (libs/api-docs, `/openapi/auth.json`) against the code it describes: request
 * bodies the code checks with zod, the grant types /token serves, the error codes it answers with.
 */
type Schemas = Record<string, Record<string, unknown>>;
const document = authOpenApi() as { components: { schemas: Schemas }; paths: Record<string, object> };
const schemas = document.components.schemas;

/** zod-to-json-schema's output, as the document holds it (JSON Schema 2019-09 keywords all valid in 2020-12). */
function converted(schema: Parameters<typeof zodToJsonSchema>[0]): Record<string, unknown> {
  const { $schema: _dialect, ...rest } = zodToJsonSchema(schema, {
    target: 'jsonSchema2019-09',
    $refStrategy: 'none',
  }) as Record<string, unknown>;
  return rest;
}

describe('the auth API document and the code', () => {
  it('describes the administration bodies exactly as their zod schemas check them', () => {
    expect(schemas.ClientRegistration).toEqual(converted(newClientInput.strict()));
    // The patches' refinements (at least one field) are what `minProperties: 1` says.
    expect(schemas.ClientPatch).toEqual({ ...converted(clientPatchInput), minProperties: 1 });
    expect(schemas.AccountPatch).toEqual({ ...converted(adminAccountPatch), minProperties: 1 });
    expect(schemas.InitialAccessTokenRequest).toEqual(converted(newInitialAccessTokenInput));
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
});
