import { createHash } from 'node:crypto';
import { Redis } from 'ioredis';
import mongoose from 'mongoose';
import { Issuer, type BaseClient } from 'openid-client';
import { stackEnv } from '@platform/testing';
import { sealer, type Sealed } from '../../apps/auth/src/crypto/secrets';
import { ALL_GRANTS, authorizeCode, cli, createUser, decideDevice, type CreatedClient } from './helpers/fixtures';
import { INTERNAL_SECRET, startAuth, type RunningAuth } from './helpers/start-auth';

// Nothing secret in plain text at rest: after flows that create every kind of secret, no raw
// secret appears anywhere in auth's MongoDB database or in Redis. Auth gets a Redis logical database of
// its own, so the scan reads every key it wrote (names and values), not only the prefixes we expect.
// Not treated as secrets: user codes (typed by people, ≈34 bits, so a hash would not protect them;
// they are rate-limited instead), authorization request ids, DPoP nonces and JWT ids (public by design).
jest.setTimeout(90_000);

const REDIS_DB = 11;
const REDIRECT = 'https://app.example/cb';
const DEVICE_CODE = 'urn:ietf:params:oauth:grant-type:device_code';
const sha256 = (value: string) => createHash('sha256').update(value).digest('base64url');

let auth: RunningAuth;
let redisUrl: string;

beforeAll(async () => {
  const url = new URL(stackEnv().REDIS_URL);
  url.pathname = `/${REDIS_DB}`;
  redisUrl = url.href;
  // Codes live 10 minutes here so the unredeemed one is surely still stored when the scan runs.
  auth = await startAuth({ REDIS_URL: redisUrl, AUTHORIZATION_CODE_TTL: '600' });
}, 90_000);

afterAll(async () => {
  await auth?.stop();
});

/** Every document of every collection of auth's database, as JSON per collection. */
async function mongoDump(db: string): Promise<Record<string, string>> {
  const conn = await mongoose.createConnection(stackEnv().MONGO_URL, { dbName: db }).asPromise();
  try {
    const out: Record<string, string> = {};
    for (const { name } of await conn.db!.listCollections().toArray())
      out[`mongo ${name}`] = JSON.stringify(await conn.db!.collection(name).find({}).toArray());
    return out;
  } finally {
    await conn.close();
  }
}

/** Every key of the Redis database with its value, whatever the type. */
async function redisDump(url: string): Promise<Record<string, string>> {
  const redis = new Redis(url);
  try {
    const keys: string[] = [];
    let cursor = '0';
    do {
      const [next, batch] = await redis.scan(cursor, 'COUNT', 1000);
      cursor = next;
      keys.push(...batch);
    } while (cursor !== '0');
    const out: Record<string, string> = {};
    for (const key of keys) {
      const type = await redis.type(key);
      const value =
        type === 'string'
          ? await redis.get(key)
          : type === 'hash'
            ? await redis.hgetall(key)
            : type === 'list'
              ? await redis.lrange(key, 0, -1)
              : type === 'set'
                ? await redis.smembers(key)
                : type === 'zset'
                  ? await redis.zrange(key, 0, -1, 'WITHSCORES')
                  : type === 'stream'
                    ? await redis.xrange(key, '-', '+')
                    : `(${type})`;
      out[`redis ${key}`] = typeof value === 'string' ? value : JSON.stringify(value);
    }
    return out;
  } finally {
    redis.disconnect();
  }
}

