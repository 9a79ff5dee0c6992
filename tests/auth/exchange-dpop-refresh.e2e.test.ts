import { generateKeyPairSync } from 'node:crypto';
import { calculateJwkThumbprint, decodeJwt, type JWK } from 'jose';
import { Issuer, type BaseClient } from 'openid-client';
import { ALL_GRANTS, cli, createUser, FormAgent, type CreatedClient } from './helpers/fixtures';
import { startAuth, type RunningAuth } from './helpers/start-auth';

// Token exchange (RFC 8693) success and refusal paths, and DPoP-bound refresh tokens of public
// clients (RFC 9449 §5), with openid-client 5 through discovery against auth started as a process.
jest.setTimeout(60_000);

const TOKEN_EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
const ACCESS_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:access_token';
let auth: RunningAuth;
let issuer: Issuer<BaseClient>;
let confidential: CreatedClient;
let other: CreatedClient;
let resourceServer: CreatedClient;
let deviceClientId: string;
let user: { id: string; email: string; password: string };

beforeAll(async () => {
  // A resource server for the platform audience may introspect other clients' tokens (RFC 7662 §4).
  auth = await startAuth({ INTROSPECTION_RESOURCE_SERVERS: 'platform-resource-server' });
  const resources = ['--resource', auth.issuer, '--resource', `${auth.issuer}/v1`, '--resource', `${auth.issuer}/api`];
  other = await cli<CreatedClient>(auth, [
    'clients:create',
    '--name',
    'Actor service',
    '--type',
    'confidential',
    '--grant',
    'client_credentials',
    '--scope',
    'speech:read',
    '--resource',
    auth.issuer,
  ]);
  // The exchange policy: the exchanger may present the first-party login's tokens ('platform') and the actor service's.
  const mayExchange = ['--exchange-client', 'platform', '--exchange-client', other.client_id];
  // Every scope of the first-party login's tokens (speech:keys included), so an exchange can keep all of them.
  confidential = await cli<CreatedClient>(auth, [
    'clients:create',
    '--name',
    'Exchanger',
    '--type',
    'confidential',
    ...ALL_GRANTS.flatMap((g) => ['--grant', g]),
    '--redirect-uri',
    'https://app.example/cb',
    '--scope',
    'content:read content:write speech:read speech:write speech:keys offline_access',
    ...resources,
    ...mayExchange,
  ]);
  const device = await cli<CreatedClient>(auth, [
    'clients:create',
    '--name',
    'TV app',
    '--type',
    'public',
    '--grant',
    'urn:ietf:params:oauth:grant-type:device_code',
    '--grant',
    'refresh_token',
    '--scope',
    'speech:read offline_access',
    '--resource',
    auth.issuer,
  ]);
  deviceClientId = device.client_id;
  resourceServer = await cli<CreatedClient>(auth, [
    'clients:create',
    '--name',
    'Resource server',
    '--type',
    'confidential',
    '--client-id',
    'platform-resource-server',
    '--grant',
    'client_credentials',
    '--scope',
    'speech:read',
    '--resource',
    auth.issuer,
  ]);
  user = await createUser(auth);
  issuer = await Issuer.discover(`${auth.issuer}/.well-known/oauth-authorization-server`);
}, 120_000);

afterAll(async () => {
  await auth?.stop();
});

function confidentialClient(c: CreatedClient = confidential): BaseClient {
  return new issuer.Client({
    client_id: c.client_id,
    client_secret: c.client_secret!,
    token_endpoint_auth_method: 'client_secret_basic',
  });
}

async function userToken(): Promise<string> {
  const res = await auth.internal('/login', { body: { email: user.email, password: user.password } });
  expect(res.status).toBe(200);
  return ((await res.json()) as { access_token: string }).access_token;
}

