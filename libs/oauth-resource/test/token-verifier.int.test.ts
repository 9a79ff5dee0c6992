import http from 'node:http';
import { Redis } from 'ioredis';
import { SignJWT, calculateJwkThumbprint, exportJWK, generateKeyPair, type JWK, type KeyLike } from 'jose';
import { freePort, stackEnv, uniqueName } from '@platform/testing';
import {
  accessTokenHash,
  createTokenVerifier,
  ResourceAuthError,
  REVOKED_JTI_PREFIX,
  type TokenVerifier,
} from '../src';

const ISSUER = 'https://platform.example.org';
const API = `${ISSUER}/v1/voices`;
let server: http.Server;
let redis: Redis;
let verifier: TokenVerifier;
let signingKey: KeyLike;
let signingPublic: KeyLike;
let dpopKey: { privateKey: KeyLike; jwk: JWK; jkt: string };

async function accessToken(claims: Record<string, unknown> = {}, lifetime = 300): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ client_id: 'c1', scope: 'speech:read speech:write', jti: crypto.randomUUID(), ...claims })
    .setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid: 'k1' })
    .setIssuer(ISSUER)
    .setSubject('acct-1')
    .setAudience((claims.aud as string) ?? ISSUER)
    .setIssuedAt(now)
    .setExpirationTime(now + lifetime)
    .sign(signingKey);
}

async function dpopProof(token: string, overrides: Record<string, unknown> = {}): Promise<string> {
  return new SignJWT({
    jti: crypto.randomUUID(),
    htm: 'GET',
    htu: API,
    iat: Math.floor(Date.now() / 1000),
    ath: accessTokenHash(token),
    ...overrides,
  })
    .setProtectedHeader({ typ: 'dpop+jwt', alg: 'ES256', jwk: dpopKey.jwk })
    .sign(dpopKey.privateKey);
}

async function failure(promise: Promise<unknown>): Promise<ResourceAuthError> {
  try {
    await promise;
  } catch (err) {
    if (err instanceof ResourceAuthError) return err;
    throw err;
  }
  throw new Error('expected a ResourceAuthError');
}

beforeAll(async () => {
  const pair = await generateKeyPair('ES256');
  signingKey = pair.privateKey;
  signingPublic = pair.publicKey;
  const jwks = { keys: [{ ...(await exportJWK(pair.publicKey)), kid: 'k1', alg: 'ES256' }] };
  const dpop = await generateKeyPair('ES256');
  const jwk = await exportJWK(dpop.publicKey);
  dpopKey = { privateKey: dpop.privateKey, jwk, jkt: await calculateJwkThumbprint(jwk) };
  const port = await freePort();
  server = http.createServer((_req, res) =>
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(jwks)),
  );
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  redis = new Redis(stackEnv().REDIS_URL);
  verifier = createTokenVerifier({
    issuer: ISSUER,
    jwksUrl: `http://127.0.0.1:${port}/jwks`,
    audiences: [ISSUER, `${ISSUER}/v1`],
    redis,
    realm: 'platform',
    dpop: { replayPrefix: `${uniqueName('dpop')}:` },
  });
});

afterAll(async () => {
  redis?.disconnect();
  await new Promise((resolve) => server?.close(resolve));
});

