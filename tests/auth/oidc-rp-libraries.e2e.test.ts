// openid-client 6 is installed as `openid-client-6` (npm alias) beside openid-client 5, which the older tests use.
import type * as OpenIdClient from 'openid-client-6' with { 'resolution-mode': 'import' };
import type * as OAuth4WebApi from 'oauth4webapi' with { 'resolution-mode': 'import' };
import { cli, createUser, FormAgent, type CreatedClient } from './helpers/fixtures';
import { startAuth, type RunningAuth } from './helpers/start-auth';

/**
 * OpenID Connect with the current RP libraries at their defaults: openid-client 6 (`discovery(issuer,
 * clientId, secret)`) and oauth4webapi's OIDC helpers. The only option set is allowInsecureRequests:
 * the test server is plain http on loopback, which both refuse otherwise.
 */
jest.setTimeout(60_000);

const REDIRECT = 'https://rp.example/callback';
const SCOPE = 'openid profile email offline_access';
// Both are ES modules only; this test file is CommonJS (as jest runs it), so they are loaded with import().
let client: typeof OpenIdClient;
let oauth: typeof OAuth4WebApi;
let auth: RunningAuth;
let registered: CreatedClient;
let user: { id: string; email: string; password: string };

beforeAll(async () => {
  client = await import('openid-client-6');
  oauth = await import('oauth4webapi');
  auth = await startAuth();
  registered = await cli<CreatedClient>(auth, [
    'clients:create',
    '--name',
    'RP',
    '--type',
    'confidential',
    '--grant',
    'authorization_code',
    '--grant',
    'refresh_token',
    '--redirect-uri',
    REDIRECT,
    '--scope',
    SCOPE,
  ]);
  user = await createUser(auth);
}, 120_000);

afterAll(async () => {
  await auth?.stop();
});

/** Signs in and approves in a new agent; the URL the browser lands on at the client. */
async function browser(url: URL): Promise<URL> {
  const agent = new FormAgent(auth.issuer);
  const consent = await agent.signIn(await agent.follow(url.href), user);
  const done = await agent.decide(consent, '/authorize/decision', 'approve');
  return new URL(done.url);
}

describe('openid-client 6, defaults', () => {
  let config: OpenIdClient.Configuration;
  beforeAll(async () => {
    config = await client.discovery(new URL(auth.issuer), registered.client_id, registered.client_secret, undefined, {
      execute: [client.allowInsecureRequests],
    });
  });

  async function codeFlow(options: { DPoP?: OpenIdClient.DPoPHandle } = {}) {
    const verifier = client.randomPKCECodeVerifier();
    const nonce = client.randomNonce();
    const state = client.randomState();
    const url = client.buildAuthorizationUrl(config, {
      redirect_uri: REDIRECT,
      scope: SCOPE,
      code_challenge: await client.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      nonce,
      state,
    });
    const back = await browser(url);
    const tokens = await client.authorizationCodeGrant(
      config,
      back,
      { pkceCodeVerifier: verifier, expectedNonce: nonce, expectedState: state },
      undefined,
      options,
    );
    return { tokens, nonce };
  }

  it('discovers, completes the code flow with PKCE and nonce (ID token validated), fetchUserInfo, refresh', async () => {
    expect(config.serverMetadata().userinfo_endpoint).toBe(`${auth.issuer}/userinfo`);
    const { tokens, nonce } = await codeFlow();
    const claims = tokens.claims()!;
    expect(claims).toMatchObject({ sub: user.id, nonce, email: user.email, name: 'Test User' });
    const info = await client.fetchUserInfo(config, tokens.access_token, claims.sub);
    expect(info).toEqual({ sub: user.id, name: 'Test User', email: user.email, email_verified: false });
    const refreshed = await client.refreshTokenGrant(config, tokens.refresh_token!);
    expect(refreshed.claims()).toMatchObject({ sub: user.id, auth_time: claims.auth_time });
  });

  it('DPoP: tokens bound to the key, fetchUserInfo with the DPoP handle', async () => {
    const dpop = client.getDPoPHandle(config, await client.randomDPoPKeyPair('ES256'));
    const { tokens } = await codeFlow({ DPoP: dpop });
    expect(tokens.token_type.toLowerCase()).toBe('dpop');
    const info = await client.fetchUserInfo(config, tokens.access_token, tokens.claims()!.sub, { DPoP: dpop });
    expect(info.sub).toBe(user.id);
  });
});

describe('oauth4webapi OIDC helpers', () => {
  it('processDiscoveryResponse, processAuthorizationCodeResponse with expectedNonce, processUserInfoResponse', async () => {
    const issuer = new URL(auth.issuer);
    const insecure = { [oauth.allowInsecureRequests]: true };
    const as = await oauth.processDiscoveryResponse(
      issuer,
      await oauth.discoveryRequest(issuer, { algorithm: 'oidc', ...insecure }),
    );
    const c: OAuth4WebApi.Client = { client_id: registered.client_id };
    const clientAuth = oauth.ClientSecretBasic(registered.client_secret!);
    const verifier = oauth.generateRandomCodeVerifier();
    const nonce = oauth.generateRandomNonce();
    const state = oauth.generateRandomState();
    const url = new URL(as.authorization_endpoint!);
    for (const [k, v] of Object.entries({
      client_id: c.client_id,
      redirect_uri: REDIRECT,
      response_type: 'code',
      scope: SCOPE,
      code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      nonce,
      state,
    }))
      url.searchParams.set(k, v);
    const params = oauth.validateAuthResponse(as, c, await browser(url), state);
    const response = await oauth.authorizationCodeGrantRequest(as, c, clientAuth, params, REDIRECT, verifier, insecure);
    const result = await oauth.processAuthorizationCodeResponse(as, c, response, {
      expectedNonce: nonce,
      requireIdToken: true,
    });
    const claims = oauth.getValidatedIdTokenClaims(result)!;
    expect(claims.sub).toBe(user.id);
    const info = await oauth.processUserInfoResponse(
      as,
      c,
      claims.sub,
      await oauth.userInfoRequest(as, c, result.access_token, insecure),
    );
    expect(info).toMatchObject({ sub: user.id, email: user.email });
  });
});