describe('token exchange (RFC 8693)', () => {
  it('exchanges our own access token: same subject and scopes, new client, issued_token_type, no act without an actor', async () => {
    const client = confidentialClient();
    const subject = await userToken();
    const set = await client.grant({
      grant_type: TOKEN_EXCHANGE,
      subject_token: subject,
      subject_token_type: ACCESS_TOKEN_TYPE,
    });
    expect(set.issued_token_type).toBe(ACCESS_TOKEN_TYPE);
    expect(set.token_type).toBe('Bearer');
    expect(set.refresh_token).toBeUndefined();
    const before = decodeJwt(subject);
    const claims = decodeJwt(set.access_token!);
    expect(claims).toMatchObject({
      sub: user.id,
      client_id: confidential.client_id,
      scope: before.scope,
      aud: before.aud,
      iss: auth.issuer,
    });
    // No email scope, so no email-derived claim.
    expect(claims).not.toHaveProperty('username');
    expect(claims.act).toBeUndefined();
    expect(claims.jti).not.toBe(before.jti);
    expect(await client.introspect(set.access_token!)).toMatchObject({
      active: true,
      sub: user.id,
      client_id: confidential.client_id,
    });
  });

  it('an actor_token produces an act claim naming the actor', async () => {
    const client = confidentialClient();
    const actor = await confidentialClient(other).grant({ grant_type: 'client_credentials', scope: 'speech:read' });
    const set = await client.grant({
      grant_type: TOKEN_EXCHANGE,
      subject_token: await userToken(),
      subject_token_type: ACCESS_TOKEN_TYPE,
      actor_token: actor.access_token!,
      actor_token_type: ACCESS_TOKEN_TYPE,
      scope: 'speech:read',
    });
    expect(set.issued_token_type).toBe(ACCESS_TOKEN_TYPE);
    const claims = decodeJwt(set.access_token!);
    expect(claims.sub).toBe(user.id);
    expect(claims.act).toEqual({ sub: other.client_id, client_id: other.client_id });
    expect(await client.introspect(set.access_token!)).toMatchObject({
      active: true,
      sub: user.id,
      act: { sub: other.client_id, client_id: other.client_id },
    });
  });

  it('down-scopes, and refuses any scope beyond the subject token with invalid_scope', async () => {
    const client = confidentialClient();
    const narrow = await client.grant({
      grant_type: TOKEN_EXCHANGE,
      subject_token: await userToken(),
      subject_token_type: ACCESS_TOKEN_TYPE,
      scope: 'speech:read',
    });
    expect(narrow.scope).toBe('speech:read');
    expect(decodeJwt(narrow.access_token!).scope).toBe('speech:read');
    // speech:write was in the user's original token and the client may hold it, but not in the token being exchanged.
    await expect(
      client.grant({
        grant_type: TOKEN_EXCHANGE,
        subject_token: narrow.access_token!,
        subject_token_type: ACCESS_TOKEN_TYPE,
        scope: 'speech:read speech:write',
      }),
    ).rejects.toMatchObject({ error: 'invalid_scope' });
    await expect(
      client.grant({
        grant_type: TOKEN_EXCHANGE,
        subject_token: await userToken(),
        subject_token_type: ACCESS_TOKEN_TYPE,
        scope: 'admin:all',
      }),
    ).rejects.toMatchObject({ error: 'invalid_scope' });
  });

  it("resource and audience narrow the aud within the subject token's; a target the client may not use is invalid_target", async () => {
    const client = confidentialClient();
    // The exchange never widens the audience: the subject token carries all three targets.
    const wide = (
      await client.grant({
        grant_type: 'client_credentials',
        scope: 'speech:read',
        resource: [auth.issuer, `${auth.issuer}/v1`, `${auth.issuer}/api`],
      } as unknown as Parameters<BaseClient['grant']>[0])
    ).access_token!;
    const byResource = await client.grant({
      grant_type: TOKEN_EXCHANGE,
      subject_token: wide,
      subject_token_type: ACCESS_TOKEN_TYPE,
      resource: `${auth.issuer}/v1`,
    });
    expect(decodeJwt(byResource.access_token!).aud).toBe(`${auth.issuer}/v1`);
    const byAudience = await client.grant({
      grant_type: TOKEN_EXCHANGE,
      subject_token: wide,
      subject_token_type: ACCESS_TOKEN_TYPE,
      audience: `${auth.issuer}/api`,
    });
    expect(decodeJwt(byAudience.access_token!).aud).toBe(`${auth.issuer}/api`);
    const both = await client.grant({
      grant_type: TOKEN_EXCHANGE,
      subject_token: wide,
      subject_token_type: ACCESS_TOKEN_TYPE,
      resource: `${auth.issuer}/v1`,
      audience: `${auth.issuer}/api`,
    });
    expect(decodeJwt(both.access_token!).aud).toEqual([`${auth.issuer}/v1`, `${auth.issuer}/api`]);
    expect(await client.introspect(both.access_token!)).toMatchObject({
      active: true,
      aud: [`${auth.issuer}/v1`, `${auth.issuer}/api`],
    });
    await expect(
      client.grant({
        grant_type: TOKEN_EXCHANGE,
        subject_token: wide,
        subject_token_type: ACCESS_TOKEN_TYPE,
        audience: 'https://elsewhere.example/api',
      }),
    ).rejects.toMatchObject({ error: 'invalid_target' });
  });

  it('refuses revoked and malformed subject tokens and wrong token types', async () => {
    const client = confidentialClient();
    const owned = await client.grant({ grant_type: 'client_credentials', scope: 'speech:read' });
    await client.revoke(owned.access_token!, 'access_token');
    await expect(
      client.grant({
        grant_type: TOKEN_EXCHANGE,
        subject_token: owned.access_token!,
        subject_token_type: ACCESS_TOKEN_TYPE,
      }),
    ).rejects.toMatchObject({ error: 'invalid_grant' });
    await expect(
      client.grant({ grant_type: TOKEN_EXCHANGE, subject_token: 'not-a-token', subject_token_type: ACCESS_TOKEN_TYPE }),
    ).rejects.toMatchObject({ error: 'invalid_grant' });
    await expect(
      client.grant({
        grant_type: TOKEN_EXCHANGE,
        subject_token: await userToken(),
        subject_token_type: 'urn:ietf:params:oauth:token-type:id_token',
      }),
    ).rejects.toMatchObject({ error: 'invalid_request' });
    await expect(
      client.grant({
        grant_type: TOKEN_EXCHANGE,
        subject_token: await userToken(),
        subject_token_type: ACCESS_TOKEN_TYPE,
        actor_token: 'x.y.z',
      }),
    ).rejects.toMatchObject({ error: 'invalid_request' });
  });
});

