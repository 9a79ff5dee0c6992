/**
 * What a log line must never carry: credentials (cookies, API keys, bearer and DPoP tokens, client
 * secrets, passwords) and the one-time values of OAuth (authorization codes, device and user codes,
 * refresh tokens, `state`). Logs are read by more people, and kept longer, than the requests they
 * describe. Two layers: the request logger's serializers log URLs and headers already redacted
 * (`redactUrl`, `redactHeaders`), and every serialized line of every logger passes `scrubSecrets`,
 * which catches the same values wherever else they turn up (an error message, a URL in a field of
 * its own, a kafkajs line).
 */

export const REDACTED = '[redacted]';

/**
 * Query parameters whose values are logged as sent: paging, formats and OAuth request parameters
 * that name things without granting anything. Every other parameter's value is logged as
 * `[redacted]` (its name stays): an unknown parameter is assumed to be secret. `state` is redacted
 * (RFC 6749 §10.12: it binds a callback to the user agent's session), so are `code`, tokens, keys,
 * GraphQL `variables` and free-text searches.
 */
const LOGGED_PARAMS: ReadonlySet<string> = new Set([
  'page',
  'size',
  'limit',
  'offset',
  'sort',
  'order',
  'page_size',
  'category',
  'tag',
  'status',
  'output_format',
  'optimize_streaming_latency',
  'enable_logging',
  'model_id',
  'voice_id',
  'show_legacy',
  'start_after_history_item_id',
  'response_type',
  'response_mode',
  'scope',
  'client_id',
  'redirect_uri',
  'code_challenge_method',
  'prompt',
  'grant_type',
  'error',
  'error_description',
  'operationName',
]);

function paramName(raw: string): string {
  try {
    return decodeURIComponent(raw.replace(/\+/g, ' '));
  } catch {
    return raw;
  }
}

/** A URL (absolute or a request target) with every query value not on the logged list replaced, and any fragment dropped. */
export function redactUrl(url: string): string {
  const hash = url.indexOf('#');
  const withoutFragment = hash === -1 ? url : url.slice(0, hash);
  const fragment = hash === -1 ? '' : `#${REDACTED}`;
  const q = withoutFragment.indexOf('?');
  if (q === -1) return `${withoutFragment}${fragment}`;
  const query = withoutFragment
    .slice(q + 1)
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      if (eq === -1) return pair;
      const name = pair.slice(0, eq);
      const value = pair.slice(eq + 1);
      return value === '' || LOGGED_PARAMS.has(paramName(name)) ? pair : `${name}=${REDACTED}`;
    })
    .join('&');
  return `${withoutFragment.slice(0, q + 1)}${query}${fragment}`;
}

/** Headers whose whole value is a credential (both directions). */
const SECRET_HEADERS: ReadonlySet<string> = new Set([
  'authorization',
  'proxy-authorization',
  'cookie',
  'set-cookie',
  'xi-api-key',
  'dpop',
  'x-platform-identity',
  'x-internal-secret',
]);
/** Headers whose value is a URL, which may carry a code or token in its query (a redirect to a client's callback). */
const URL_HEADERS: ReadonlySet<string> = new Set(['location', 'content-location', 'refresh']);

type HeaderValue = string | number | string[] | undefined;

/** A copy of `headers` fit for a log line: credentials replaced, URLs redacted (`redactUrl`). */
export function redactHeaders(headers: Record<string, HeaderValue> | undefined): Record<string, HeaderValue> {
  const out: Record<string, HeaderValue> = {};
  for (const [name, value] of Object.entries(headers ?? {})) {
    const lower = name.toLowerCase();
    if (SECRET_HEADERS.has(lower)) out[name] = REDACTED;
    else if (URL_HEADERS.has(lower) && typeof value === 'string') out[name] = redactUrl(value);
    else out[name] = value;
  }
  return out;
}

/** `name=value` pairs (query strings, form bodies, cookies) whose value is secret, wherever they appear in a line. */
const SECRET_PAIR =
  /(?<![A-Za-z0-9_.-])(code|access_token|refresh_token|id_token|token|state|xi_api_key|api_key|apikey|client_secret|password|device_code|user_code|code_verifier|assertion|subject_token|actor_token|session|sid|auth_sid|csrf|auth_csrf)=[^&;\s"\\#]+/gi;
/** JSON members named for a credential: their string (or string array) value goes. */
const SECRET_MEMBER =
  /"(password|client_secret|access_token|refresh_token|id_token|token|code_verifier|xi_api_key|api_key|apiKey|cookie|set-cookie|authorization|proxy-authorization|x-platform-identity|x-internal-secret|dpop|device_code|user_code|subject_token|actor_token|assertion|secret)":(?:"(?:[^"\\]|\\.)*"|\[(?:"(?:[^"\\]|\\.)*",?)*\])/gi;
/** Compact JWS/JWE (every JWT begins `eyJ`, the encoding of `{"`). */
const JWT = /eyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]*\.[A-Za-z0-9_-]*(?:\.[A-Za-z0-9_-]*\.[A-Za-z0-9_-]*)?/g;
/** The platform's own secrets, recognisable by prefix: API keys, refresh tokens, device codes, client secrets. */
const PREFIXED_SECRET = /(?<![A-Za-z0-9])(sk|rt|dc|cs)_[A-Za-z0-9_-]{16,}/g;
/** The password of a URL's userinfo (`redis://:pw@host`, `mongodb://user:pw@host`), as connection errors may print it. */
const URL_PASSWORD = /([a-z][a-z0-9+.-]*:\/\/[^/\s:@"\\]*:)[^@\s/"\\]+@/gi;
/** Credentials after an HTTP authentication scheme, wherever a header value was copied into text. */
const AUTH_SCHEME = /\b(Bearer|DPoP|Basic)\s+[A-Za-z0-9._~+/=-]{8,}/g;
/**
 * Anything else token-shaped: 32 or more base64url characters in one run, mixing upper and lower
 * case (random tokens, session ids, hashes). UUIDs, ObjectIds, hex ids and words do not match.
 */
const OPAQUE_TOKEN =
  /(?<![A-Za-z0-9_-])(?=[A-Za-z0-9_-]*[A-Z])(?=[A-Za-z0-9_-]*[a-z])[A-Za-z0-9_-]{32,}(?![A-Za-z0-9_-])/g;

/**
 * `text` (a serialized log line) with every secret-shaped value replaced by `[redacted]`. Never
 * adds or removes a quote or backslash outside a redacted JSON member, so a JSON line stays JSON.
 */
export function scrubSecrets(text: string): string {
  return text
    .replace(SECRET_MEMBER, (_m, name: string) => `"${name}":"${REDACTED}"`)
    .replace(JWT, REDACTED)
    .replace(PREFIXED_SECRET, (_m, prefix: string) => `${prefix}_${REDACTED}`)
    .replace(AUTH_SCHEME, (_m, scheme: string) => `${scheme} ${REDACTED}`)
    .replace(URL_PASSWORD, (_m, before: string) => `${before}${REDACTED}@`)
    .replace(SECRET_PAIR, (_m, name: string) => `${name}=${REDACTED}`)
    .replace(OPAQUE_TOKEN, REDACTED);
}
