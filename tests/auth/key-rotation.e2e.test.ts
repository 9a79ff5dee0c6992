import { Redis } from 'ioredis';
import { decodeProtectedHeader } from 'jose';
import { Issuer, type BaseClient } from 'openid-client';
import { createTokenVerifier, ResourceAuthError, type TokenVerifier } from '@platform/oauth-resource';
import { stackEnv } from '@platform/testing';
import { cli, type CreatedClient } from './helpers/fixtures';
import { startAuth, type RunningAuth } from './helpers/start-auth';

// Signing-key rotation with tokens in flight: `keys:rotate` (the admin CLI) while a resource server
// (libs/oauth-resource) holds a cached JWKS. Times are scaled down (defaults: 30 s cache, 70 s
// activation delay, 30 s verifier cooldown) with the same inequality: delay > cache + cooldown.
jest.setTimeout(90_000);

const COOLDOWN_SECONDS = 2;
let auth: RunningAuth;
let client: BaseClient;
let redis: Redis;

beforeAll(async () => {
  auth = await startAuth({ KEY_CACHE_SECONDS: '1', KEY_ACTIVATION_DELAY: '5' });
  const created = await cli<CreatedClient>(auth, [
    'clients:create',
    '--name',
    'Rotation client',
    '--type',
    'confidential',
    '--grant',
    'client_credentials',
    '--scope',
    'speech:read',
  ]);
  const issuer = await Issuer.discover(`${auth.issuer}/.well-known/oauth-authorization-server`);
  client = new issuer.Client({
    client_id: created.client_id,
    client_secret: created.client_secret!,
    token_endpoint_auth_method: 'client_secret_basic',
  });
  redis = new Redis(stackEnv().REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 2 });
  await redis.connect();
}, 120_000);

afterAll(async () => {
  await auth?.stop();
  redis?.disconnect();
});

function verifier(): TokenVerifier {
  return createTokenVerifier({
    issuer: auth.issuer,
    jwksUrl: `${auth.issuer}/jwks`,
    audiences: [auth.issuer],
    redis,
    jwksCooldownSeconds: COOLDOWN_SECONDS,
  });
}

const at = (token: string) => ({ authorization: `Bearer ${token}`, method: 'GET', url: `${auth.issuer}/v1/voices` });
const kidOf = (token: string) => decodeProtectedHeader(token).kid;
const issue = async () =>
  (await client.grant({ grant_type: 'client_credentials', scope: 'speech:read' })).access_token!;
const jwksKids = async () =>
  ((await (await fetch(`${auth.issuer}/jwks`)).json()) as { keys: { kid: string }[] }).keys.map((k) => k.kid);

async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

it('keeps tokens signed before keys:rotate valid, signs new tokens with the new kid, and a cached verifier follows', async () => {
  const oldToken = await issue();
  const oldKid = kidOf(oldToken);
  const cached = verifier();
  expect((await cached.verify(at(oldToken), ['speech:read'])).sub).toBeTruthy(); // the verifier now holds the pre-rotation JWKS

  const { current: newKid } = await cli<{ current: string }>(auth, ['keys:rotate']);
  expect(newKid).not.toBe(oldKid);

  // The new key is published first (both kids in /jwks), and only later used for signing.
  await until('the new key in /jwks', async () => ((await jwksKids()).includes(newKid) ? true : undefined));
  expect(await jwksKids()).toEqual([newKid, oldKid]);
  const newToken = await until('a token signed with the new key', async () => {
    const token = await issue();
    return kidOf(token) === newKid ? token : undefined;
  });

  // Tokens in flight still verify: at a fresh resource server, at the one with the old cache, and at introspection.
  expect((await verifier().verify(at(oldToken))).claims.jti).toBeTruthy();
  expect((await cached.verify(at(oldToken))).claims.jti).toBeTruthy();
  expect(await client.introspect(oldToken)).toMatchObject({ active: true });
  // The new kid was in /jwks long enough before use that the cached verifier may refetch it.
  expect((await cached.verify(at(newToken))).claims.jti).toBeTruthy();
  expect(await client.introspect(newToken)).toMatchObject({ active: true });
});

it('drops a key after a second rotation: its tokens stop verifying (rotation interval must exceed token lifetime)', async () => {
  const token = await issue();
  const kid = kidOf(token)!;
  await cli(auth, ['keys:rotate']);
  const { current: third } = await cli<{ current: string }>(auth, ['keys:rotate']);
  await until('the twice-rotated key to leave /jwks', async () => {
    const kids = await jwksKids();
    return !kids.includes(kid) && kids.includes(third) ? true : undefined;
  });
  await expect(verifier().verify(at(token))).rejects.toMatchObject({
    status: 401,
    error: 'invalid_token',
  } satisfies Partial<ResourceAuthError>);
  expect(await client.introspect(token)).toEqual({ active: false });
});
