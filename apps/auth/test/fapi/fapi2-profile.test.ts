import type { IncomingMessage } from 'node:http';
import { codeLifetime, fapi2AssertionProblem, fapi2RegistrationProblem } from '../../src/fapi/fapi2-profile';
import { wantsIntrospectionJwt } from '../../src/oauth/introspection-jwt';

const ISSUER = 'https://auth.example';

// The FAPI 2.0 profile's rules (docs/auth.md "FAPI 2.0 Security Profile"); the e2e test drives them through the endpoints.
describe('fapi2 profile rules', () => {
  it('registration: confidential, with keys, without a secret, never with PAR turned off', () => {
    const ok = { security_profile: 'fapi2', type: 'confidential', jwks: { keys: [{ kty: 'EC' }] }, secret: false };
    expect(fapi2RegistrationProblem(ok)).toBeUndefined();
    expect(fapi2RegistrationProblem({ ...ok, jwks: undefined, jwks_uri: 'https://rp.example/jwks' })).toBeUndefined();
    expect(fapi2RegistrationProblem({ ...ok, type: 'public' })).toMatch(/confidential/);
    expect(fapi2RegistrationProblem({ ...ok, jwks: undefined })).toMatch(/jwks/);
    expect(fapi2RegistrationProblem({ ...ok, secret: true })).toMatch(/secret: false/);
    expect(fapi2RegistrationProblem({ ...ok, require_pushed_authorization_requests: false })).toMatch(/pushed/);
    // Not the profile: nothing is asked.
    expect(fapi2RegistrationProblem({ type: 'public', secret: true })).toBeUndefined();
  });

  it('client assertions: PS256, ES256, EdDSA only, aud exactly the issuer', () => {
    for (const alg of ['PS256', 'ES256', 'EdDSA']) expect(fapi2AssertionProblem(alg, ISSUER, ISSUER)).toBeUndefined();
    expect(fapi2AssertionProblem('ES256', [ISSUER], ISSUER)).toBeUndefined();
    for (const alg of ['RS256', 'ES384', 'HS256']) expect(fapi2AssertionProblem(alg, ISSUER, ISSUER)).toMatch(/alg/);
    expect(fapi2AssertionProblem('ES256', `${ISSUER}/token`, ISSUER)).toMatch(/aud/);
    expect(fapi2AssertionProblem('ES256', [ISSUER, `${ISSUER}/token`], ISSUER)).toMatch(/aud/);
  });

  it('codes live at most 60 s for the profile, AUTHORIZATION_CODE_TTL for others', () => {
    expect(codeLifetime(600, { securityProfile: 'fapi2' })).toBe(60);
    expect(codeLifetime(30, { securityProfile: 'fapi2' })).toBe(30);
    expect(codeLifetime(600, { securityProfile: null })).toBe(600);
    expect(codeLifetime(600, null)).toBe(600);
  });
});

describe('wantsIntrospectionJwt (RFC 9701 §4)', () => {
  const accept = (value?: string) =>
    wantsIntrospectionJwt({ headers: value === undefined ? {} : { accept: value } } as IncomingMessage);

  it('is the Accept header naming the media type, among others or with parameters, unless q=0', () => {
    expect(accept('application/token-introspection+jwt')).toBe(true);
    expect(accept('application/json, Application/Token-Introspection+JWT;q=0.5')).toBe(true);
    expect(accept('application/token-introspection+jwt;q=0')).toBe(false);
    expect(accept('application/json')).toBe(false);
    expect(accept('*/*')).toBe(false);
    expect(accept()).toBe(false);
  });
});
