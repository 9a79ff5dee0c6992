import fc from 'fast-check';
import { nonCanonicalPath } from '../src/routing/canonical-path';

describe('canonical request paths (routing decides on the path the upstream will see)', () => {
  it.each([
    '/jwks',
    '/jwks/',
    '/api/v1/posts?page=2&size=10',
    '/api/v1/posts/..hidden',
    '/v1/voices/21m00Tcm4TlvDq8ikWAM',
    '/authorize?redirect_uri=http%3A%2F%2Fx%2F..%2Fy',
    '/a/...',
    '/a/.well-known',
  ])('%s is routed', (path) => {
    expect(nonCanonicalPath(path)).toBeUndefined();
  });

  it.each([
    ['/jwks/../internal/x', /\. or \.\./],
    ['/jwks/./x', /\. or \.\./],
    ['/jwks/..', /\. or \.\./],
    ['/jwks/%2e%2e/internal', /\. or \.\./],
    ['/jwks/%2E%2e/internal', /\. or \.\./],
    ['/jwks/.%2E/internal', /\. or \.\./],
    ['/jwks/%2e/internal', /\. or \.\./],
    ['/jwks\\..\\internal', /backslash/],
    ['/jwks/..%2finternal', /encoded slash/],
    ['/jwks/..%2Finternal', /encoded slash/],
    ['/jwks/..%5Cinternal', /encoded slash/],
    ['//internal', /empty segments/],
    ['/jwks//x', /empty segments/],
    ['jwks', /start with \//],
    ['http://elsewhere/internal', /start with \//],
    ['*', /start with \//],
  ])('%s is refused', (path, why) => {
    expect(nonCanonicalPath(path)).toMatch(why);
  });

  it('a routed path is the path the WHATWG URL parser sends (no segment resolved away or split)', () => {
    const segment = fc.oneof(
      fc.constantFrom('.', '..', '%2e', '%2E%2e', '.%2e', '', '\\', '%2f', '%5c', 'jwks', 'internal', 'a.b', '...'),
      fc.stringMatching(/^[A-Za-z0-9._~%-]{0,6}$/),
    );
    fc.assert(
      fc.property(fc.array(segment, { minLength: 1, maxLength: 6 }), (segments) => {
        const path = `/${segments.join('/')}`;
        if (nonCanonicalPath(path) !== undefined) return;
        const sent = new URL(`http://upstream${path}`).pathname;
        expect(sent).toBe(path);
      }),
      { numRuns: 2000, seed: 20261124 },
    );
  });
});
