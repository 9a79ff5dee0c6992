import http from 'node:http';
import { Redis } from 'ioredis';
import { SignJWT, exportJWK, generateKeyPair, type KeyLike } from 'jose';
import { freePort, stackEnv, untilClock } from '@platform/testing';
import {
  createTokenVerifier,
  KeySetUnavailableError,
  remoteKeySet,
  ResourceAuthError,
  type TokenVerifier,
} from '../src';

/**
 * An authorization server whose JWKS cannot be fetched (stopped, erroring, silent) must not make a
 * good token look bad: the verifier answers KeySetUnavailableError (503) unless the token's own
 * claims already refuse it, and recovers as soon as the JWKS answers again.
 */
const ISSUER = 'https://platform.example.org';
const API = `${ISSUER}/v1/voices`;
let redis: Redis;
let signingKey: KeyLike;
let jwks: { keys: object[] };
let port: number;
let jwksUrl: string;
let server: http.Server | undefined;
/** What the JWKS endpoint does while it runs. */
let behaviour: 'serve' | 'error' | 'garbage' | 'silent' = 'serve';
const silent: http.ServerResponse[] = [];

async function startJwks(): Promise<void> {
  server = http.createServer((_req, res) => {
    if (behaviour === 'serve') res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(jwks));
    else if (behaviour === 'error') res.writeHead(500).end('down for maintenance');
    else if (behaviour === 'garbage')
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"keys": not json');
    else silent.push(res);
  });
  await new Promise<void>((resolve) => server!.listen(port, '127.0.0.1', resolve));
}

async function stopJwks(): Promise<void> {
  if (!server) return;
  for (const res of silent.splice(0)) res.destroy();
  server.closeAllConnections();
  await new Promise((resolve) => server!.close(resolve));
  server = undefined;
}

async function accessToken(
  claims: Record<string, unknown> = {},
  options: { lifetime?: number; kid?: string; iss?: string } = {},
): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ client_id: 'c1', scope: 'speech:read', jti: crypto.randomUUID(), ...claims })
    .setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid: options.kid ?? 'k1' })
    .setIssuer(options.iss ?? ISSUER)
    .setSubject('acct-1')
    .setAudience((claims.aud as string) ?? ISSUER)
    .setIssuedAt(now)
    .setExpirationTime(now + (options.lifetime ?? 300))
    .sign(signingKey);
}

function verifier(extra: { jwksCooldownSeconds?: number; jwksTimeoutSeconds?: number } = {}): TokenVerifier {
  return createTokenVerifier({ issuer: ISSUER, jwksUrl, audiences: [ISSUER], redis, realm: 'platform', ...extra });
}

async function outcome(v: TokenVerifier, token: string): Promise<unknown> {
  try {
    return await v.verify({ authorization: `Bearer ${token}`, method: 'GET', url: API });
  } catch (err) {
    return err;
  }
}

beforeAll(async () => {
  const pair = await generateKeyPair('ES256');
  signingKey = pair.privateKey;
  jwks = { keys: [{ ...(await exportJWK(pair.publicKey)), kid: 'k1', alg: 'ES256' }] };
  port = await freePort();
  jwksUrl = `http://127.0.0.1:${port}/jwks`;
  redis = new Redis(stackEnv().REDIS_URL);
});

afterEach(async () => {
  behaviour = 'serve';
  await stopJwks();
});

afterAll(() => {
  redis?.disconnect();
});