describe('createTokenVerifier (real Redis, JWKS over HTTP)', () => {
  it('accepts a Bearer token and reports its subject, client and scopes', async () => {
    const token = await accessToken();
    const verified = await verifier.verify({ authorization: `Bearer ${token}`, method: 'GET', url: API }, [
      'speech:read',
    ]);
    expect(verified).toMatchObject({
      scheme: 'Bearer',
      sub: 'acct-1',
      clientId: 'c1',
      scopes: ['speech:read', 'speech:write'],
    });
  });

  it('answers 401 without an error code when no token is sent, offering Bearer and DPoP', async () => {
    const err = await failure(verifier.verify({ method: 'GET', url: API }));
    expect(err.status).toBe(401);
    expect(err.wwwAuthenticate).toBe(
      'Bearer realm="platform", DPoP realm="platform", algs="ES256 Ed25519 EdDSA ES384 PS256 RS256"',
    );
  });

  it('answers 403 insufficient_scope with the needed scope in the challenge', async () => {
    const err = await failure(
      verifier.verify(
        { authorization: `Bearer ${await accessToken({ scope: 'speech:read' })}`, method: 'GET', url: API },
        ['speech:write'],
      ),
    );
    expect(err.status).toBe(403);
    expect(err.toBody().error).toBe('insufficient_scope');
    expect(err.wwwAuthenticate).toContain('error="insufficient_scope"');
    expect(err.wwwAuthenticate).toContain('scope="speech:write"');
  });

  it('rejects expired, wrong-audience, tampered and revoked tokens with invalid_token', async () => {
    const expired = await failure(
      verifier.verify({ authorization: `Bearer ${await accessToken({}, -60)}`, method: 'GET', url: API }),
    );
    expect(expired.description).toBe('token expired');
    expect(expired.wwwAuthenticate).toMatch(/^Bearer realm="platform", error="invalid_token"/);
    const wrongAud = await failure(
      verifier.verify({
        authorization: `Bearer ${await accessToken({ aud: 'https://elsewhere.example' })}`,
        method: 'GET',
        url: API,
      }),
    );
    expect(wrongAud.description).toBe('token audience is not this resource');
    const token = await accessToken();
    const tampered = await failure(
      verifier.verify({ authorization: `Bearer ${token.slice(0, -4)}AAAA`, method: 'GET', url: API }),
    );
    expect(tampered.error).toBe('invalid_token');

    const jti = crypto.randomUUID();
    const revokedToken = await accessToken({ jti });
    await verifier.verify({ authorization: `Bearer ${revokedToken}`, method: 'GET', url: API });
    await redis.set(`auth:revoked:jti:${jti}`, '1', 'EX', 60);
    const revoked = await failure(
      verifier.verify({ authorization: `Bearer ${revokedToken}`, method: 'GET', url: API }),
    );
    expect(revoked).toMatchObject({ status: 401, error: 'invalid_token', description: 'token revoked' });
  });

  it('accepts a DPoP-bound token with a matching proof, once', async () => {
    const token = await accessToken({ cnf: { jkt: dpopKey.jkt } });
    const proof = await dpopProof(token);
    const ok = await verifier.verify({ authorization: `DPoP ${token}`, dpop: proof, method: 'GET', url: API }, [
      'speech:read',
    ]);
    expect(ok).toMatchObject({ scheme: 'DPoP', jkt: dpopKey.jkt });
    const replay = await failure(
      verifier.verify({ authorization: `DPoP ${token}`, dpop: proof, method: 'GET', url: API }),
    );
    expect(replay.error).toBe('invalid_dpop_proof');
    expect(replay.wwwAuthenticate).toMatch(/^DPoP /);
  });

  it('rejects DPoP misuse: bound token as Bearer, wrong ath, wrong key, missing proof, wrong htu', async () => {
    const token = await accessToken({ cnf: { jkt: dpopKey.jkt } });
    expect((await failure(verifier.verify({ authorization: `Bearer ${token}`, method: 'GET', url: API }))).error).toBe(
      'invalid_token',
    );
    const wrongAth = await failure(
      verifier.verify({
        authorization: `DPoP ${token}`,
        dpop: await dpopProof(token, { ath: accessTokenHash('other') }),
        method: 'GET',
        url: API,
      }),
    );
    expect(wrongAth.description).toMatch('ath');
    const unbound = await accessToken({ cnf: { jkt: 'somebody-elses-thumbprint' } });
    const wrongKey = await failure(
      verifier.verify({ authorization: `DPoP ${unbound}`, dpop: await dpopProof(unbound), method: 'GET', url: API }),
    );
    expect(wrongKey.description).toMatch('binding');
    expect((await failure(verifier.verify({ authorization: `DPoP ${token}`, method: 'GET', url: API }))).error).toBe(
      'invalid_dpop_proof',
    );
    const wrongHtu = await failure(
      verifier.verify({
        authorization: `DPoP ${token}`,
        dpop: await dpopProof(token, { htu: `${ISSUER}/api/v1/posts` }),
        method: 'GET',
        url: API,
      }),
    );
    expect(wrongHtu.description).toMatch('htu');
    const plainAsDpop = await accessToken();
    expect(
      (
        await failure(
          verifier.verify({
            authorization: `DPoP ${plainAsDpop}`,
            dpop: await dpopProof(plainAsDpop),
            method: 'GET',
            url: API,
          }),
        )
      ).description,
    ).toBe('token is not DPoP-bound');
  });

  it('rejects malformed Authorization headers with 401/400, never throwing anything else', async () => {
    for (const authorization of [
      'Basic abc',
      'Bearer',
      'Bearer a b',
      'Bearer ' + 'x'.repeat(9000),
      'Bearer not.a.jwt',
    ]) {
      const err = await failure(verifier.verify({ authorization, method: 'GET', url: API }));
      expect(err.status).toBe(401);
    }
    expect(
      (await failure(verifier.verify({ authorization: ['Bearer a', 'Bearer b'], method: 'GET', url: API }))).status,
    ).toBe(400);
  });
});

