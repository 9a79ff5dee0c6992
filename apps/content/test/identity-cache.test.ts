import { signIdentity, verifyIdentity, type Identity } from '@platform/identity';
import { createIdentityCache } from '../src/identity/identity-cache';

const SECRET = 'identity-cache-test-secret-0123456789abcdef';
const alice: Identity = { sub: 'alice', roles: ['USER'], scope: 'content:read', method: 'bearer_jwt' };

function claimsOf(header: string): { iat: number; exp: number } {
  return JSON.parse(Buffer.from(header.split('.')[1]!, 'base64url').toString('utf8')) as { iat: number; exp: number };
}

describe('identity cache (verified headers by their exact bytes)', () => {
  it('answers for a verified header until its exp or iat + max age, whichever is first, then forgets it', async () => {
    const header = await signIdentity(alice, SECRET);
    const { iat, exp } = claimsOf(header);
    const identity = await verifyIdentity(header, SECRET);
    const cache = createIdentityCache();
    cache.put(header, identity, 60, iat * 1000);
    expect(cache.get(header, iat * 1000)).toEqual(identity);
    expect(cache.get(header, Math.min(exp, iat + 60) * 1000 - 1)).toEqual(identity);
    expect(cache.get(header, Math.min(exp, iat + 60) * 1000)).toBeUndefined();
    // Forgotten, not only hidden: an earlier clock does not bring it back.
    expect(cache.get(header, iat * 1000)).toBeUndefined();

    const short = createIdentityCache();
    short.put(header, identity, 10, iat * 1000);
    expect(short.get(header, (iat + 10) * 1000 - 1)).toEqual(identity);
    expect(short.get(header, (iat + 10) * 1000)).toBeUndefined();
  });

  it('knows only exact bytes, stores nothing already expired or without exp/iat, and keeps at most its bound', async () => {
    const header = await signIdentity(alice, SECRET);
    const { iat, exp } = claimsOf(header);
    const identity = await verifyIdentity(header, SECRET);
    const cache = createIdentityCache(2);
    cache.put(header, identity, 60, iat * 1000);
    expect(cache.get(`${header} `, iat * 1000)).toBeUndefined();
    expect(cache.get(header.slice(0, -1), iat * 1000)).toBeUndefined();

    const late = createIdentityCache();
    late.put(header, identity, 60, exp * 1000);
    expect(late.get(header, iat * 1000)).toBeUndefined();

    const unbounded = `${Buffer.from('{}').toString('base64url')}.${Buffer.from(JSON.stringify({ sub: 'x' })).toString('base64url')}.sig`;
    const noClaims = createIdentityCache();
    noClaims.put(unbounded, identity, 60, iat * 1000);
    expect(noClaims.get(unbounded, iat * 1000)).toBeUndefined();

    const others = await Promise.all(['bob', 'carol'].map((sub) => signIdentity({ ...alice, sub }, SECRET)));
    for (const other of others) cache.put(other, { ...alice, sub: other }, 60, iat * 1000);
    expect(cache.get(header, iat * 1000)).toBeUndefined();
    expect(cache.get(others[1]!, iat * 1000)).toBeDefined();
  });
});
