import { generateKeyPairSync, sign } from 'node:crypto';
import { SignJWT, exportJWK, generateKeyPair, type JWK, type KeyLike } from 'jose';
import {
  accessTokenHash,
  buildChallenge,
  DPOP_SIGNING_ALGORITHMS,
  DpopProofError,
  verifyDpopProof,
  type ReplayCache,
} from '../src';

function memoryReplay(): ReplayCache {
  const seen = new Set<string>();
  return {
    async firstUse(key) {
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    },
  };
}

const URL_ = 'https://api.example.org/v1/voices';
let privateKey: KeyLike;
let publicJwk: JWK;
let privateJwk: JWK;

beforeAll(async () => {
  const pair = await generateKeyPair('ES256', { extractable: true });
  privateKey = pair.privateKey;
  publicJwk = await exportJWK(pair.publicKey);
  privateJwk = await exportJWK(pair.privateKey);
});

async function proof(
  overrides: { header?: Record<string, unknown>; payload?: Record<string, unknown> } = {},
): Promise<string> {
  return new SignJWT({
    jti: crypto.randomUUID(),
    htm: 'GET',
    htu: URL_,
    iat: Math.floor(Date.now() / 1000),
    ...overrides.payload,
  })
    .setProtectedHeader({ typ: 'dpop+jwt', alg: 'ES256', jwk: publicJwk, ...overrides.header } as never)
    .sign(privateKey);
}

async function rejection(p: string, extra: Partial<Parameters<typeof verifyDpopProof>[1]> = {}): Promise<string> {
  try {
    await verifyDpopProof(p, { method: 'GET', url: URL_, replay: memoryReplay(), ...extra });
  } catch (err) {
    if (err instanceof DpopProofError) return err.message;
    throw err;
  }
  return 'accepted';
}

