import { GRANT_FORMS } from '@platform/oauth-grants';
import { clientRegistration } from '@platform/contracts';
import { GRANT_TYPES, GRANTS, grantFor } from '../../src/grants';
import { metadata } from '../../src/oauth/metadata-route';
import { openidConfiguration } from '../../src/oidc/discovery-route';
import { fakeWorld } from './fake-grant-deps';

// The registry of grants (grants/index.ts) is the one list: /token, client registration and the
// metadata documents (RFC 8414, OpenID Connect Discovery 1.0) read it.
describe('the registry of grants', () => {
  it('holds the grants of RFC 6749, RFC 8628, RFC 7523 and RFC 8693, once each', () => {
    expect([...GRANT_TYPES].sort()).toEqual([
      'authorization_code',
      'client_credentials',
      'refresh_token',
      'urn:ietf:params:oauth:grant-type:device_code',
      'urn:ietf:params:oauth:grant-type:jwt-bearer',
      'urn:ietf:params:oauth:grant-type:token-exchange',
    ]);
    expect(new Set(GRANT_TYPES).size).toBe(GRANTS.length);
  });

  it('has one grant per form of libs/oauth-grants (the forms the auth API document describes), in their order', () => {
    expect(GRANTS.map((grant) => grant.form)).toEqual([...GRANT_FORMS]);
    for (const grant of GRANTS) expect(grant.type).toBe(grant.form.type);
  });

  it('finds a grant by its grant_type, and none for a type it does not serve', () => {
    for (const grant of GRANTS) expect(grantFor(grant.type)).toBe(grant);
    expect(grantFor('password')).toBeUndefined();
    expect(grantFor('')).toBeUndefined();
  });

  it('says what each grant may issue and who may use it', () => {
    const summary = Object.fromEntries(
      GRANTS.map((g) => [g.type, { clients: g.clients, anonymous: Boolean(g.unauthenticatedClient), ...g.issues }]),
    );
    expect(summary).toEqual({
      authorization_code: { clients: 'any', anonymous: false, refreshToken: 'new-family', idToken: true },
      client_credentials: { clients: 'confidential', anonymous: false, refreshToken: 'never', idToken: false },
      refresh_token: { clients: 'any', anonymous: false, refreshToken: 'rotation', idToken: true },
      'urn:ietf:params:oauth:grant-type:device_code': {
        clients: 'any',
        anonymous: false,
        refreshToken: 'new-family',
        idToken: false,
      },
      'urn:ietf:params:oauth:grant-type:jwt-bearer': {
        clients: 'any',
        anonymous: true,
        refreshToken: 'never',
        idToken: false,
      },
      'urn:ietf:params:oauth:grant-type:token-exchange': {
        clients: 'confidential',
        anonymous: false,
        refreshToken: 'never',
        idToken: false,
      },
    });
  });

  it('is what both metadata documents advertise in grant_types_supported', () => {
    const { deps } = fakeWorld();
    expect(metadata(deps).grant_types_supported).toEqual(GRANT_TYPES);
    expect(openidConfiguration(deps).grant_types_supported).toEqual(GRANT_TYPES);
  });

  it('is what a client registration (admin API and CLI) may list, and nothing else', () => {
    const input = { name: 'App', type: 'confidential' as const };
    for (const type of GRANT_TYPES)
      expect(clientRegistration.safeParse({ ...input, grant_types: [type] }).success).toBe(true);
    expect(clientRegistration.safeParse({ ...input, grant_types: ['password'] }).success).toBe(false);
    expect(clientRegistration.safeParse({ ...input, grant_types: ['implicit'] }).success).toBe(false);
  });
});
