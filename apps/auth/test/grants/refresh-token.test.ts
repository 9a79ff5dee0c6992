import { sha256 } from '../../src/crypto/secrets';
import { refreshTokenGrant } from '../../src/grants/refresh-token';
import type { RefreshTokenDoc } from '../../src/tokens/refresh-tokens';
import { API_KEY_REVOKED_CHANNEL, REVOKED_JTI_PREFIX } from '../../src/tokens/revocation';
import { account, callGrant, client, fakeWorld, ISSUER, type FakeWorld } from './fake-grant-deps';

// RFC 6749 §6 with rotation and reuse detection (RFC 9700 §4.14), RFC 8707 narrowing, RFC 9449 §5
// binding of public clients' refresh tokens, OpenID Connect Core 1.0 §12.2 ID tokens on refresh.
let world: FakeWorld;
beforeEach(() => {
  world = fakeWorld();
});

function stored(token: string, overrides: Partial<RefreshTokenDoc> = {}): string {
  world.refreshTokens.docs.set(sha256(token), {
    _id: sha256(token),
    familyId: 'family-a',
    clientId: 'web-app',
    sub: 'acc-1',
    scopes: ['speech:read', 'speech:write', 'offline_access'],
    audience: [ISSUER, `${ISSUER}/v1`],
    jkt: null,
    accessJti: 'jti-old',
    accessExp: Math.floor(Date.now() / 1000) + 600,
    authTime: null,
    expiresAt: new Date(Date.now() + 60_000),
    usedAt: null,
    revokedAt: null,
    ...overrides,
  });
  return token;
}

const refresh = (token: string, params: Record<string, unknown> = {}, options: Parameters<typeof callGrant>[3] = {}) =>
  callGrant(world, refreshTokenGrant, { refresh_token: token, ...params }, options);

