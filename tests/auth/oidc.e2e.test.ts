import { createHash, generateKeyPairSync } from 'node:crypto';
import { decodeJwt, decodeProtectedHeader } from 'jose';
import { Issuer, generators, type BaseClient, type IdTokenClaims } from 'openid-client';
import { cli, createUser, FormAgent, type CreatedClient } from './helpers/fixtures';
import { startAuth, type RunningAuth } from './helpers/start-auth';

/**
 * OpenID Connect on the authorization server, driven by an RP library (openid-client, through
 * `/.well-known/openid-configuration`, its own ID token validation: signature against `jwks_uri`,
 * `iss`, `aud`, `azp`, `exp`, `iat`, `nonce`, `at_hash`, `auth_time` with `max_age`) and by the forms
 * a person fills in (FormAgent): ID tokens from the code flow and on refresh (Core §3.1.3.3, §12.2),
 * /userinfo with Bearer and DPoP tokens (§5.3, RFC 9449), `prompt` and `max_age` (§3.1.2.1),
 * RP-initiated logout (RP-Initiated Logout 1.0).
 */
jest.setTimeout(60_000);

const REDIRECT = 'https://rp.example/callback';
const SIGNED_OUT = 'https://rp.example/signed-out';
const SCOPE = 'openid profile email offline_access';
let auth: RunningAuth;
let issuer: Issuer<BaseClient>;
let registered: CreatedClient;
let client: BaseClient;
let user: { id: string; email: string; password: string };

beforeAll(async () => {
  auth = await startAuth();
  registered = await cli<CreatedClient>(auth, [
    'clients:create',
    '--name',
    'OIDC RP',
    '--type',
    'confidential',
    '--grant',
    'authorization_code',
    '--grant',
    'refresh_token',
    '--redirect-uri',
    REDIRECT,
    '--post-logout-redirect-uri',
    SIGNED_OUT,
    '--scope',
    `${SCOPE} content:read`,
  ]);
  user = await createUser(auth);
  // A bare issuer: openid-client asks for /.well-known/openid-configuration.
  issuer = await Issuer.discover(auth.issuer);
  client = new issuer.Client({
    client_id: registered.client_id,
    client_secret: registered.client_secret!,
    redirect_uris: [REDIRECT],
    response_types: ['code'],
    id_token_signed_response_alg: 'ES256',
  });
}, 120_000);

afterAll(async () => {
  await auth?.stop();
});

interface Started {
  agent: FormAgent;
  verifier: string;
  state: string;
  nonce: string;
}

/** Opens the authorization URL in `agent` (a new one unless given) and follows it to the first page or the redirect. */
async function open(extra: Record<string, string> = {}, agent = new FormAgent(auth.issuer)) {
  const verifier = generators.codeVerifier();
  const state = generators.state();
  const nonce = generators.nonce();
  const url = client.authorizationUrl({
    scope: SCOPE,
    state,
    nonce,
    code_challenge: generators.codeChallenge(verifier),
    code_challenge_method: 'S256',
    ...extra,
  });
  return { started: { agent, verifier, state, nonce } as Started, page: await agent.follow(url) };
}

/** Signs in when the page asks for it, approves, and redeems the code with openid-client. */
async function finish(
  started: Started,
  page: { html: string; url: string },
  checks: { max_age?: number } = {},
  dpop?: ReturnType<typeof generateKeyPairSync>['privateKey'],
) {
  const consent = await started.agent.signIn(page, user);
  const done = await started.agent.decide(consent, '/authorize/decision', 'approve');
  const params = client.callbackParams(done.url);
  return client.callback(
    REDIRECT,
    params,
    { code_verifier: started.verifier, state: started.state, nonce: started.nonce, ...checks },
    dpop ? { DPoP: dpop } : {},
  );
}

const signInPage = (page: { html: string }) => page.html.includes('action="/login"');

describe('discovery', () => {
  it('/.well-known/openid-configuration is the RFC 8414 document plus the OpenID Provider metadata', async () => {
    const res = await fetch(`${auth.issuer}/.well-known/openid-configuration`);
    expect(res.status).toBe(200);
    const oidc = (await res.json()) as Record<string, unknown>;
    const oauth = (await (await fetch(`${auth.issuer}/.well-known/oauth-authorization-server`)).json()) as Record<
      string,
      unknown
    >;
    for (const [key, value] of Object.entries(oauth)) expect([key, oidc[key]]).toEqual([key, value]);
    expect(oidc).toMatchObject({
      issuer: auth.issuer,
      userinfo_endpoint: `${auth.issuer}/userinfo`,
      end_session_endpoint: `${auth.issuer}/logout`,
      jwks_uri: `${auth.issuer}/jwks`,
      response_types_supported: ['code'],
      subject_types_supported: ['public'],
      id_token_signing_alg_values_supported: ['ES256'],
      code_challenge_methods_supported: ['S256'],
    });
    expect(oidc.scopes_supported).toEqual(expect.arrayContaining(['openid', 'profile', 'email']));
    expect(oidc.claims_supported).toEqual(
      expect.arrayContaining(['sub', 'auth_time', 'nonce', 'name', 'email', 'email_verified']),
    );
    expect(oidc.dpop_signing_alg_values_supported).toEqual(expect.arrayContaining(['ES256']));
    expect(issuer.metadata.userinfo_endpoint).toBe(`${auth.issuer}/userinfo`);
  });
});

