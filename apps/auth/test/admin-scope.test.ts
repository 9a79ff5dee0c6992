import { grantableScopes } from '../src/admin/admin-scope';

// Who may hold the admin scope (docs/auth.md "Administration"): decided at issuance for every grant.
describe('grantableScopes', () => {
  const asked = ['admin', 'content:read'];

  it('keeps admin for an ADMIN account', () => {
    expect(grantableScopes(asked, { sub: 'acc-1', clientId: 'console', roles: ['ADMIN', 'USER'] })).toEqual(asked);
  });

  it('drops admin, and only admin, for any other account, with roles or without', () => {
    expect(grantableScopes(asked, { sub: 'acc-2', clientId: 'console', roles: ['USER', 'MODERATOR'] })).toEqual([
      'content:read',
    ]);
    expect(grantableScopes(asked, { sub: 'acc-2', clientId: 'console', roles: [] })).toEqual(['content:read']);
  });

  it("keeps admin for a client's own token (its registration already bounds its scopes)", () => {
    expect(grantableScopes(['admin'], { sub: 'ops-bot', clientId: 'ops-bot' })).toEqual(['admin']);
  });

  it('drops admin for an account whose id equals the client id (roles known: it is an account token)', () => {
    expect(grantableScopes(['admin'], { sub: 'same', clientId: 'same', roles: ['USER'] })).toEqual([]);
  });

  it('leaves scopes without admin untouched', () => {
    const scopes = ['speech:read'];
    expect(grantableScopes(scopes, { sub: 'x', clientId: 'y', roles: [] })).toBe(scopes);
  });
});