describe('DPoP-bound refresh tokens of a public client (RFC 9449 §5)', () => {
  async function deviceTokens(dpopKey: ReturnType<typeof generateKeyPairSync>['privateKey']) {
    const client = new issuer.Client({ client_id: deviceClientId, token_endpoint_auth_method: 'none' });
    const handle = await client.deviceAuthorization({ scope: 'speech:read offline_access' });
    const agent = new FormAgent(auth.issuer);
    const entry = await agent.signIn(await agent.follow(handle.verification_uri_complete!), user);
    const confirm = await agent.follow('/device', {
      form: { csrf: FormAgent.field(entry.html, 'csrf'), user_code: handle.user_code },
    });
    const done = await agent.decide(confirm, '/device/decision', 'approve');
    expect(done.html).toContain('Device connected');
    const set = await client.grant(
      { grant_type: 'urn:ietf:params:oauth:grant-type:device_code', device_code: handle.device_code },
      { DPoP: dpopKey },
    );
    return { client, set };
  }

  it('refresh needs a proof with the same key; failed attempts do not burn the token; new tokens keep cnf.jkt', async () => {
    const key = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const jkt = await calculateJwkThumbprint(key.publicKey.export({ format: 'jwk' }) as JWK);
    const { client, set } = await deviceTokens(key.privateKey);
    expect(set.token_type).toBe('DPoP');
    expect(set.refresh_token).toMatch(/^rt_/);
    expect(decodeJwt(set.access_token!).cnf).toEqual({ jkt });
    const introspector = confidentialClient(resourceServer);
    expect(await introspector.introspect(set.refresh_token!)).toMatchObject({
      active: true,
      token_type: 'refresh_token',
      cnf: { jkt },
    });

    // Without a proof, and with a proof made with another key: refused.
    await expect(client.refresh(set.refresh_token!)).rejects.toMatchObject({ error: 'invalid_grant' });
    const otherKey = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    await expect(client.refresh(set.refresh_token!, { DPoP: otherKey.privateKey })).rejects.toMatchObject({
      error: 'invalid_grant',
    });
    expect(await introspector.introspect(set.refresh_token!)).toMatchObject({ active: true });

    // With the same key: a new pair, both still bound to it.
    const refreshed = await client.refresh(set.refresh_token!, { DPoP: key.privateKey });
    expect(refreshed.token_type).toBe('DPoP');
    expect(refreshed.refresh_token).not.toBe(set.refresh_token);
    expect(decodeJwt(refreshed.access_token!).cnf).toEqual({ jkt });
    expect(await introspector.introspect(refreshed.access_token!)).toMatchObject({
      active: true,
      token_type: 'DPoP',
      cnf: { jkt },
    });
    expect(await introspector.introspect(refreshed.refresh_token!)).toMatchObject({ active: true, cnf: { jkt } });
    expect(await introspector.introspect(set.refresh_token!)).toEqual({ active: false });

    // The rotated refresh token carries the binding forward.
    await expect(client.refresh(refreshed.refresh_token!, { DPoP: otherKey.privateKey })).rejects.toMatchObject({
      error: 'invalid_grant',
    });
    const again = await client.refresh(refreshed.refresh_token!, { DPoP: key.privateKey });
    expect(decodeJwt(again.access_token!).cnf).toEqual({ jkt });
  });

  it('a public client without DPoP gets an unbound refresh token usable without a proof', async () => {
    const client = new issuer.Client({ client_id: deviceClientId, token_endpoint_auth_method: 'none' });
    const handle = await client.deviceAuthorization({ scope: 'speech:read offline_access' });
    const agent = new FormAgent(auth.issuer);
    const entry = await agent.signIn(await agent.follow(handle.verification_uri_complete!), user);
    const confirm = await agent.follow('/device', {
      form: { csrf: FormAgent.field(entry.html, 'csrf'), user_code: handle.user_code },
    });
    await agent.decide(confirm, '/device/decision', 'approve');
    const set = await client.grant({
      grant_type: 'urn:ietf:params:oauth:grant-type:device_code',
      device_code: handle.device_code,
    });
    expect(set.token_type).toBe('Bearer');
    const refreshed = await client.refresh(set.refresh_token!);
    expect(decodeJwt(refreshed.access_token!).cnf).toBeUndefined();
  });
});