describe('code flow with PKCE and nonce', () => {
  it('returns an ID token that openid-client validates, with the scope claims, at_hash and auth_time; /userinfo agrees', async () => {
    const before = Math.floor(Date.now() / 1000);
    const { started, page } = await open();
    expect(signInPage(page)).toBe(true);
    const set = await finish(started, page);
    expect(set.id_token).toBeDefined();
    const claims = set.claims();
    expect(claims).toMatchObject({
      iss: auth.issuer,
      sub: user.id,
      aud: registered.client_id,
      azp: registered.client_id,
      nonce: started.nonce,
      name: 'Test User',
      email: user.email,
      email_verified: false,
    });
    expect(claims.auth_time).toBeGreaterThanOrEqual(before - 1);
    expect(claims.auth_time).toBeLessThanOrEqual(claims.iat);
    expect(claims.at_hash).toBe(
      createHash('sha256').update(set.access_token!).digest().subarray(0, 16).toString('base64url'),
    );
    expect(decodeProtectedHeader(set.id_token!)).toMatchObject({ alg: 'ES256', typ: 'JWT' });
    expect(claims).not.toHaveProperty('preferred_username');

    const info = await client.userinfo(set);
    expect(info).toEqual({ sub: user.id, name: 'Test User', email: user.email, email_verified: false });
    // POST as well (Core §5.3.1).
    const posted = await fetch(`${auth.issuer}/userinfo`, {
      method: 'POST',
      headers: { authorization: `Bearer ${set.access_token}` },
    });
    expect(posted.status).toBe(200);
    expect(posted.headers.get('cache-control')).toBe('no-store');
    expect(await posted.json()).toEqual(info);
  });

  it("a wrong nonce fails openid-client's ID token validation (the nonce is the one sent)", async () => {
    const { started, page } = await open();
    await expect(finish({ ...started, nonce: 'not-the-nonce' }, page)).rejects.toThrow(/nonce mismatch/);
  });

  it('without openid there is no ID token, and /userinfo refuses the token (403 insufficient_scope)', async () => {
    const { started, page } = await open({ scope: 'content:read', nonce: '' });
    const consent = await started.agent.signIn(page, user);
    const done = await started.agent.decide(consent, '/authorize/decision', 'approve');
    const set = await client.oauthCallback(REDIRECT, client.callbackParams(done.url), {
      code_verifier: started.verifier,
      state: started.state,
    });
    expect(set.id_token).toBeUndefined();
    const res = await fetch(`${auth.issuer}/userinfo`, { headers: { authorization: `Bearer ${set.access_token}` } });
    expect(res.status).toBe(403);
    expect(res.headers.get('www-authenticate')).toMatch(/^Bearer .*error="insufficient_scope".*scope="openid"/);
    expect(await res.json()).toMatchObject({ error: 'insufficient_scope' });
  });

  it('a refresh returns a new ID token for the same sub and auth_time, without nonce (Core §12.2); openid-client validates it', async () => {
    const { started, page } = await open();
    const first = await finish(started, page);
    const next = await client.refresh(first);
    expect(next.id_token).toBeDefined();
    expect(next.id_token).not.toBe(first.id_token);
    const claims: IdTokenClaims = next.claims();
    expect(claims.sub).toBe(user.id);
    expect(claims.auth_time).toBe(first.claims().auth_time);
    expect(claims).not.toHaveProperty('nonce');
    expect(claims.at_hash).toBe(
      createHash('sha256').update(next.access_token!).digest().subarray(0, 16).toString('base64url'),
    );
    // Narrowed without openid: no ID token.
    const narrowed = await client.refresh(next, { exchangeBody: { scope: 'offline_access' } });
    expect(narrowed.id_token).toBeUndefined();
  });
});

