import { generateKeyPairSync } from 'node:crypto';
import { calculateJwkThumbprint, decodeJwt, type JWK } from 'jose';
import { Issuer, type BaseClient } from 'openid-client';
import { cli, codeFlowTokens, createUser, type CreatedClient } from './helpers/fixtures';
import { startAuth, type RunningAuth } from './helpers/start-auth';

// The token exchange policy (RFC 8693 §5): whose tokens a client may exchange, the sender
// constraint carried over, the audience never widened, and exchanged tokens revoked with their
// subject token's family. openid-client 5 through discovery against auth started as a process.
jest.setTimeout(60_000);

const TOKEN_EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
const ACCESS_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:access_token';
const REDIRECT = 'https://app.example/cb';
let auth: RunningAuth;
let issuer: Issuer<BaseClient>;
let exchanger: CreatedClient;
let victim: CreatedClient;
let user: { id: string; email: string; password: string };

const confidentialArgs = (name: string) => [
  'clients:create',
  '--name',
  name,
  '--type',
  'confidential',
  '--grant',
  'authorization_code',
  '--grant',
  'client_credentials',
  '--grant',
  'refresh_token',
  '--grant',
  TOKEN_EXCHANGE,
  '--redirect-uri',
  REDIRECT,
  '--scope',
  'content:read speech:read offline_access',
];

beforeAll(async () => {
  auth = await startAuth();
  const resources = ['--resource', auth.issuer, '--resource', `${auth.issuer}/v1`];
  exchanger = await cli<CreatedClient>(auth, [...confidentialArgs('Exchanger'), ...resources]);
  victim = await cli<CreatedClient>(auth, [...confidentialArgs('Victim app'), ...resources]);
  user = await createUser(auth);
  issuer = await Issuer.discover(`${auth.issuer}/.well-known/oauth-authorization-server`);
}, 120_000);

afterAll(async () => {
  await auth?.stop();
});

function clientOf(c: CreatedClient): BaseClient {
  return new issuer.Client({
    client_id: c.client_id,
    client_secret: c.client_secret!,
    token_endpoint_auth_method: 'client_secret_basic',
    redirect_uris: [REDIRECT],
    response_types: ['code'],
  });
}

const exchange = (
  client: BaseClient,
  subject: string,
  extra: Record<string, string> = {},
  options: Parameters<BaseClient['grant']>[1] = {},
) =>
  client.grant(
    { grant_type: TOKEN_EXCHANGE, subject_token: subject, subject_token_type: ACCESS_TOKEN_TYPE, ...extra },
    options,
  );

describe('token exchange policy', () => {
  it("refuses another client's subject token unless the exchanging client is registered to act for that client", async () => {
    const stolen = await codeFlowTokens(auth.issuer, clientOf(victim), user, 'content:read', REDIRECT);
    await expect(exchange(clientOf(exchanger), stolen.access_token!)).rejects.toMatchObject({ error: 'invalid_grant' });
    // Nothing was issued, and the refusal did not touch the subject token.
    expect(await clientOf(victim).introspect(stolen.access_token!)).toMatchObject({
      active: true,
      client_id: victim.client_id,
    });

    // A client registered with token_exchange.subject_clients naming the victim app may.
    const delegate = await cli<CreatedClient>(auth, [
      ...confidentialArgs('Delegate'),
      '--resource',
      auth.issuer,
      '--exchange-client',
      victim.client_id,
    ]);
    const set = await exchange(clientOf(delegate), stolen.access_token!);
    expect(decodeJwt(set.access_token!)).toMatchObject({ sub: user.id, client_id: delegate.client_id });
  });

  it('a DPoP-bound subject token needs a proof with its key, and the exchanged token is bound to that key', async () => {
    const key = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const jkt = await calculateJwkThumbprint(key.publicKey.export({ format: 'jwk' }) as JWK);
    const client = clientOf(exchanger);
    const bound = await client.grant(
      { grant_type: 'client_credentials', scope: 'speech:read' },
      { DPoP: key.privateKey },
    );
    expect(decodeJwt(bound.access_token!).cnf).toEqual({ jkt });

    await expect(exchange(client, bound.access_token!)).rejects.toMatchObject({ error: 'invalid_dpop_proof' });
    const otherKey = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    await expect(exchange(client, bound.access_token!, {}, { DPoP: otherKey.privateKey })).rejects.toMatchObject({
      error: 'invalid_dpop_proof',
    });

    const set = await exchange(client, bound.access_token!, {}, { DPoP: key.privateKey });
    expect(set.token_type).toBe('DPoP');
    expect(decodeJwt(set.access_token!).cnf).toEqual({ jkt });
  });

  it('never widens the audience beyond the subject token: a resource the client may use but the subject token lacks is invalid_target', async () => {
    const client = clientOf(exchanger);
    const narrow = await client.grant({
      grant_type: 'client_credentials',
      scope: 'speech:read',
      resource: auth.issuer,
    });
    expect(decodeJwt(narrow.access_token!).aud).toBe(auth.issuer);
    await expect(exchange(client, narrow.access_token!, { resource: `${auth.issuer}/v1` })).rejects.toMatchObject({
      error: 'invalid_target',
    });
    await expect(exchange(client, narrow.access_token!, { audience: `${auth.issuer}/v1` })).rejects.toMatchObject({
      error: 'invalid_target',
    });

    // Narrowing a wider subject token is fine.
    const wide = await client.grant({
      grant_type: 'client_credentials',
      scope: 'speech:read',
      resource: [auth.issuer, `${auth.issuer}/v1`],
    } as unknown as Parameters<BaseClient['grant']>[0]);
    expect(decodeJwt(wide.access_token!).aud).toEqual([auth.issuer, `${auth.issuer}/v1`]);
    const narrowed = await exchange(client, wide.access_token!, { resource: `${auth.issuer}/v1` });
    expect(decodeJwt(narrowed.access_token!).aud).toBe(`${auth.issuer}/v1`);
  });

  it("an exchanged token is revoked with its subject token's family (refresh token revoked at /revoke)", async () => {
    const client = clientOf(exchanger);
    const tokens = await codeFlowTokens(auth.issuer, client, user, 'content:read offline_access', REDIRECT);
    expect(tokens.refresh_token).toMatch(/^rt_/);
    const exchanged = await exchange(client, tokens.access_token!);
    const second = await exchange(client, exchanged.access_token!, { scope: 'content:read' });
    expect(await client.introspect(exchanged.access_token!)).toMatchObject({ active: true });

    await client.revoke(tokens.refresh_token!, 'refresh_token');
    expect(await client.introspect(tokens.access_token!)).toEqual({ active: false });
    expect(await client.introspect(exchanged.access_token!)).toEqual({ active: false });
    // An exchange of an exchanged token goes with it too.
    expect(await client.introspect(second.access_token!)).toEqual({ active: false });
  });
});