describe('a verifier that has no keys yet while the JWKS cannot be fetched', () => {
  it('answers 503 KeySetUnavailableError for a good token, then accepts it once the JWKS answers (no cooldown after a failure)', async () => {
    const v = verifier();
    const token = await accessToken();
    const err = await outcome(v, token);
    expect(err).toBeInstanceOf(KeySetUnavailableError);
    const unavailable = err as KeySetUnavailableError;
    expect(unavailable.status).toBe(503);
    expect(unavailable.headers).toEqual({ 'Retry-After': '1' });
    expect(unavailable.toBody()).toEqual({
      error: 'temporarily_unavailable',
      error_description: 'the signing keys cannot be fetched now',
    });
    // Nothing about the internal address reaches the client.
    expect(JSON.stringify(unavailable.toBody())).not.toContain(String(port));
    await startJwks();
    expect(await outcome(v, token)).toMatchObject({ sub: 'acct-1', scopes: ['speech:read'] });
  });

  it('still refuses (401) what the token itself gives away: expired, wrong audience, wrong issuer, wrong typ, garbage claims', async () => {
    const v = verifier();
    const expired = await outcome(v, await accessToken({}, { lifetime: -60 }));
    expect(expired).toBeInstanceOf(ResourceAuthError);
    expect(expired).toMatchObject({ status: 401, error: 'invalid_token', description: 'token expired' });
    expect(await outcome(v, await accessToken({ aud: 'https://elsewhere.example' }))).toMatchObject({
      status: 401,
      description: 'token audience is not this resource',
    });
    expect(await outcome(v, await accessToken({}, { iss: 'https://evil.example' }))).toMatchObject({
      status: 401,
      description: 'token is invalid',
    });
    const wrongTyp = await new SignJWT({ jti: 'x', sub: 's' })
      .setProtectedHeader({ alg: 'ES256', typ: 'JWT', kid: 'k1' })
      .setIssuer(ISSUER)
      .setAudience(ISSUER)
      .setIssuedAt()
      .setExpirationTime('5m')
      .sign(signingKey);
    expect(await outcome(v, wrongTyp)).toMatchObject({ status: 401, description: 'token is invalid' });
    const header = Buffer.from(JSON.stringify({ alg: 'ES256', typ: 'at+jwt', kid: 'k1' })).toString('base64url');
    expect(await outcome(v, `${header}.bm90IGpzb24.c2ln`)).toMatchObject({
      status: 401,
      description: 'token is invalid',
    });
  });

  it.each([
    ['answers 500', 'error'],
    ['answers something that is not JSON', 'garbage'],
  ] as const)('treats a JWKS endpoint that %s as unavailable', async (_name, how) => {
    behaviour = how;
    await startJwks();
    expect(await outcome(verifier(), await accessToken())).toBeInstanceOf(KeySetUnavailableError);
  });

  it('gives up on a JWKS endpoint that does not answer after jwksTimeoutSeconds', async () => {
    behaviour = 'silent';
    await startJwks();
    const started = Date.now();
    expect(await outcome(verifier({ jwksTimeoutSeconds: 0.3 }), await accessToken())).toBeInstanceOf(
      KeySetUnavailableError,
    );
    // The endpoint never answers: only a timeout ends the fetch, and it ended before the default
    // one (5 s) could have, so the configured 0.3 s did. (Not a tighter bound: a loaded machine.)
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});

describe('a verifier that has keys', () => {
  it('keeps accepting tokens of a known kid while the JWKS is down; an unknown kid it cannot refetch is 503, not 401', async () => {
    await startJwks();
    const v = verifier({ jwksCooldownSeconds: 0 });
    expect(await outcome(v, await accessToken())).toMatchObject({ sub: 'acct-1' });
    await stopJwks();
    expect(await outcome(v, await accessToken())).toMatchObject({ sub: 'acct-1' });
    expect(await outcome(v, await accessToken({}, { kid: 'rotated-in' }))).toBeInstanceOf(KeySetUnavailableError);
  });

  it('refuses an unknown kid with 401 when the JWKS answers and has no such key', async () => {
    await startJwks();
    const v = verifier({ jwksCooldownSeconds: 0 });
    expect(await outcome(v, await accessToken({}, { kid: 'nobody' }))).toMatchObject({
      status: 401,
      error: 'invalid_token',
      description: 'token is invalid',
    });
  });

  it('verifies with the keys it holds when the refetch of an aged key set fails (remoteKeySet)', async () => {
    await startJwks();
    const MAX_AGE_MS = 50;
    const keys = remoteKeySet(new URL(jwksUrl), { cooldownMs: 0, timeoutMs: 1_000, maxAgeMs: MAX_AGE_MS });
    const header = { alg: 'ES256', kid: 'k1' };
    await expect(keys(header, { payload: '', signature: '' })).resolves.toBeDefined();
    const fetchedBy = Date.now();
    await stopJwks();
    // The set is aged once the clock is past its fetch plus the maximum age.
    await untilClock(fetchedBy + MAX_AGE_MS + 50);
    await expect(keys(header, { payload: '', signature: '' })).resolves.toBeDefined();
    await expect(keys({ alg: 'ES256', kid: 'k2' }, { payload: '', signature: '' })).rejects.toBeInstanceOf(
      KeySetUnavailableError,
    );
  });
});
