import { looksLikeJwt, readCredential } from '../src/auth/credentials';

const b64 = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
const jwt = `${b64({ alg: 'ES256', typ: 'at+jwt' })}.${b64({ sub: 'a' })}.c2lnbmF0dXJl`;
const apiKey = `sk_${'a'.repeat(64)}`;

describe('readCredential', () => {
  it('finds no credential on a bare request', () => {
    expect(readCredential({})).toEqual({ kind: 'none' });
  });
  it('reads xi-api-key', () => {
    expect(readCredential({ 'xi-api-key': apiKey })).toEqual({ kind: 'api_key', key: apiKey });
  });
  it('tells a bearer API key from a bearer JWT', () => {
    expect(readCredential({ authorization: `Bearer ${apiKey}` })).toEqual({ kind: 'api_key', key: apiKey });
    expect(readCredential({ authorization: `Bearer ${jwt}` })).toEqual({ kind: 'jwt', token: jwt, scheme: 'Bearer' });
    expect(readCredential({ authorization: `bearer ${jwt}` })).toMatchObject({ kind: 'jwt', scheme: 'Bearer' });
  });
  it('reads a DPoP token with and without its proof', () => {
    expect(readCredential({ authorization: `DPoP ${jwt}`, dpop: 'proof' })).toEqual({
      kind: 'jwt',
      token: jwt,
      scheme: 'DPoP',
      proof: 'proof',
    });
    expect(readCredential({ authorization: `DPoP ${jwt}` })).toEqual({ kind: 'jwt', token: jwt, scheme: 'DPoP' });
  });
  it('refuses two credentials at once as ambiguous', () => {
    expect(readCredential({ authorization: `Bearer ${jwt}`, 'xi-api-key': apiKey })).toMatchObject({
      kind: 'malformed',
      ambiguous: true,
    });
    expect(readCredential({ 'xi-api-key': [apiKey, apiKey] })).toMatchObject({ kind: 'malformed', ambiguous: true });
  });
  it('calls malformed headers malformed', () => {
    expect(readCredential({ authorization: 'Bearer' })).toMatchObject({ kind: 'malformed' });
    expect(readCredential({ authorization: 'Basic dXNlcjpwYXNz' })).toMatchObject({ kind: 'malformed' });
    expect(readCredential({ authorization: 'Bearer a b' })).toMatchObject({ kind: 'malformed' });
    expect(readCredential({ authorization: `Bearer ${'x'.repeat(9000)}` })).toMatchObject({ kind: 'malformed' });
    expect(readCredential({ authorization: 'DPoP not-a-jwt' })).toMatchObject({ kind: 'malformed' });
    expect(readCredential({ 'xi-api-key': '   ' })).toMatchObject({ kind: 'malformed' });
  });
  it('recognises JWTs only by a decodable header with alg', () => {
    expect(looksLikeJwt(jwt)).toBe(true);
    expect(looksLikeJwt('aa.bb.cc')).toBe(false);
    expect(looksLikeJwt(apiKey)).toBe(false);
  });
});
