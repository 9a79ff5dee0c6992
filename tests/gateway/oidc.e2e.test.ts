import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { Issuer, generators, type BaseClient } from 'openid-client';
import { stackEnv } from '@platform/testing';
import { FormAgent } from '../auth/helpers/fixtures';
import { INTERNAL_SECRET, registerAccount, startPlatform, type Account, type Platform } from './platform';

/**
 * OpenID Connect through the gateway: the discovery document names the gateway's URLs (PUBLIC_URL),
 * and an RP that knows only the gateway discovers, signs a person in, validates the ID token, calls
 * /userinfo and signs out (RP-Initiated Logout) there.
 */
jest.setTimeout(60_000);

const REDIRECT = 'https://rp.example/callback';
const SIGNED_OUT = 'https://rp.example/signed-out';
let platform: Platform;
let gateway: string;
let account: Account;
let client: BaseClient;

beforeAll(async () => {
  platform = await startPlatform();
  gateway = platform.publicUrl;
  const { stdout } = await promisify(execFile)(
    process.execPath,
    [
      path.resolve(__dirname, '../../apps/auth/dist/cli/main.js'),
      'clients:create',
      '--name',
      'RP',
      '--type',
      'confidential',
      '--grant',
      'authorization_code',
      '--redirect-uri',
      REDIRECT,
      '--post-logout-redirect-uri',
      SIGNED_OUT,
      '--scope',
      'openid profile email',
    ],
    {
      env: {
        PATH: process.env.PATH ?? '',
        ...stackEnv(),
        MONGO_DB: platform.authDb,
        INTERNAL_SECRET,
        PUBLIC_URL: gateway,
      },
      timeout: 30_000,
    },
  );
  const created = JSON.parse(stdout) as { client_id: string; client_secret: string };
  account = await registerAccount(gateway, 'Gateway RP User');
  const issuer = await Issuer.discover(gateway);
  client = new issuer.Client({
    client_id: created.client_id,
    client_secret: created.client_secret,
    redirect_uris: [REDIRECT],
    response_types: ['code'],
    id_token_signed_response_alg: 'ES256',
  });
}, 120_000);

afterAll(async () => {
  await platform?.stop();
});

it("/.well-known/openid-configuration is forwarded and every URL in it is the gateway's", async () => {
  const res = await fetch(`${gateway}/.well-known/openid-configuration`);
  expect(res.status).toBe(200);
  const doc = (await res.json()) as Record<string, unknown>;
  expect(doc.issuer).toBe(gateway);
  const urls = Object.entries(doc).filter(([key]) => key.endsWith('_endpoint') || key === 'jwks_uri');
  expect(urls.map(([key]) => key)).toEqual(
    expect.arrayContaining([
      'authorization_endpoint',
      'token_endpoint',
      'userinfo_endpoint',
      'end_session_endpoint',
      'jwks_uri',
    ]),
  );
  for (const [key, url] of urls) expect([key, String(url).startsWith(`${gateway}/`)]).toEqual([key, true]);
});

it('code flow with PKCE and nonce, /userinfo and RP-initiated logout, all at the gateway', async () => {
  const agent = new FormAgent(gateway);
  const verifier = generators.codeVerifier();
  const state = generators.state();
  const nonce = generators.nonce();
  const start = await agent.follow(
    client.authorizationUrl({
      scope: 'openid profile email',
      state,
      nonce,
      code_challenge: generators.codeChallenge(verifier),
      code_challenge_method: 'S256',
    }),
  );
  const consent = await agent.signIn(start, account);
  const done = await agent.decide(consent, '/authorize/decision', 'approve');
  const set = await client.callback(REDIRECT, client.callbackParams(done.url), {
    code_verifier: verifier,
    state,
    nonce,
  });
  expect(set.claims()).toMatchObject({
    iss: gateway,
    sub: account.id,
    nonce,
    email: account.email,
    name: 'Gateway RP User',
  });

  const info = await client.userinfo(set);
  expect(info).toEqual({ sub: account.id, name: 'Gateway RP User', email: account.email, email_verified: false });
  const unauthenticated = await fetch(`${gateway}/userinfo`);
  expect(unauthenticated.status).toBe(401);
  expect(unauthenticated.headers.get('www-authenticate')).toMatch(/^Bearer /);

  const confirm = await agent.follow(
    client.endSessionUrl({ id_token_hint: set.id_token!, post_logout_redirect_uri: SIGNED_OUT, state: 'bye' }),
  );
  expect(confirm.res.status).toBe(200);
  const out = await agent.request('/logout', {
    form: {
      csrf: FormAgent.field(confirm.html, 'csrf'),
      client_id: FormAgent.field(confirm.html, 'client_id'),
      post_logout_redirect_uri: FormAgent.field(confirm.html, 'post_logout_redirect_uri'),
      state: 'bye',
    },
  });
  expect(out.status).toBe(303);
  expect(out.headers.get('location')).toBe(`${SIGNED_OUT}?state=bye`);
});
