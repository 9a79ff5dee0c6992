import { z } from 'zod/v4';
import { clientAuthentication, jsonSchemaOf } from '@platform/contracts';
import { GRANT_FORMS, isRepeatable, requiredParameters } from '@platform/oauth-grants';
import { schemaRef, type JsonObject } from '../speech/json-helpers';

/** Client authentication in the body (libs/contracts: what auth parses). */
export const clientAuthenticationFields: JsonObject = formProperties(clientAuthentication);

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
      required: ['grant_type', ...requiredParameters(form.parameters)],
      properties: {
        grant_type: { type: 'string', const: form.type },
        ...formProperties(form.parameters),
        ...clientAuthenticationFields,
      },
    },
  ]),
);

/** The JSON Schema of each parameter of a form, from its zod schemas. */
export function formProperties(parameters: z.ZodRawShape): JsonObject {
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