describe('verifyDpopProof', () => {
  it('accepts a good proof (query string ignored) and returns the key thumbprint', async () => {
    const verified = await verifyDpopProof(await proof(), {
      method: 'get',
      url: `${URL_}?page=2`,
      replay: memoryReplay(),
    });
    expect(verified.jkt).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it('rejects a replayed proof', async () => {
    const replay = memoryReplay();
    const p = await proof();
    await verifyDpopProof(p, { method: 'GET', url: URL_, replay });
    await expect(verifyDpopProof(p, { method: 'GET', url: URL_, replay })).rejects.toThrow('already used');
  });

  it.each([
    ['wrong htu', { payload: { htu: 'https://api.example.org/v1/other' } }, 'htu'],
    ['wrong htm', { payload: { htm: 'POST' } }, 'htm'],
    ['stale iat', { payload: { iat: Math.floor(Date.now() / 1000) - 3600 } }, 'iat'],
    ['future iat', { payload: { iat: Math.floor(Date.now() / 1000) + 3600 } }, 'iat'],
    ['missing jti', { payload: { jti: undefined } }, 'jti'],
    ['wrong typ', { header: { typ: 'JWT' } }, 'typ'],
  ])('rejects %s', async (_name, overrides, why) => {
    expect(await rejection(await proof(overrides))).toMatch(why);
  });

  it('rejects alg none', async () => {
    const header = Buffer.from(JSON.stringify({ typ: 'dpop+jwt', alg: 'none', jwk: publicJwk })).toString('base64url');
    const body = Buffer.from(
      JSON.stringify({ jti: 'x', htm: 'GET', htu: URL_, iat: Math.floor(Date.now() / 1000) }),
    ).toString('base64url');
    expect(await rejection(`${header}.${body}.`)).toMatch('alg');
  });

  it('rejects an algorithm outside the allow-list', async () => {
    expect(await rejection(await proof(), { algorithms: ['EdDSA'] })).toMatch('alg');
  });

  it('rejects a private key in jwk', async () => {
    expect(await rejection(await proof({ header: { jwk: privateJwk } }))).toMatch('public');
  });

  it('rejects a signature by another key', async () => {
    const other = await generateKeyPair('ES256');
    const p = await new SignJWT({ jti: 'a', htm: 'GET', htu: URL_, iat: Math.floor(Date.now() / 1000) })
      .setProtectedHeader({ typ: 'dpop+jwt', alg: 'ES256', jwk: publicJwk })
      .sign(other.privateKey);
    expect(await rejection(p)).toMatch('signature');
  });

  it('checks ath against the access token', async () => {
    const good = await proof({ payload: { ath: accessTokenHash('token-a') } });
    expect(await rejection(good, { accessToken: 'token-a' })).toBe('accepted');
    const wrong = await proof({ payload: { ath: accessTokenHash('token-b') } });
    expect(await rejection(wrong, { accessToken: 'token-a' })).toMatch('ath');
    expect(await rejection(await proof(), { accessToken: 'token-a' })).toMatch('ath');
  });

  it('asks for a nonce when one is required and hands out a fresh one', async () => {
    const nonces = {
      issue: async () => 'fresh-nonce-value-0123',
      isValid: async (n: string) => n === 'fresh-nonce-value-0123',
    };
    await expect(
      verifyDpopProof(await proof(), { method: 'GET', url: URL_, replay: memoryReplay(), nonces, requireNonce: true }),
    ).rejects.toMatchObject({
      code: 'use_dpop_nonce',
      nonce: 'fresh-nonce-value-0123',
    });
    const withNonce = await proof({ payload: { nonce: 'fresh-nonce-value-0123' } });
    await expect(
      verifyDpopProof(withNonce, { method: 'GET', url: URL_, replay: memoryReplay(), nonces, requireNonce: true }),
    ).resolves.toHaveProperty('jkt');
  });

  it('rejects garbage without throwing anything else', async () => {
    for (const junk of ['', 'a.b', 'a.b.c', '%%%', 'x'.repeat(10_000)])
      expect(await rejection(junk)).not.toBe('accepted');
  });
});

describe('buildChallenge', () => {
  it('formats RFC 6750 and RFC 9449 challenges', () => {
    expect(buildChallenge({ scheme: 'Bearer', realm: 'api' })).toBe('Bearer realm="api"');
    expect(
      buildChallenge({ scheme: 'Bearer', error: 'insufficient_scope', description: 'needs "x"', scope: 'a b' }),
    ).toBe('Bearer error="insufficient_scope", error_description="needs x", scope="a b"');
    expect(buildChallenge({ scheme: 'DPoP', algs: ['ES256'], error: 'invalid_dpop_proof', description: 'bad' })).toBe(
      'DPoP algs="ES256", error="invalid_dpop_proof", error_description="bad"',
    );
  });
});

/**
 * RFC 9864 (Fully-Specified Algorithms for JOSE) names EdDSA over Ed25519 `Ed25519`; current
 * oauth4webapi and openid-client send that name, older clients send `EdDSA`. Both are accepted, and
 * the name must fit the key in the proof's `jwk`.
 */
describe('verifyDpopProof: Ed25519 and EdDSA (RFC 9864)', () => {
  /** Signed by hand (node:crypto), so the header may name any `alg` for any key, as a forger would. */
  async function okpProof(alg: string, curve: 'ed25519' | 'ed448', jwkOf?: JWK): Promise<string> {
    const pair = generateKeyPairSync(curve as 'ed25519');
    const jwk = jwkOf ?? (await exportJWK(pair.publicKey));
    const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
    const input = `${part({ typ: 'dpop+jwt', alg, jwk })}.${part({ jti: crypto.randomUUID(), htm: 'GET', htu: URL_, iat: Math.floor(Date.now() / 1000) })}`;
    return `${input}.${sign(null, Buffer.from(input), pair.privateKey).toString('base64url')}`;
  }

  it('the default list names both Ed25519 and EdDSA', () => {
    expect(DPOP_SIGNING_ALGORITHMS).toEqual(expect.arrayContaining(['Ed25519', 'EdDSA', 'ES256']));
  });

  it('accepts a proof whose alg is Ed25519 (an OKP Ed25519 key)', async () => {
    expect(await rejection(await okpProof('Ed25519', 'ed25519'))).toBe('accepted');
  });

  it('accepts a proof whose alg is EdDSA (an OKP Ed25519 key)', async () => {
    expect(await rejection(await okpProof('EdDSA', 'ed25519'))).toBe('accepted');
  });

  it('refuses Ed25519 naming an Ed448 key', async () => {
    expect(await rejection(await okpProof('Ed25519', 'ed448'))).toMatch(/alg does not fit/);
  });

  it('refuses Ed25519 naming an EC key, and ES256 naming an OKP key', async () => {
    expect(await rejection(await okpProof('Ed25519', 'ed25519', publicJwk))).toMatch(/alg does not fit/);
    expect(
      await rejection(
        await proof({
          header: { jwk: { kty: 'OKP', crv: 'Ed25519', x: '11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo' } },
        }),
      ),
    ).toMatch(/alg does not fit/);
  });
});
