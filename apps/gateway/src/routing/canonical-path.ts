/**
 * The gateway routes by path (which prefix, which upstream, which credentials are needed) and then
 * forwards the path as the client wrote it. Anything between here and the service's router that
 * resolves the path differently (the WHATWG URL parser resolves `..`, `%2e%2e` and `\`; a service may
 * decode `%2f`) would make the check and the destination disagree: `/jwks/../internal/x` passes the
 * public `/jwks` prefix and arrives as `/internal/x`. So a path is routed only when it is already in
 * its one canonical form (RFC 3986 §5.2.4 leaves nothing to remove), and refused otherwise.
 */

/** A dot segment, written plainly or percent-encoded (WHATWG URL treats `%2e` as `.` here). */
const DOT_SEGMENT = /^(?:\.|%2e){1,2}$/i;
/** Separators a parser may turn into `/`, encoded or not. */
const HIDDEN_SEPARATOR = /\\|%2f|%5c/i;

/** Why the path of `rawUrl` (a request target: path and optional query) is not canonical; undefined when it is. */
export function nonCanonicalPath(rawUrl: string): string | undefined {
  const query = rawUrl.indexOf('?');
  const path = query === -1 ? rawUrl : rawUrl.slice(0, query);
  if (!path.startsWith('/')) return 'the request path must start with /';
  if (path.includes('#')) return 'the request path must not contain #';
  if (HIDDEN_SEPARATOR.test(path)) return 'the request path must not contain backslashes or encoded slashes';
  const segments = path.split('/');
  // segments[0] is the empty string before the leading slash; an empty last one is a trailing slash.
  for (let i = 1; i < segments.length; i += 1) {
    const segment = segments[i]!;
    if (segment === '' && i < segments.length - 1) return 'the request path must not contain empty segments (//)';
    if (DOT_SEGMENT.test(segment)) return 'the request path must not contain . or .. segments';
  }
  return undefined;
}
