import { z } from 'zod/v4';
import { jsonSchemaOf } from '@platform/contracts';
import { GRANT_FORMS, isRepeatable, requiredParameters } from '@platform/oauth-grants';
import { schemaRef, type JsonObject } from '../speech/json-helpers';

const text = (maxLength: number, description?: string): JsonObject => ({
  type: 'string',
  minLength: 1,
  maxLength,
  ...(description ? { description } : {}),
});

/** Client authentication in the body (RFC 6749 §2.3.1 `client_secret_post`; RFC 7523 §2.2 `private_key_jwt` / `client_secret_jwt`; `client_id` alone for a public client). */
export const clientAuthenticationFields: JsonObject = {
  client_id: text(128),
  client_secret: text(512, 'client_secret_post (RFC 6749 §2.3.1).'),
  client_assertion_type: { type: 'string', const: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer' },
  client_assertion: text(
    8192,
    'A JWT signed with the client’s registered key (private_key_jwt) or its secret (client_secret_jwt), RFC 7523 §2.2; at most 10 minutes of life, used once.',
  ),
};

/**
 * The form bodies of `POST /token`, one per grant the server serves (libs/oauth-grants, whose forms
 * apps/auth's grant registry also holds; the metadata's `grant_types_supported`).
 */
export const grantFormSchemas: JsonObject = Object.fromEntries(
  GRANT_FORMS.map((form) => [
    form.schemaName,
    {
      type: 'object',
      description: form.description,
      required: ['grant_type', ...requiredParameters(form)],
      properties: {
        grant_type: { type: 'string', const: form.type },
        ...formProperties(form.parameters),
        ...clientAuthenticationFields,
      },
    },
  ]),
);

/** The JSON Schema of each parameter, from the form's zod schemas. */
function formProperties(parameters: z.ZodRawShape): JsonObject {
  return (jsonSchemaOf(z.object(parameters), 'input').properties ?? {}) as JsonObject;
}

/** The request body's choice of form, by `grant_type` (OpenAPI 3.1 §4.8.25). */
export const grantFormChoice: JsonObject = {
  oneOf: GRANT_FORMS.map((form) => schemaRef(form.schemaName)),
  discriminator: {
    propertyName: 'grant_type',
    mapping: Object.fromEntries(GRANT_FORMS.map((form) => [form.type, `#/components/schemas/${form.schemaName}`])),
  },
};

/** Form encoding of the repeatable (array) parameters: one `resource=` per value (OpenAPI 3.1 §4.8.15). */
export const repeatedFormFields: JsonObject = Object.fromEntries(
  GRANT_FORMS.flatMap((form) => Object.entries(form.parameters))
    .filter(([, schema]) => isRepeatable(schema))
    .map(([name]) => [name, { style: 'form', explode: true }]),
);
