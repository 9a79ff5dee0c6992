import { z } from 'zod/v4';

/** A grant's parameters besides `grant_type` and the client's authentication, one zod schema each. */
export type GrantParameters = Record<string, z.ZodType>;

/**
 * What a client sends to `POST /token` for one grant (RFC 6749 §4 and its extensions), declared once:
 * apps/auth parses the request with `parameters` (its descriptor's `form`), and the auth API document
 * (libs/api-docs) describes the form with their JSON Schema. It lives in a library because the document
 * is built where apps/auth cannot be imported.
 */
export interface GrantForm<T extends string = string, P extends GrantParameters = GrantParameters> {
  /** The `grant_type` value. */
  type: T;
  /** The form's schema name in the document's `components.schemas`. */
  schemaName: string;
  /** What the grant does, with its RFC. */
  description: string;
  /** Its name in the document's list of grants (`info.description`). */
  title: string;
  /**
   * Its parameters: a request must send the ones that are not `.optional()`. Each parameter may come once
   * (RFC 6749 §3.2) unless its schema is an array (a repeatable parameter such as RFC 8707's `resource`).
   */
  parameters: P;
}

/** Keeps the literal `type` and the parameters' types (the grant's handler reads them parsed). */
export function defineGrantForm<const T extends string, P extends GrantParameters>(
  form: GrantForm<T, P>,
): GrantForm<T, P> {
  return form;
}

/** What the grant's handler reads: its form's parameters, parsed. */
export type GrantFormValues<F extends GrantForm> = z.output<z.ZodObject<F['parameters']>>;

/** The names of the parameters of a form (a grant's, or another OAuth endpoint's) a request must send. */
export function requiredParameters(parameters: GrantParameters): string[] {
  return Object.entries(parameters)
    .filter(([, schema]) => !schema.safeParse(undefined).success)
    .map(([name]) => name);
}

/** Whether a parameter may be repeated (its schema is an array, optional or not). */
export function isRepeatable(schema: z.ZodType): boolean {
  return (schema instanceof z.ZodOptional ? schema.unwrap() : schema) instanceof z.ZodArray;
}
