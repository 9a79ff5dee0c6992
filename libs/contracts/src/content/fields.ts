import { z } from 'zod/v4';

/**
 * The field shapes the content REST bodies share. Strings are trimmed before their length is checked (a
 * password and a post's content are kept as typed). Messages only for the checks a field adds itself; the
 * standard ones (blank, wrong type, too long) come from content's one error map
 * (apps/content/src/http/parse-request.ts).
 */
export const text = (max: number) => z.string().trim().min(1).max(max);
export const untrimmedText = (max: number) => z.string().min(1).max(max);

/** The email check, narrower than RFC 5321: one `@`, a dot in the domain, no spaces. */
const EMAIL = /^[^\s@]{1,64}@[^\s@]{1,255}\.[^\s@]{1,63}$/;
const NOT_AN_EMAIL = 'This value is not a valid email address.';
/** An email a client gives: required (registration) or optional (a profile, where "" is not one either). */
export const emailAddress = (required: boolean) =>
  (required ? z.string().trim().min(1) : z.string().trim()).max(320).regex(EMAIL, { error: NOT_AN_EMAIL });

function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}
/** An http(s) URL, or "" for none. */
export const httpUrlOrEmpty = (max: number) =>
  z
    .string()
    .trim()
    .max(max)
    .refine((url) => url === '' || isHttpUrl(url), { error: 'This value is not a valid URL.' });

/**
 * A value of a closed list, trimmed first; null is the same as left out. Declared around the list so the
 * document shows the list itself (`enum`).
 */
export const choiceOf = <const T extends readonly [string, ...string[]]>(values: T) =>
  z
    .preprocess(
      (value) => (value === null ? undefined : typeof value === 'string' ? value.trim() : value),
      z.enum(values, { error: CHOICE }).optional(),
    )
    .optional();
const CHOICE = (issue: { input?: unknown }) =>
  typeof issue.input === 'string'
    ? 'The value you selected is not a valid choice.'
    : 'This value should be of type string.';

/** A property a client may send back from a resource it read (`id`, `createdAt` …): accepted and ignored. */
export const readOnlyEcho = z.unknown().optional().meta({ description: 'Read-only: a value sent back is ignored.' });

/** ISO 8601 instants as the API writes them (`Date.prototype.toISOString`). */
export const instant = z.iso.datetime();