describe('/userinfo', () => {
  it('answers RFC 6750 challenges: no token, a malformed or unknown token, a revoked token', async () => {
    const none = await fetch(`${auth.issuer}/userinfo`);
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toMatch(/^Bearer realm="auth", DPoP /);
    const bogus = await fetch(`${auth.issuer}/userinfo`, { headers: { authorization: 'Bearer a.b.c' } });
    expect(bogus.status).toBe(401);
    expect(bogus.headers.get('www-authenticate')).toMatch(/error="invalid_token"/);
    expect(await bogus.json()).toMatchObject({ error: 'invalid_token' });

    const { started, page } = await open();
    const set = await finish(started, page);
    await client.revoke(set.access_token!, 'access_token');
    const revoked = await fetch(`${auth.issuer}/userinfo`, {
      headers: { authorization: `Bearer ${set.access_token}` },
    });
    expect(revoked.status).toBe(401);
    expect(revoked.headers.get('www-authenticate')).toMatch(/error="invalid_token", error_description="token revoked"/);
  });

  it('a DPoP-bound token works with a proof (openid-client) and is refused as Bearer', async () => {
    const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const { started, page } = await open();
    const set = await finish(started, page, {}, privateKey);
    expect(set.token_type).toBe('DPoP');
    expect(decodeJwt(set.access_token!).cnf).toBeDefined();
    const info = await client.userinfo(set, { DPoP: privateKey });
    expect(info).toMatchObject({ sub: user.id, email: user.email });
    const asBearer = await fetch(`${auth.issuer}/userinfo`, {
      headers: { authorization: `Bearer ${set.access_token}` },
    });
    expect(asBearer.status).toBe(401);
    expect(asBearer.headers.get('www-authenticate')).toMatch(/^DPoP .*error="invalid_token"/);
    const noProof = await fetch(`${auth.issuer}/userinfo`, { headers: { authorization: `DPoP ${set.access_token}` } });
    expect(noProof.status).toBe(401);
    expect(noProof.headers.get('www-authenticate')).toMatch(/error="invalid_dpop_proof"/);
  });
});

describe('prompt and max_age', () => {
  it('prompt=none without a session redirects with login_required (and state, iss)', async () => {
    const { started, page } = await open({ prompt: 'none' });
    expect(page.res.status).toBe(303);
    const params = client.callbackParams(page.url);
    expect(params).toMatchObject({ error: 'login_required', state: started.state, iss: auth.issuer });
  });

  it('prompt=none with a session: consent_required beyond what the session consented to for the client, else a code at once', async () => {
    // A finished flow leaves the session and its consent to SCOPE for this client.
    const signedIn = await open();
    const first = await finish(signedIn.started, signedIn.page);
    const agent = signedIn.started.agent;
    const wider = await open({ prompt: 'none', scope: `${SCOPE} content:read` }, agent);
    expect(client.callbackParams(wider.page.url)).toMatchObject({
      error: 'consent_required',
      state: wider.started.state,
    });
    const silent = await open({ prompt: 'none' }, agent);
    expect(silent.page.res.status).toBe(303);
    const set = await client.callback(REDIRECT, client.callbackParams(silent.page.url), {
      code_verifier: silent.started.verifier,
      state: silent.started.state,
      nonce: silent.started.nonce,
    });
    expect(set.claims()).toMatchObject({
      sub: user.id,
      nonce: silent.started.nonce,
      auth_time: first.claims().auth_time,
    });
    // Another browser (no session) and a signed-out one: login_required.
    expect(client.callbackParams((await open({ prompt: 'none' })).page.url).error).toBe('login_required');
    const confirm = await agent.follow('/logout');
    await agent.request('/logout', { form: { csrf: FormAgent.field(confirm.html, 'csrf') } });
    expect(client.callbackParams((await open({ prompt: 'none' }, agent)).page.url).error).toBe('login_required');
  });

  it('prompt=login shows the sign-in page even with a session; the new auth_time is later', async () => {
    const first = await open();
    const firstSet = await finish(first.started, first.page);
    // With the session alone, no sign-in page.
    const plain = await open({}, first.started.agent);
    expect(plain.page.html).toContain('action="/authorize/decision"');
    const forced = await open({ prompt: 'login' }, first.started.agent);
    expect(signInPage(forced.page)).toBe(true);
    const set = await finish(forced.started, forced.page);
    expect(set.claims().sub).toBe(user.id);
    expect(set.claims().auth_time).toBeGreaterThanOrEqual(firstSet.claims().auth_time!);
  });

  it('max_age: a session older than max_age signs in again, a younger one does not; openid-client checks auth_time', async () => {
    const first = await open();
    await finish(first.started, first.page);
    const fresh = await open({ max_age: '3600' }, first.started.agent);
    expect(fresh.page.html).toContain('action="/authorize/decision"');
    const set = await finish(fresh.started, fresh.page, { max_age: 3600 });
    expect(set.claims().auth_time).toBeDefined();
    // max_age=0: any sign-in before the request is too old; the new one is at or after the request.
    const asked = Math.floor(Date.now() / 1000);
    const stale = await open({ max_age: '0' }, first.started.agent);
    expect(signInPage(stale.page)).toBe(true);
    const again = await finish(stale.started, stale.page);
    expect(again.claims().auth_time).toBeGreaterThanOrEqual(asked);
  });

  it('a malformed prompt or max_age is redirected as invalid_request', async () => {
    const malformed: Record<string, string>[] = [
      { prompt: 'none login' },
      { prompt: 'sometimes' },
      { max_age: '-1' },
      { max_age: 'soon' },
    ];
    for (const extra of malformed) {
      const { started, page } = await open(extra);
      expect([extra, client.callbackParams(page.url)]).toEqual([
        extra,
        expect.objectContaining({ error: 'invalid_request', state: started.state }),
      ]);
    }
  });
});

