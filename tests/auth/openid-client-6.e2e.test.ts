// openid-client 6 is installed as `openid-client-6` (npm alias) beside openid-client 5, which the older tests use.
import type * as OpenIdClient from 'openid-client-6' with { 'resolution-mode': 'import' };
import { calculateJwkThumbprint, exportJWK } from 'jose';
import { cli, createUser, signInAndApprove } from './helpers/fixtures';
import { startAuth, type RunningAuth } from './helpers/start-auth';

/**
 * openid-client 6 as an integrator uses it, at its defaults (only allowInsecureRequests: the test server is
 * plain http on loopback): each client registers itself with `dynamicClientRegistration` and an initial access
 * token from the admin CLI, then runs the code flow through the real sign-in and consent pages.
 * - A FAPI 2.0 client (`security_profile: "fapi2"`): private_key_jwt (`PrivateKeyJwt`), a signed request object
 *   (`buildAuthorizationUrlWithJAR`) pushed by PAR (`buildAuthorizationUrlWithPAR`) with a DPoP proof, the
 *   callback's `iss` checked by `authorizationCodeGrant` (RFC 9207), DPoP-bound tokens used at userinfo and
 *   introspection, a refresh with DPoP.
 * - An ordinary client (client_secret_basic): PAR without a request object, introspection and revocation.
 * docs/auth.md "Capabilities and the tests that prove them" names what each test stands for.
 */
jest.setTimeout(90_000);

const REDIRECT = 'https://rp.example/callback';
const SCOPE = 'openid email content:read offline_access';
let client: typeof OpenIdClient;
let auth: RunningAuth;
let user: { id: string; email: string; password: string };

beforeAll(async () => {
  client = await import('openid-client-6');
  auth = await startAuth();
  user = await createUser(auth);
}, 120_000);

afterAll(async () => {
  await auth?.stop();
});

/** An initial access token for one registration, minted as an administrator would (RFC 7591 §3). */
async function initialAccessToken(): Promise<string> {
  return (await cli<{ initial_access_token: string }>(auth, ['registration-tokens:create', '--max-uses', '1']))
    .initial_access_token;
}

/** The code flow's per-request values, as openid-client makes them. */
async function requestChecks() {
  const pkceCodeVerifier = client.randomPKCECodeVerifier();
  const checks = { pkceCodeVerifier, expectedState: client.randomState(), expectedNonce: client.randomNonce() };
  const params = {
    redirect_uri: REDIRECT,
    scope: SCOPE,
    code_challenge: await client.calculatePKCECodeChallenge(pkceCodeVerifier),
    code_challenge_method: 'S256',
    state: checks.expectedState,
    nonce: checks.expectedNonce,
  };
  return { checks, params };
}

