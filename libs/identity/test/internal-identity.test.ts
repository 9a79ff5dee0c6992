import { SignJWT } from 'jose';
import { IdentityError, signIdentity, verifyIdentity } from '@platform/identity';

const secret = 's'.repeat(40);

describe('internal identity header', () => {
  it('round-trips an identity', async () => {
    const token = await signIdentity(
      { sub: 'acc1', roles: ['USER'], scope: 'content:read', method: 'bearer_jwt', plan: 'free' },
      secret,
    );
    await expect(verifyIdentity(token, secret)).resolves.toEqual({
      sub: 'acc1',
      roles: ['USER'],
      scope: 'content:read',
      method: 'bearer_jwt',
      plan: 'free',
    });
  });

  it('keeps anonymous callers anonymous', async () => {
    const token = await signIdentity({ roles: [], scope: '', method: 'anonymous' }, secret);
    const identity = await verifyIdentity(token, secret);
    expect(identity.sub).toBeUndefined();
    expect(identity.method).toBe('anonymous');
  });

  it('carries the client address the gateway resolved (services never read X-Forwarded-For)', async () => {
    const token = await signIdentity(
      { roles: [], scope: '', method: 'anonymous', clientAddress: '203.0.113.9' },
      secret,
    );
    await expect(verifyIdentity(token, secret)).resolves.toEqual({
      roles: [],
      scope: '',
      method: 'anonymous',
      clientAddress: '203.0.113.9',
    });
    const without = await signIdentity({ roles: [], scope: '', method: 'internal' }, secret);
    expect((await verifyIdentity(without, secret)).clientAddress).toBeUndefined();
  });

  it('rejects a missing header, another key, and a token not made by the gateway', async () => {
    await expect(verifyIdentity(undefined, secret)).rejects.toThrow(IdentityError);
    const other = await signIdentity({ sub: 'x', roles: ['ADMIN'], scope: '', method: 'internal' }, 'o'.repeat(40));
    await expect(verifyIdentity(other, secret)).rejects.toThrow(IdentityError);
    const forged = await new SignJWT({ roles: ['ADMIN'], method: 'internal' })
      .setProtectedHeader({ alg: 'HS256' })
      .setAudience('platform-internal')
      .setIssuedAt()
      .setExpirationTime('1m')
      .sign(new TextEncoder().encode(secret));
    await expect(verifyIdentity(forged, secret)).rejects.toThrow(IdentityError);
  });

  it('rejects an expired identity', async () => {
    const old = await new SignJWT({ roles: [], scope: '', method: 'anonymous' })
      .setProtectedHeader({ alg: 'HS256', typ: 'platform-identity+jwt' })
      .setIssuer('platform-gateway')
      .setAudience('platform-internal')
      .setIssuedAt(Math.floor(Date.now() / 1000) - 600)
      .setExpirationTime(Math.floor(Date.now() / 1000) - 500)
      .sign(new TextEncoder().encode(secret));
    await expect(verifyIdentity(old, secret)).rejects.toThrow(/rejected/);
  });
});
