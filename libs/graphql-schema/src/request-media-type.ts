/**
 * The one body encoding of a GraphQL-over-HTTP POST: JSON (RFC 8259) in UTF-8, as the GraphQL over
 * HTTP specification asks. The gateway judges a request's operation from its body (a mutation needs
 * `content:write`) and content executes it: were they to decode the bytes differently (content's
 * body parser honours `charset=utf-16le`), the operation judged would not be the one run. Both refuse
 * every other encoding with this one rule.
 *
 * Strict on purpose: a header it does not fully understand (a parameter without a value, a quoted
 * value with escapes, the same parameter twice) is refused rather than guessed at, so whatever it
 * accepts any other parser of the header reads as UTF-8 JSON too.
 */
export const GRAPHQL_REQUEST_MEDIA_TYPE = 'application/json';

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** Why a POST body with this Content-Type is refused (for a 415), or null when it is UTF-8 JSON. */
export function graphqlBodyMediaTypeProblem(contentType: string | undefined): string | null {
  const expected = `send ${GRAPHQL_REQUEST_MEDIA_TYPE} (charset utf-8, or none)`;
  if (contentType === undefined) return `the request has no Content-Type: ${expected}`;
  const [essence = '', ...parameters] = contentType.split(';');
  if (essence.trim().toLowerCase() !== GRAPHQL_REQUEST_MEDIA_TYPE)
    return `Content-Type ${essence.trim() || '(empty)'} is not supported: ${expected}`;
  const seen = new Set<string>();
  for (const parameter of parameters) {
    // `application/json;` (an empty parameter list) says nothing.
    if (parameter.trim() === '') continue;
    const equals = parameter.indexOf('=');
    const name = (equals < 0 ? parameter : parameter.slice(0, equals)).trim().toLowerCase();
    let value = equals < 0 ? '' : parameter.slice(equals + 1).trim();
    if (value.length >= 2 && value.startsWith('"') && value.endsWith('"')) value = value.slice(1, -1);
    if (!TOKEN.test(name) || !TOKEN.test(value) || seen.has(name))
      return `the Content-Type's parameters could not be read: ${expected}`;
    seen.add(name);
    if (name === 'charset' && value.toLowerCase() !== 'utf-8') return `charset ${value} is not supported: ${expected}`;
  }
  return null;
}
