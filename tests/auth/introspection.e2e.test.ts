import { decodeJwt } from 'jose';
import { Issuer, type BaseClient } from 'openid-client';
import { ALL_GRANTS, cli, codeFlowTokens, createUser, type CreatedClient } from './helpers/fixtures';
import { startAuth, type RunningAuth } from './helpers/start-auth';

// RFC 7662 §4: a client learns about its own tokens only; a resource server named in
// INTROSPECTION_RESOURCE_SERVERS also about tokens whose audience is one of its registered resources.
// Access tokens carry the account's email (`username`) only when the email scope was granted.

jest.setTimeout(60_000);

const REDIRECT = 'https://app.example/cb';
const RS_ID = 'speech-resource-server';
let auth: RunningAuth;
let issuer: Issuer<BaseClient>;
let owner: CreatedClient;
let stranger: CreatedClient;
let resourceServer: CreatedClient;
let user: { id: string; email: string; password: string };

beforeAll(async () => {
  auth = await startAuth({ INTROSPECTION_RESOURCE_SERVERS: `other-client, ${RS_ID}` });
  const resources = ['--resource', auth.issuer, '--resource', `${auth.issuer}/v1`];
  const grants = ALL_GRANTS.flatMap((g) => ['--grant', g]);
  owner = await cli<CreatedClient>(auth, [
    'clients:create',
    '--name',
    'owner',
    '--type',
    'confidential',
    ...grants,
    '--scope',
    'content:read speech:read email offline_access',
    ...resources,
    '--redirect-uri',
    REDIRECT,
  ]);
  stranger = await cli<CreatedClient>(auth, [
    'clients:create',
    '--name',
    'stranger',
    '--type',
    'confidential',
    '--grant',
    'client_credentials',
    '--scope',
    'speech:read',
    ...resources,
  ]);
  resourceServer = await cli<CreatedClient>(auth, [
    'clients:create',
    '--name',
    'speech',
    '--type',
    'confidential',
    '--client-id',
    RS_ID,
    '--grant',
    'client_credentials',
    '--scope',
    'speech:read',
    '--resource',
    `${auth.issuer}/v1`,
  ]);
  user = await createUser(auth);
  issuer = await Issuer.discover(`${auth.issuer}/.well-known/oauth-authorization-server`);
}, 120_000);

afterAll(async () => {
  await auth?.stop();
});

const clientOf = (c: CreatedClient, redirect?: string) =>
  new issuer.Client({
    client_id: c.client_id,
    client_secret: c.client_secret!,
    token_endpoint_auth_method: 'client_secret_basic',
    ...(redirect ? { redirect_uris: [redirect] } : {}),
  });

describe('who may introspect', () => {
  it('another confidential client learns nothing about a token not issued to it', async () => {
    const set = await clientOf(owner).grant({ grant_type: 'client_credentials', scope: 'speech:read' });
    expect(await clientOf(owner).introspect(set.access_token!)).toMatchObject({
      active: true,
      client_id: owner.client_id,
    });
    expect(await clientOf(stranger).introspect(set.access_token!)).toEqual({ active: false });
  });

  it('a listed resource server learns about tokens meant for its resource, not about others', async () => {
    const forSpeech = await clientOf(owner).grant({
      grant_type: 'client_credentials',
      scope: 'speech:read',
      resource: `${auth.issuer}/v1`,
    });
    expect(await clientOf(resourceServer).introspect(forSpeech.access_token!)).toMatchObject({
      active: true,
      client_id: owner.client_id,
      aud: `${auth.issuer}/v1`,
    });
    const forPlatform = await clientOf(owner).grant({
      grant_type: 'client_credentials',
      scope: 'speech:read',
      resource: auth.issuer,
    });
    expect(await clientOf(resourceServer).introspect(forPlatform.access_token!)).toEqual({ active: false });
  });

  it('refresh tokens follow the same rule', async () => {
    const tokens = await codeFlowTokens(
      auth.issuer,
      clientOf(owner, REDIRECT),
      user,
      'content:read offline_access',
      REDIRECT,
    );
    expect(await clientOf(owner).introspect(tokens.refresh_token!)).toMatchObject({
      active: true,
      token_type: 'refresh_token',
    });
    expect(await clientOf(stranger).introspect(tokens.refresh_token!)).toEqual({ active: false });
    expect(await clientOf(resourceServer).introspect(tokens.refresh_token!)).toEqual({ active: false });
  });
});

describe('email claims need the email scope', () => {
  it('without it: no username in the token or at introspection', async () => {
    const tokens = await codeFlowTokens(auth.issuer, clientOf(owner, REDIRECT), user, 'content:read', REDIRECT);
    expect(JSON.stringify(decodeJwt(tokens.access_token!))).not.toContain(user.email);
    const info = await clientOf(owner).introspect(tokens.access_token!);
    expect(info).toMatchObject({ active: true, sub: user.id });
    expect(info).not.toHaveProperty('username');
  });

  it('with it: username is the account email', async () => {
    const tokens = await codeFlowTokens(auth.issuer, clientOf(owner, REDIRECT), user, 'content:read email', REDIRECT);
    expect(decodeJwt(tokens.access_token!)).toMatchObject({ username: user.email });
    expect(await clientOf(owner).introspect(tokens.access_token!)).toMatchObject({
      active: true,
      username: user.email,
      scope: 'content:read email',
    });
  });

  it('the first-party login (content) gets the email in its answer, not in the token', async () => {
    const res = await auth.internal('/login', { body: { email: user.email, password: user.password } });
    const body = (await res.json()) as { access_token: string; account: { email: string } };
    expect(body.account.email).toBe(user.email);
    expect(JSON.stringify(decodeJwt(body.access_token))).not.toContain(user.email);
  });
});
