import SwaggerParser from '@apidevtools/swagger-parser';
import { z } from 'zod/v4';
import { ROLES } from '@platform/identity';
import { ACCOUNT_STATUSES, authorizationRequest, jsonSchemaOf } from '@platform/contracts';
import { GRANT_FORMS, requiredParameters } from '@platform/oauth-grants';
import { authOpenApi } from '../src/auth';

type Operations = Record<string, Record<string, { operationId?: string }>>;

describe('the auth API document', () => {
  it('is a valid OpenAPI 3.1 document whose references all resolve', async () => {
    await expect(
      SwaggerParser.validate(structuredClone(authOpenApi()) as unknown as Parameters<typeof SwaggerParser.validate>[0]),
    ).resolves.toBeDefined();
  });

  it('has a unique operationId on every operation', () => {
    const ids = Object.values(authOpenApi().paths as Operations).flatMap((item) =>
      Object.entries(item)
        .filter(([method]) => method !== 'parameters')
        .map(([, operation]) => operation.operationId),
    );
    expect(ids.every((id) => typeof id === 'string')).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('offers /token one form per grant of libs/oauth-grants, chosen by grant_type, with its parameters', () => {
    type Form = { oneOf: { $ref: string }[]; discriminator: { mapping: Record<string, string> } };
    const document = authOpenApi() as {
      paths: Record<string, { post: { requestBody: { content: Record<string, { schema: Form }> } } }>;
      components: { schemas: Record<string, { required: string[]; properties: Record<string, unknown> }> };
    };
    const choice = document.paths['/token']!.post.requestBody.content['application/x-www-form-urlencoded']!.schema;
    const refs = GRANT_FORMS.map((form) => `#/components/schemas/${form.schemaName}`);
    expect(choice.oneOf.map((ref) => ref.$ref)).toEqual(refs);
    expect(choice.discriminator.mapping).toEqual(
      Object.fromEntries(GRANT_FORMS.map((form, i) => [form.type, refs[i]])),
    );
    for (const form of GRANT_FORMS) {
      const schema = document.components.schemas[form.schemaName]!;
      expect(schema.required).toEqual(['grant_type', ...requiredParameters(form.parameters)]);
      const parameters = Object.entries(form.parameters).map(([name, zod]) => [name, jsonSchemaOf(zod, 'input')]);
      expect(schema.properties).toMatchObject({ grant_type: { const: form.type }, ...Object.fromEntries(parameters) });
    }
  });

  it("lists the grants of libs/oauth-grants in its description, in the forms' order", () => {
    const { description } = authOpenApi().info as { description: string };
    expect(description).toContain(`Grants: ${GRANT_FORMS.map((form) => form.title).join(', ')}. `);
  });

  it('gives accounts the roles libs/identity defines', () => {
    type Roles = { properties: { roles: { items: { enum: string[] } } } };
    const schemas = (authOpenApi() as { components: { schemas: Record<string, Roles> } }).components.schemas;
    expect(schemas.Account!.properties.roles.items.enum).toEqual([...ROLES]);
    expect(schemas.AccountPatch!.properties.roles.items.enum).toEqual([...ROLES]);
  });

  it('gives accounts the statuses of the auth contract', () => {
    type Status = { properties: { status: { enum: string[] } } };
    const schemas = (authOpenApi() as { components: { schemas: Record<string, Status> } }).components.schemas;
    expect(schemas.Account!.properties.status.enum).toEqual([...ACCOUNT_STATUSES]);
    expect(schemas.AccountPatch!.properties.status.enum).toEqual([...ACCOUNT_STATUSES]);
  });

  it("describes /authorize's query and /par's form with the authorization request's contract", () => {
    type Parameter = { name: string; required: boolean; schema: Record<string, unknown> };
    const document = authOpenApi() as {
      paths: Record<string, { get: { parameters: Parameter[] } }>;
      components: { schemas: Record<string, { properties: Record<string, unknown> }> };
    };
    const contract = jsonSchemaOf(z.object(authorizationRequest), 'input') as {
      properties: Record<string, { description?: string }>;
      required: string[];
    };
    const query = document.paths['/authorize']!.get.parameters;
    expect(query.map((parameter) => parameter.name)).toEqual(Object.keys(authorizationRequest));
    for (const { name, required, schema } of query) {
      const { description: _description, ...expected } = contract.properties[name]!;
      expect({ name, required, schema }).toEqual({
        name,
        required: contract.required.includes(name),
        // In the URL a request object is bounded by the server's 16 KiB of request line and headers, not by the
        // form's 16 KiB: the document promises 8 KiB there (a larger one goes by /par).
        schema: name === 'request' ? { ...expected, maxLength: 8192 } : expected,
      });
    }
    // RFC 9126 §2.1: the client is its authentication, and a request_uri is refused at /par.
    const pushed = document.components.schemas.PushedAuthorizationForm!.properties;
    for (const name of Object.keys(authorizationRequest).filter((name) => name !== 'request_uri'))
      expect(pushed[name]).toBeDefined();
    expect(pushed.request_uri).toBeUndefined();
    expect(pushed.dpop_jkt).toEqual(contract.properties.dpop_jkt);
  });
});