describe('RP-initiated logout (end_session_endpoint = /logout)', () => {
  async function signedInWithIdToken() {
    const { started, page } = await open();
    const set = await finish(started, page);
    return { agent: started.agent, idToken: set.id_token! };
  }
  const signedIn = async (agent: FormAgent) =>
    (await agent.follow('/logout')).html.includes('Sign out of this authorization server');

  it('with a registered post_logout_redirect_uri: confirm page, then the session ends and the browser goes back with state', async () => {
    const { agent, idToken } = await signedInWithIdToken();
    const url = client.endSessionUrl({ id_token_hint: idToken, post_logout_redirect_uri: SIGNED_OUT, state: 'bye-1' });
    const confirm = await agent.follow(url);
    expect(confirm.res.status).toBe(200);
    expect(confirm.html).toContain('action="/logout"');
    expect(confirm.res.headers.get('content-security-policy')).toContain("form-action 'self' https://rp.example;");
    expect(await signedIn(agent)).toBe(true); // the GET signed nobody out
    const done = await agent.request('/logout', {
      form: {
        csrf: FormAgent.field(confirm.html, 'csrf'),
        client_id: FormAgent.field(confirm.html, 'client_id'),
        post_logout_redirect_uri: FormAgent.field(confirm.html, 'post_logout_redirect_uri'),
        state: FormAgent.field(confirm.html, 'state'),
      },
    });
    expect(done.status).toBe(303);
    expect(done.headers.get('location')).toBe(`${SIGNED_OUT}?state=bye-1`);
    expect(await signedIn(agent)).toBe(false);
  });

  it('client_id instead of id_token_hint works too; a POSTed logout request (no CSRF field) shows the same page', async () => {
    const { agent } = await signedInWithIdToken();
    const confirm = await agent.follow('/logout', {
      form: { client_id: registered.client_id, post_logout_redirect_uri: SIGNED_OUT },
    });
    expect(confirm.res.status).toBe(200);
    const done = await agent.request('/logout', {
      form: {
        csrf: FormAgent.field(confirm.html, 'csrf'),
        client_id: FormAgent.field(confirm.html, 'client_id'),
        post_logout_redirect_uri: FormAgent.field(confirm.html, 'post_logout_redirect_uri'),
      },
    });
    expect(done.status).toBe(303);
    expect(done.headers.get('location')).toBe(SIGNED_OUT);
  });

  it('an unregistered post_logout_redirect_uri, or one without a client, is refused on a page: no redirect, still signed in', async () => {
    const { agent, idToken } = await signedInWithIdToken();
    const refusals = [
      client.endSessionUrl({ id_token_hint: idToken, post_logout_redirect_uri: 'https://evil.example/', state: 's' }),
      client.endSessionUrl({ id_token_hint: idToken, post_logout_redirect_uri: `${SIGNED_OUT}/x` }),
      `/logout?post_logout_redirect_uri=${encodeURIComponent(SIGNED_OUT)}`,
      `/logout?client_id=someone-else&id_token_hint=${idToken}&post_logout_redirect_uri=${encodeURIComponent(SIGNED_OUT)}`,
      `/logout?id_token_hint=${idToken.slice(0, -4)}AAAA&post_logout_redirect_uri=${encodeURIComponent(SIGNED_OUT)}`,
    ];
    for (const url of refusals) {
      const page = await agent.follow(url);
      expect([url, page.res.status, page.html.includes('action="/logout"')]).toEqual([url, 400, false]);
    }
    // A confirm form tampered with to carry an unregistered URI signs out but redirects nowhere.
    const confirm = await agent.follow('/logout');
    const done = await agent.request('/logout', {
      form: {
        csrf: FormAgent.field(confirm.html, 'csrf'),
        client_id: registered.client_id,
        post_logout_redirect_uri: 'https://evil.example/',
      },
    });
    expect(done.status).toBe(200);
    expect(done.headers.get('location')).toBeNull();
  });
});
