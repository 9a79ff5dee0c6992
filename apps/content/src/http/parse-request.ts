import type { z } from 'zod/v4';
import { ContentValidationError } from './rest-errors';

/**
 * Request bodies and query strings read through their contract (libs/contracts, content): a failure becomes
 * the REST API's 400 `{errors: {property: message}}`, one message per property, worded as the API always has.
 * Every value is checked for its exact type, so an operator object such as {"$gt": ""} is a validation error
 * naming the property and never reaches a MongoDB query.
 */
type Where = 'body' | 'query';

/** The standard messages; a check the contract words itself (an email, a URL, a closed list) keeps its own. */
function standardMessage(issue: z.core.$ZodRawIssue, where: Where): string | undefined {
  switch (issue.code) {
    case 'invalid_type':
      if (issue.expected === 'string' && issue.input == null) return 'This value should not be blank.';
      return `This value should be of type ${issue.expected === 'boolean' ? 'bool' : issue.expected}.`;
    case 'too_small':
      // Every text the API requires has a floor of 1 except the password (8), which has always said "blank" too.
      return 'This value should not be blank.';
    case 'too_big':
      return issue.origin === 'array'
        ? `This collection should contain ${issue.maximum} elements or less.`
        : `This value is too long. It should have ${issue.maximum} characters or less.`;
    case 'unrecognized_keys':
      return where === 'body' ? 'This field was not expected.' : 'This parameter is not supported.';
    default:
      return undefined;
  }
}

/** `tags[3]`, `author.name`; the body itself (a non-object) is `body`. */
function propertyOf(path: readonly PropertyKey[]): string {
  if (path.length === 0) return 'body';
  return path
    .map((part, i) => (typeof part === 'number' ? `[${part}]` : i === 0 ? String(part) : `.${String(part)}`))
    .join('');
}

/**
 * One message per property, unknown properties first; a property refused as a whole hides its items'
 * refusals (a list of too many tags is not also checked tag by tag).
 */
function errorsOf(issues: readonly z.core.$ZodIssue[]): Record<string, string> {
  const errors = new Map<string, string>();
  const add = (property: string, message: string) => {
    if (!errors.has(property)) errors.set(property, message);
  };
  for (const issue of issues) {
    if (issue.code === 'unrecognized_keys') for (const key of issue.keys) add(key, issue.message);
  }
  const refused = new Set(issues.map((issue) => propertyOf(issue.path)));
  for (const issue of issues) {
    if (issue.code === 'unrecognized_keys') continue;
    const itemOfRefused = issue.path.some((_, end) => end > 0 && refused.has(propertyOf(issue.path.slice(0, end))));
    if (itemOfRefused) continue;
    // The error map does not see where an issue sits; the body itself is refused here.
    const notAnObject = issue.path.length === 0 && issue.code === 'invalid_type';
    add(propertyOf(issue.path), notAnObject ? 'must be a JSON object' : issue.message);
  }
  // fromEntries, not assignment: a key named `__proto__` stays a property of the answer.
  return Object.fromEntries(errors);
}

/** A JSON body: every offending property named at once. */
export function parseBody<S extends z.ZodType>(schema: S, body: unknown): z.output<S> {
  const result = schema.safeParse(body, { error: (issue) => standardMessage(issue, 'body') });
  if (!result.success) throw new ContentValidationError(errorsOf(result.error.issues));
  return result.data;
}

/**
 * A query string: unknown parameters (`sort`, `tag[$gt]`) all named at once; otherwise the first parameter
 * in the contract's order that is wrong.
 */
export function parseQuery<S extends z.ZodType>(schema: S, query: unknown): z.output<S> {
  const result = schema.safeParse(query, { error: (issue) => standardMessage(issue, 'query') });
  if (result.success) return result.data;
  const unknown = result.error.issues.filter((issue) => issue.code === 'unrecognized_keys');
  throw new ContentValidationError(errorsOf(unknown.length > 0 ? unknown : result.error.issues.slice(0, 1)));
}