describe('refresh_token grant', () => {
  it("rotates: the family's next refresh token, the same grant, the old token used", async () => {
    const response = await refresh(stored('rt_a'));
    expect(response.refresh_token).toBe('rt-1');
    expect(response.id_token).toBeUndefined();
    expect(world.tokens.only).toMatchObject({
      sub: 'acc-1',
      clientId: 'web-app',
      scopes: ['speech:read', 'speech:write', 'offline_access'],
      audience: [ISSUER, `${ISSUER}/v1`],
      withRefresh: true,
      familyId: 'family-a',
    });
    expect(world.refreshTokens.docs.get(sha256('rt_a'))!.usedAt).toBeInstanceOf(Date);
  });

  it('narrows scope and audience, and refuses to widen them without burning the token', async () => {
    await refresh(stored('rt_a'), { scope: 'speech:read', resource: `${ISSUER}/v1` });
    expect(world.tokens.only).toMatchObject({ scopes: ['speech:read'], audience: [`${ISSUER}/v1`] });
    stored('rt_b');
    await expect(refresh('rt_b', { scope: 'speech:read admin' })).rejects.toMatchObject({ error: 'invalid_scope' });
    await expect(refresh('rt_b', { resource: 'https://elsewhere.example/' })).rejects.toMatchObject({
      error: 'invalid_target',
    });
    expect(world.refreshTokens.docs.get(sha256('rt_b'))!.usedAt).toBeNull();
  });

  it('treats a second use as reuse: invalid_grant, and the family with its access tokens revoked', async () => {
    stored('rt_a');
    await refresh('rt_a');
    await expect(refresh('rt_a')).rejects.toMatchObject({
      error: 'invalid_grant',
      description: expect.stringContaining('already used'),
    });
    expect(world.refreshTokens.docs.get(sha256('rt_a'))!.revokedAt).toBeInstanceOf(Date);
    expect(await world.redis.exists(`${REVOKED_JTI_PREFIX}jti-old`)).toBe(1);
  });

  it('revokes the API keys minted in a family when its reuse revokes it, and tells the gateways', async () => {
    const minted = (id: string, familyId: string) => ({
      _id: id,
      accountId: 'acc-1',
      name: id,
      hash: id,
      prefix: 'sk_',
      createdAt: new Date(),
      revokedAt: null,
      grant: { clientId: 'web-app', familyId, tokenId: `jti-${id}` },
    });
    world.apiKeys.docs.set('key_a', minted('key_a', 'family-a'));
    world.apiKeys.docs.set('key_b', minted('key_b', 'family-b'));
    stored('rt_a');
    await refresh('rt_a');
    await expect(refresh('rt_a')).rejects.toMatchObject({ error: 'invalid_grant' });
    expect(world.apiKeys.docs.get('key_a')!.revokedAt).toBeInstanceOf(Date);
    expect(world.apiKeys.docs.get('key_b')!.revokedAt).toBeNull();
    expect(world.redis.published).toContainEqual([API_KEY_REVOKED_CHANNEL, 'key_a']);
  });

  it.each([
    ['an unknown token', undefined, {}],
    ["another client's token", 'rt_a', { clientId: 'other-app' }],
    ['an expired token', 'rt_a', { expiresAt: new Date(Date.now() - 1) }],
    ['a revoked token', 'rt_a', { revokedAt: new Date() }],
  ])('refuses %s with invalid_grant', async (_case, token, overrides) => {
    if (token) stored(token, overrides);
    await expect(refresh(token ?? 'rt_unknown')).rejects.toMatchObject({ error: 'invalid_grant' });
    expect(world.tokens.issued).toHaveLength(0);
  });

  it('refuses a disabled account', async () => {
    world.accounts.set('acc-1', account({ status: 'disabled' }));
    await expect(refresh(stored('rt_a'))).rejects.toMatchObject({
      error: 'invalid_grant',
      description: expect.stringContaining('no longer active'),
    });
  });

  it("keeps a DPoP-bound family bound to its key, and refuses the token without that key's proof before consuming it", async () => {
    const pub = client({ type: 'public' });
    stored('rt_a', { jkt: 'key-1' });
    await expect(refresh('rt_a', {}, { client: pub, method: 'none' })).rejects.toMatchObject({
      error: 'invalid_grant',
      description: expect.stringContaining('DPoP'),
    });
    await expect(refresh('rt_a', {}, { client: pub, method: 'none', jkt: 'key-2' })).rejects.toMatchObject({
      error: 'invalid_grant',
    });
    expect(world.refreshTokens.docs.get(sha256('rt_a'))!.usedAt).toBeNull();
    await refresh('rt_a', {}, { client: pub, method: 'none', jkt: 'key-1' });
    expect(world.tokens.only).toMatchObject({ jkt: 'key-1', refreshJkt: 'key-1', familyId: 'family-a' });
  });

  it('does not bind an unbound family on rotation, even when the refresh comes with a proof', async () => {
    await refresh(stored('rt_a'), {}, { client: client({ type: 'public' }), method: 'none', jkt: 'key-1' });
    expect(world.tokens.only.jkt).toBe('key-1');
    expect(world.tokens.only.refreshJkt).toBeUndefined();
  });

  it('adds an ID token with the original auth_time while openid is still granted', async () => {
    stored('rt_a', { scopes: ['openid', 'speech:read'], authTime: 1700000000 });
    const response = await refresh('rt_a');
    expect(response.id_token).toBe('id-token-1');
    expect(world.tokens.idTokens).toEqual([
      expect.objectContaining({ sub: 'acc-1', authTime: 1700000000, accessToken: 'at-1' }),
    ]);
    expect(world.tokens.idTokens[0]!.nonce).toBeUndefined();
    stored('rt_b', { scopes: ['openid', 'speech:read'], authTime: 1700000000 });
    expect((await refresh('rt_b', { scope: 'speech:read' })).id_token).toBeUndefined();
  });
});