it('no client secret, password, API key, session id, code, device code, verifier, refresh or access token, or signing key is stored in the clear', async () => {
  const secrets: Record<string, string> = {};

  // A confidential client; its secret used with Basic, in the body, and as the client_secret_jwt HMAC key.
  const created = await cli<CreatedClient>(auth, [
    'clients:create',
    '--name',
    'Secret keeper',
    '--type',
    'confidential',
    ...ALL_GRANTS.flatMap((g) => ['--grant', g]),
    '--redirect-uri',
    REDIRECT,
    '--scope',
    'content:read speech:read offline_access',
  ]);
  secrets.client_secret = created.client_secret!;
  const issuer = await Issuer.discover(`${auth.issuer}/.well-known/oauth-authorization-server`);
  const client: BaseClient = new issuer.Client({
    client_id: created.client_id,
    client_secret: created.client_secret!,
    redirect_uris: [REDIRECT],
    response_types: ['code'],
  });
  for (const method of ['client_secret_post', 'client_secret_jwt'] as const) {
    const other = new issuer.Client({
      client_id: created.client_id,
      client_secret: created.client_secret!,
      token_endpoint_auth_method: method,
    });
    secrets[`access token (${method})`] = (
      await other.grant({ grant_type: 'client_credentials', scope: 'speech:read' })
    ).access_token!;
  }

  // An account with a password, its sign-in session, and an API key that has been looked up.
  const user = await createUser(auth);
  secrets.password = user.password;
  const key = (await (await auth.internal(`/accounts/${user.id}/api-keys`, { body: { name: 'laptop' } })).json()) as {
    key: string;
  };
  secrets.api_key = key.key;
  expect((await auth.internal('/api-keys/lookup', { body: { key: key.key } })).status).toBe(200);

  // Code flow: a redeemed code, its tokens, a rotated refresh token, and a code still waiting to be redeemed.
  const first = await authorizeCode(auth.issuer, client, user, 'content:read offline_access');
  secrets.session_id = first.agent.cookie('auth_sid')!;
  expect(secrets.session_id).toBeTruthy();
  secrets['code (redeemed)'] = first.code;
  secrets.code_verifier = first.verifier;
  const tokens = await client.oauthCallback(REDIRECT, first.params, {
    code_verifier: first.verifier,
    state: first.state,
  });
  const rotated = await client.refresh(tokens.refresh_token!);
  Object.assign(secrets, {
    'access token (code)': tokens.access_token!,
    'refresh token (used)': tokens.refresh_token!,
    'access token (refresh)': rotated.access_token!,
  });
  secrets['refresh token (live)'] = rotated.refresh_token!;
  await client.revoke(rotated.access_token!, 'access_token');
  const waiting = await authorizeCode(auth.issuer, client, user, 'content:read');
  secrets['code (not redeemed)'] = waiting.code;

  // Device flow: redeemed, approved but not yet redeemed, and pending device codes.
  const redeemed = await client.deviceAuthorization({ scope: 'speech:read offline_access' });
  await decideDevice(auth.issuer, redeemed, user, 'approve');
  const deviceTokens = await client.grant({ grant_type: DEVICE_CODE, device_code: redeemed.device_code });
  const approved = await client.deviceAuthorization({ scope: 'speech:read' });
  await decideDevice(auth.issuer, approved, user, 'approve');
  const pending = await client.deviceAuthorization({ scope: 'speech:read' });
  Object.assign(secrets, {
    'device code (redeemed)': redeemed.device_code,
    'refresh token (device)': deviceTokens.refresh_token!,
  });
  secrets['device code (approved)'] = approved.device_code;
  secrets['device code (pending)'] = pending.device_code;

  // The platform's own login and refresh (content's register/login path).
  const login = (await (
    await auth.internal('/login', { body: { email: user.email, password: user.password } })
  ).json()) as { access_token: string; refresh_token: string };
  const relogin = (await (
    await auth.internal('/refresh', { body: { refresh_token: login.refresh_token } })
  ).json()) as { refresh_token: string };
  Object.assign(secrets, {
    'access token (login)': login.access_token,
    'refresh token (login, used)': login.refresh_token,
    'refresh token (login, live)': relogin.refresh_token,
  });

  const dump = { ...(await mongoDump(auth.db)), ...(await redisDump(redisUrl)) };
  const all = Object.values(dump).join('\n');

  // The scan sees where each secret lives: its hash (or sealed form), next to public data.
  expect(Object.keys(dump)).toEqual(
    expect.arrayContaining([
      'mongo accounts',
      'mongo clients',
      'mongo api_keys',
      'mongo refresh_tokens',
      'mongo signing_keys',
    ]),
  );
  expect(dump['mongo accounts']).toContain(user.email);
  expect(dump['mongo accounts']).toMatch(/"passwordHash":"scrypt\$/);
  expect(dump['mongo clients']).toContain(sha256(secrets.client_secret));
  expect(dump['mongo api_keys']).toContain(sha256(secrets.api_key));
  expect(dump['mongo refresh_tokens']).toContain(sha256(secrets['refresh token (live)']));
  // The session holds the account id, its securityVersion (0: never changed) and the sign-in time in ms
  // (OpenID Connect auth_time), not the session id.
  expect(dump[`redis auth:session:${sha256(secrets.session_id)}`]).toMatch(new RegExp(`^${user.id} 0 \\d{13}$`));
  expect(dump[`redis auth:code:${sha256(secrets['code (not redeemed)'])}`]).toContain(user.id);
  expect(dump[`redis auth:device:${sha256(secrets['device code (approved)'])}`]).toContain('"status":"approved"');
  expect(dump[`redis auth:device:${sha256(secrets['device code (pending)'])}`]).toContain('"status":"pending"');

  // The signing key is sealed: with INTERNAL_SECRET it opens to a private JWK whose `d` appears nowhere.
  const keyset = JSON.parse(dump['mongo signing_keys']!) as {
    current: { publicJwk: Record<string, string>; privateSealed: Sealed };
  }[];
  const { current } = keyset[0]!;
  expect(current.publicJwk).not.toHaveProperty('d');
  expect(Object.keys(current.privateSealed).sort()).toEqual(['data', 'iv', 'tag']);
  const privateJwk = JSON.parse(sealer(INTERNAL_SECRET, 'signing-key-encryption').open(current.privateSealed)) as {
    d: string;
    x: string;
  };
  expect(privateJwk.x).toBe(current.publicJwk.x);
  secrets['signing key d'] = privateJwk.d;

  const found: string[] = [];
  for (const [name, secret] of Object.entries(secrets)) {
    expect(secret.length).toBeGreaterThanOrEqual(15);
    // The whole value, and its random part without a recognisable prefix (cs_, sk_, rt_, ac_, dc_).
    const needles = [secret, secret.replace(/^[a-z]{2}_/, '')];
    if (!needles.some((n) => all.includes(n))) continue;
    for (const [where, text] of Object.entries(dump))
      if (needles.some((n) => text.includes(n))) found.push(`${name} in ${where}`);
  }
  expect(found).toEqual([]);
});