describe('verified-token cache and deferred revocation', () => {
  const counted = (now: () => number, verifiedTokenCacheMs?: number) => {
    let keyLookups = 0;
    const cached = createTokenVerifier({
      issuer: ISSUER,
      jwksUrl: 'http://127.0.0.1:1/unused',
      audiences: [ISSUER],
      redis,
      keys: async () => {
        keyLookups += 1;
        return signingPublic;
      },
      now,
      ...(verifiedTokenCacheMs !== undefined ? { verifiedTokenCacheMs } : {}),
      dpop: { replayPrefix: `${uniqueName('dpop')}:` },
    });
    return { cached, lookups: () => keyLookups };
  };

  it('verifies a token signature once, but checks revocation on every request', async () => {
    let clock = Date.now();
    const { cached, lookups } = counted(() => clock);
    const token = await accessToken();
    const request = { authorization: `Bearer ${token}`, method: 'GET', url: API };
    expect((await cached.verify(request)).sub).toBe('acct-1');
    clock += 30_000;
    expect((await cached.verify(request)).sub).toBe('acct-1');
    expect(lookups()).toBe(1);
    const jti = (JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()) as { jti: string }).jti;
    await redis.set(`${REVOKED_JTI_PREFIX}${jti}`, '1', 'EX', 60);
    expect((await failure(cached.verify(request))).description).toBe('token revoked');
    // Deferred: the caller checks revocation (the gateway, with its limits); the cache still serves the claims.
    expect((await cached.verify(request, [], { revocation: 'deferred' })).sub).toBe('acct-1');
    expect(lookups()).toBe(1);
  });

  it('re-checks expiry on a hit, forgets a token 5 s before its exp and after the cache lifetime', async () => {
    let clock = Date.now();
    const { cached, lookups } = counted(() => clock, 10_000);
    const shortLived = await accessToken({}, 20);
    const request = { authorization: `Bearer ${shortLived}`, method: 'GET', url: API };
    await cached.verify(request);
    clock += 9_000;
    await cached.verify(request);
    expect(lookups()).toBe(1);
    clock += 2_000; // past the 10 s lifetime: verified again
    await cached.verify(request);
    expect(lookups()).toBe(2);
    clock += 5_000; // 4 s before exp: not served from the cache, verified again (still valid)
    await cached.verify(request);
    expect(lookups()).toBe(3);
    clock += 10_000; // past exp and its 5 s tolerance
    expect((await failure(cached.verify(request))).description).toBe('token expired');
  });

  it('never caches a token that failed', async () => {
    const { cached, lookups } = counted(() => Date.now());
    const token = await accessToken({ aud: 'https://elsewhere.example.org' });
    const request = { authorization: `Bearer ${token}`, method: 'GET', url: API };
    expect((await failure(cached.verify(request))).description).toBe('token audience is not this resource');
    expect((await failure(cached.verify(request))).description).toBe('token audience is not this resource');
    expect(lookups()).toBe(2);
  });
});
