import { authorizationCodeGrant, s256, storeCode, type CodeRecord } from '../../src/grants/authorization-code';
import { REVOKED_JTI_PREFIX } from '../../src/tokens/revocation';
import { account, callGrant, client, fakeWorld, ISSUER, type FakeWorld } from './fake-grant-deps';

// RFC 6749 §4.1.3 with PKCE (RFC 7636), RFC 8707 resources, RFC 9449 DPoP binding, OpenID Connect Core 1.0 §3.1.3.
const VERIFIER = 'v'.repeat(43);
const REDIRECT = 'https://app.example/cb';

function record(overrides: Partial<CodeRecord> = {}): CodeRecord {
  return {
    clientId: 'web-app',
    redirectUri: REDIRECT,
    sub: 'acc-1',
    scopes: ['speech:read', 'offline_access'],
    audience: [ISSUER, `${ISSUER}/v1`],
    codeChallenge: s256(VERIFIER),
    ...overrides,
  };
}

let world: FakeWorld;
beforeEach(() => {
  world = fakeWorld();
});

async function redeem(
  code: string,
  params: Record<string, unknown> = {},
  options: Parameters<typeof callGrant>[3] = {},
) {
  return callGrant(
    world,
    authorizationCodeGrant,
    { code, redirect_uri: REDIRECT, code_verifier: VERIFIER, ...params },
    options,
  );
}

describe('authorization_code grant', () => {
  it("issues the code's subject, scopes and audience, with a refresh token for a client that may refresh", async () => {
    await storeCode(world.deps, 'code-1', record());
    const response = await redeem('code-1');
    expect(response).toMatchObject({ access_token: 'at-1', token_type: 'Bearer', refresh_token: 'rt-1' });
    expect(response.id_token).toBeUndefined();
    expect(world.tokens.only).toMatchObject({
      sub: 'acc-1',
      clientId: 'web-app',
      scopes: ['speech:read', 'offline_access'],
      audience: [ISSUER, `${ISSUER}/v1`],
      withRefresh: true,
    });
    expect(world.tokens.only.jkt).toBeUndefined();
  });

  it('issues no refresh token to a client whose registration does not list refresh_token', async () => {
    await storeCode(world.deps, 'code-1', record());
    const response = await redeem('code-1', {}, { client: client({ grantTypes: ['authorization_code'] }) });
    expect(response.refresh_token).toBeUndefined();
    expect(world.tokens.only.withRefresh).toBe(false);
  });

  it('adds an ID token with the nonce and auth_time when openid was granted', async () => {
    await storeCode(
      world.deps,
      'code-1',
      record({ scopes: ['openid', 'profile'], nonce: 'n-1', authTime: 1700000000 }),
    );
    const response = await redeem('code-1');
    expect(response.id_token).toBe('id-token-1');
    expect(world.tokens.idTokens).toEqual([
      expect.objectContaining({
        sub: 'acc-1',
        clientId: 'web-app',
        nonce: 'n-1',
        authTime: 1700000000,
        accessToken: 'at-1',
      }),
    ]);
    expect(world.tokens.only.authTime).toBe(1700000000);
  });

  it('is single use: a second redemption is invalid_grant and revokes what the first one issued', async () => {
    await storeCode(world.deps, 'code-1', record());
    await redeem('code-1');
    await expect(redeem('code-1')).rejects.toMatchObject({
      error: 'invalid_grant',
      description: expect.stringContaining('already used'),
    });
    expect(await world.redis.exists(`${REVOKED_JTI_PREFIX}jti-1`)).toBe(1);
  });

  it.each([
    ['an unknown code', 'nope', {}, undefined],
    ['a wrong redirect_uri', 'code-1', { redirect_uri: 'https://app.example/other' }, undefined],
    ['no code_verifier', 'code-1', { code_verifier: undefined }, undefined],
    ['a code_verifier of another challenge', 'code-1', { code_verifier: 'w'.repeat(43) }, undefined],
    ['a code_verifier without a challenge', 'code-1', {}, record({ codeChallenge: undefined })],
  ])('refuses %s with invalid_grant', async (_case, code, params, stored) => {
    await storeCode(world.deps, 'code-1', stored ?? record());
    await expect(redeem(code, params)).rejects.toMatchObject({ error: 'invalid_grant' });
    expect(world.tokens.issued).toHaveLength(0);
  });

  it("refuses another client's code", async () => {
    await storeCode(world.deps, 'code-1', record({ clientId: 'other-app' }));
    await expect(redeem('code-1')).rejects.toMatchObject({
      error: 'invalid_grant',
      description: expect.stringContaining('another client'),
    });
  });

  it('refuses a disabled account', async () => {
    world.accounts.set('acc-1', account({ status: 'disabled' }));
    await storeCode(world.deps, 'code-1', record());
    await expect(redeem('code-1')).rejects.toMatchObject({
      error: 'invalid_grant',
      description: expect.stringContaining('no longer active'),
    });
  });

  it('narrows the audience to the requested resources and refuses one beyond the grant (invalid_target)', async () => {
    await storeCode(world.deps, 'code-1', record());
    await storeCode(world.deps, 'code-2', record());
    await redeem('code-1', { resource: `${ISSUER}/v1` });
    expect(world.tokens.only.audience).toEqual([`${ISSUER}/v1`]);
    await expect(redeem('code-2', { resource: 'https://elsewhere.example/' })).rejects.toMatchObject({
      error: 'invalid_target',
    });
  });

  it("binds the access token to the proof's key, and a public client's refresh token too (RFC 9449 §5)", async () => {
    await storeCode(world.deps, 'code-1', record());
    await redeem('code-1', {}, { client: client({ type: 'public' }), method: 'none', jkt: 'key-1' });
    expect(world.tokens.only).toMatchObject({ jkt: 'key-1', refreshJkt: 'key-1', withRefresh: true });
  });

  it("leaves a confidential client's refresh token bound to the client, not the key", async () => {
    await storeCode(world.deps, 'code-1', record());
    await redeem('code-1', {}, { jkt: 'key-1' });
    expect(world.tokens.only.jkt).toBe('key-1');
    expect(world.tokens.only.refreshJkt).toBeUndefined();
  });

  it('refuses a code bound to a DPoP key (dpop_jkt) without a proof made with it', async () => {
    await storeCode(world.deps, 'code-1', record({ dpopJkt: 'key-1' }));
    await storeCode(world.deps, 'code-2', record({ dpopJkt: 'key-1' }));
    await expect(redeem('code-1')).rejects.toMatchObject({ error: 'invalid_dpop_proof' });
    await expect(redeem('code-2', {}, { jkt: 'key-2' })).rejects.toMatchObject({ error: 'invalid_dpop_proof' });
  });
});
