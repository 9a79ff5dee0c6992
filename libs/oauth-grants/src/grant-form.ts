/** A JSON Schema, as the auth API document holds it. */
export type FormSchema = { [keyword: string]: FormSchemaValue };
type FormSchemaValue = string | number | boolean | FormSchemaValue[] | FormSchema;

/**
 * What a client sends to `POST /token` for one grant (RFC 6749 §4 and its extensions): the data the auth
 * API document (libs/api-docs) describes the form with, and the `form` of the grant's descriptor in
 * apps/auth. It lives in a library because the document is built where apps/auth cannot be imported.
 */
export interface GrantForm<T extends string = string> {
  /** The `grant_type` value. */
  type: T;
  /** The form's schema name in the document's `components.schemas`. */
  schemaName: string;
  /** What the grant does, with its RFC. */
  description: string;
  /** The parameters a request must send besides `grant_type` and the client's authentication. */
  required: readonly string[];
  /** Its parameters besides `grant_type` and the client's authentication. */
  parameters: Record<string, FormSchema>;
}

/** Keeps the literal `type`, so the list of forms gives a union of exactly its grant types. */
export function defineGrantForm<const T extends string>(form: GrantForm<T>): GrantForm<T> {
  return form;
}