describe('openid-client 6, a FAPI 2.0 client: PAR + JAR + private_key_jwt + DPoP', () => {
  let config: OpenIdClient.Configuration;
  let signingKey: { key: CryptoKey; kid: string };

  beforeAll(async () => {
    const pair = (await crypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, false, [
      'sign',
      'verify',
    ])) as CryptoKeyPair;
    signingKey = { key: pair.privateKey, kid: 'rp-es256' };
    const { kty, crv, x, y } = await exportJWK(pair.publicKey);
    const publicJwk = { kty: kty!, crv: crv!, x: x!, y: y!, kid: signingKey.kid, alg: 'ES256', use: 'sig' };
    config = await client.dynamicClientRegistration(
      new URL(auth.issuer),
      {
        client_name: 'FAPI RP',
        security_profile: 'fapi2',
        redirect_uris: [REDIRECT],
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        scope: SCOPE,
        token_endpoint_auth_method: 'private_key_jwt',
        token_endpoint_auth_signing_alg: 'ES256',
        request_object_signing_alg: 'ES256',
        jwks: { keys: [publicJwk] },
      },
      client.PrivateKeyJwt(signingKey),
      { initialAccessToken: await initialAccessToken(), execute: [client.allowInsecureRequests] },
    );
  });

  it('registers with the profile; discovery advertises what the client needs', () => {
    expect(config.clientMetadata()).toMatchObject({
      security_profile: 'fapi2',
      require_pushed_authorization_requests: true,
      token_endpoint_auth_method: 'private_key_jwt',
      request_object_signing_alg: 'ES256',
    });
    expect(config.serverMetadata()).toMatchObject({
      pushed_authorization_request_endpoint: `${auth.issuer}/par`,
      request_parameter_supported: true,
      authorization_response_iss_parameter_supported: true,
      code_challenge_methods_supported: ['S256'],
      dpop_signing_alg_values_supported: expect.arrayContaining(['ES256']),
      token_endpoint_auth_methods_supported: expect.arrayContaining(['private_key_jwt']),
    });
  });

  it('signed request object pushed with DPoP, iss checked at the callback, DPoP-bound tokens at userinfo and introspection, refresh with DPoP', async () => {
    const keyPair = await client.randomDPoPKeyPair('ES256');
    const dpop = client.getDPoPHandle(config, keyPair);
    const jkt = await calculateJwkThumbprint(await exportJWK(keyPair.publicKey));
    const { checks, params } = await requestChecks();
    const { searchParams: signed } = await client.buildAuthorizationUrlWithJAR(config, params, signingKey);
    expect([...signed.keys()].sort()).toEqual(['client_id', 'request']);
    const url = await client.buildAuthorizationUrlWithPAR(config, signed, { DPoP: dpop });
    expect([...url.searchParams.keys()].sort()).toEqual(['client_id', 'request_uri']);
    const back = await signInAndApprove(auth.issuer, url, user);
    expect(back.searchParams.get('iss')).toBe(auth.issuer);

    // RFC 9207: the library refuses a callback whose iss is another server's (mix-up), before redeeming the code.
    const mixUp = new URL(back);
    mixUp.searchParams.set('iss', 'https://attacker.example');
    await expect(client.authorizationCodeGrant(config, mixUp, checks, undefined, { DPoP: dpop })).rejects.toMatchObject(
      { cause: expect.objectContaining({ message: expect.stringMatching(/"iss"/) }) },
    );

    const tokens = await client.authorizationCodeGrant(config, back, checks, undefined, { DPoP: dpop });
    expect(tokens.token_type.toLowerCase()).toBe('dpop');
    expect(tokens.claims()).toMatchObject({
      sub: user.id,
      aud: config.clientMetadata().client_id,
      nonce: checks.expectedNonce,
      iss: auth.issuer,
    });
    expect(await client.fetchUserInfo(config, tokens.access_token, user.id, { DPoP: dpop })).toMatchObject({
      sub: user.id,
      email: user.email,
    });
    // Sender-constrained: the same token without the proof, or with another key's proof, is refused.
    await expect(client.fetchUserInfo(config, tokens.access_token, user.id)).rejects.toMatchObject({ status: 401 });
    const stranger = client.getDPoPHandle(config, await client.randomDPoPKeyPair('ES256'));
    await expect(client.fetchUserInfo(config, tokens.access_token, user.id, { DPoP: stranger })).rejects.toMatchObject({
      status: 401,
    });

    // Introspection, authenticated with private_key_jwt: the token is active and bound to the DPoP key.
    expect(await client.tokenIntrospection(config, tokens.access_token)).toMatchObject({
      active: true,
      sub: user.id,
      client_id: config.clientMetadata().client_id,
      cnf: { jkt },
    });

    const refreshed = await client.refreshTokenGrant(config, tokens.refresh_token!, undefined, { DPoP: dpop });
    expect(refreshed.token_type.toLowerCase()).toBe('dpop');
    expect(refreshed.access_token).not.toBe(tokens.access_token);
    expect(await client.fetchUserInfo(config, refreshed.access_token, user.id, { DPoP: dpop })).toMatchObject({
      sub: user.id,
    });
    expect(await client.tokenIntrospection(config, refreshed.access_token)).toMatchObject({
      active: true,
      cnf: { jkt },
    });
  });

  it('the profile holds for the library too: an authorization URL without PAR is refused, a request object signed with an unregistered key, and a token request without DPoP', async () => {
    const { checks, params } = await requestChecks();
    const otherKey = (await crypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, false, [
      'sign',
      'verify',
    ])) as CryptoKeyPair;
    const forged = await client.buildAuthorizationUrlWithJAR(config, params, {
      key: otherKey.privateKey,
      kid: signingKey.kid,
    });
    await expect(client.buildAuthorizationUrlWithPAR(config, forged.searchParams)).rejects.toMatchObject({
      error: 'invalid_request_object',
    });
    const byValue = await fetch(client.buildAuthorizationUrl(config, params), { redirect: 'manual' });
    expect(byValue.status).toBe(400);
    expect(await byValue.text()).toMatch(/invalid_request: .*PAR/);
    const back = await signInAndApprove(
      auth.issuer,
      await client.buildAuthorizationUrlWithPAR(
        config,
        (await client.buildAuthorizationUrlWithJAR(config, params, signingKey)).searchParams,
      ),
      user,
    );
    await expect(client.authorizationCodeGrant(config, back, checks)).rejects.toMatchObject({
      error: 'invalid_request',
      error_description: expect.stringMatching(/DPoP/),
    });
  });
});

describe('openid-client 6, an ordinary client registered by dynamicClientRegistration', () => {
  it('client_secret_basic: PAR, the code flow, introspection and revocation', async () => {
    const config = await client.dynamicClientRegistration(
      new URL(auth.issuer),
      {
        client_name: 'Plain RP',
        redirect_uris: [REDIRECT],
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        scope: SCOPE,
      },
      undefined,
      { initialAccessToken: await initialAccessToken(), execute: [client.allowInsecureRequests] },
    );
    const registered = config.clientMetadata();
    expect(registered).toMatchObject({
      token_endpoint_auth_method: 'client_secret_basic',
      client_secret: expect.any(String),
      registration_access_token: expect.any(String),
    });
    expect(registered).not.toHaveProperty('security_profile');

    const { checks, params } = await requestChecks();
    const url = await client.buildAuthorizationUrlWithPAR(config, params);
    const tokens = await client.authorizationCodeGrant(config, await signInAndApprove(auth.issuer, url, user), checks);
    expect(tokens.token_type.toLowerCase()).toBe('bearer');
    expect(tokens.claims()).toMatchObject({ sub: user.id, aud: registered.client_id, nonce: checks.expectedNonce });
    expect(await client.fetchUserInfo(config, tokens.access_token, user.id)).toMatchObject({ sub: user.id });
    expect(await client.tokenIntrospection(config, tokens.access_token)).toMatchObject({
      active: true,
      sub: user.id,
      client_id: registered.client_id,
    });
    await client.tokenRevocation(config, tokens.refresh_token!);
    expect(await client.tokenIntrospection(config, tokens.refresh_token!)).toEqual({ active: false });
    await expect(client.refreshTokenGrant(config, tokens.refresh_token!)).rejects.toMatchObject({
      error: 'invalid_grant',
    });
  });
});
