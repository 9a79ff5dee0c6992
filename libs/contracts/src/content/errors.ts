import { z } from 'zod/v4';

/**
 * The content REST API's three error shapes (docs/content.md, "REST /api/v1"): `{errors: {property: message}}`
 * for validation, `{error: message}` for 403 and 404, `{error: {code, message}}` for anything else.
 */
export const ValidationError = z.strictObject({ errors: z.record(z.string(), z.string()) }).meta({
  description: 'Every offending property named, with a message for people.',
  example: { errors: { title: 'This value should not be blank.' } },
});
export const SimpleError = z.strictObject({ error: z.string() }).meta({ example: { error: 'Post not found' } });
export const CodedError = z
  .strictObject({
    error: z.strictObject({
      code: z.int().min(400).max(599).meta({ description: 'The HTTP status.' }),
      message: z.string(),
    }),
  })
  .meta({ example: { error: { code: 401, message: 'Authentication required' } } });
export type ValidationError = z.output<typeof ValidationError>;
export type SimpleError = z.output<typeof SimpleError>;
export type CodedError = z.output<typeof CodedError>;
