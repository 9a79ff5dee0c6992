import { exportJWK, generateKeyPair, SignJWT, type JWK, type KeyLike } from 'jose';
import { checkClientMayUse } from '../../src/grants/grant-steps';
import { jwtBearerGrant } from '../../src/grants/jwt-bearer';
import { account, callGrant, client, fakeWorld, ISSUER, type FakeWorld } from './fake-grant-deps';

// RFC 7523 §2.1 / §3: JWT assertions from trusted issuers (JWT_BEARER_TRUSTED_ISSUERS).
const TRUSTED = 'https://idp.example';
let signingKey: KeyLike;
let publicJwk: JWK;
let otherKey: KeyLike;
let world: FakeWorld;
let standIn: ReturnType<NonNullable<typeof jwtBearerGrant.unauthenticatedClient>>;

beforeAll(async () => {
  const pair = await generateKeyPair('ES256', { extractable: true });
  signingKey = pair.privateKey;
  publicJwk = { ...(await exportJWK(pair.publicKey)), alg: 'ES256' };
  ({ privateKey: otherKey } = await generateKeyPair('ES256'));
});

beforeEach(() => {
  world = fakeWorld({
    JWT_BEARER_TRUSTED_ISSUERS: JSON.stringify([
      { issuer: TRUSTED, jwks: { keys: [publicJwk] }, scopes: 'speech:read speech:write' },
    ]),
  });
  standIn = jwtBearerGrant.unauthenticatedClient!(world.deps);
});

let jtis = 0;
function assertion(claims: Record<string, unknown> = {}, key: KeyLike = signingKey): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ jti: `jti-${++jtis}`, ...claims })
    .setProtectedHeader({ alg: 'ES256' })
    .setIssuer((claims.iss as string | undefined) ?? TRUSTED)
    .setSubject('acc-1')
    .setAudience((claims.aud as string | undefined) ?? `${ISSUER}/token`)
    .setIssuedAt(now)
    .setExpirationTime((claims.exp as number | undefined) ?? now + 300)
    .sign(key);
}

const redeem = async (
  jwt: string,
  params: Record<string, unknown> = {},
  options: Parameters<typeof callGrant>[3] = { client: standIn, method: 'none' },
) => callGrant(world, jwtBearerGrant, { assertion: jwt, ...params }, options);

describe('jwt-bearer grant', () => {
  it("without client authentication: the assertion's subject, the issuer's scopes, the issuer as the party, no refresh token", async () => {
    const response = await redeem(await assertion());
    expect(response.refresh_token).toBeUndefined();
    expect(world.tokens.only).toMatchObject({
      sub: 'acc-1',
      clientId: TRUSTED,
      scopes: ['speech:read', 'speech:write'],
      audience: [ISSUER],
      withRefresh: false,
    });
    expect(world.tokens.only.account).toMatchObject({ _id: 'acc-1' });
  });

  it('with client authentication: the client is the party, and the scopes both the issuer and the client may have', async () => {
    await redeem(await assertion(), {}, { client: client(), method: 'client_secret_basic' });
    expect(world.tokens.only).toMatchObject({ clientId: 'web-app', scopes: ['speech:read', 'speech:write'] });
  });

  it('narrows to the requested scope and refuses a scope beyond the issuer (invalid_scope)', async () => {
    await redeem(await assertion(), { scope: 'speech:read' });
    expect(world.tokens.only.scopes).toEqual(['speech:read']);
    await expect(redeem(await assertion(), { scope: 'content:write' })).rejects.toMatchObject({
      error: 'invalid_scope',
    });
  });

  it('is single use (the jti is remembered)', async () => {
    const jwt = await assertion();
    await redeem(jwt);
    await expect(redeem(jwt)).rejects.toMatchObject({
      error: 'invalid_grant',
      description: expect.stringContaining('already used'),
    });
  });

  it.each([
    ['not a JWT', () => Promise.resolve('not-a-jwt')],
    ['from an untrusted issuer', () => assertion({ iss: 'https://evil.example' })],
    ['signed with another key', () => assertion({}, otherKey)],
    ['for another audience', () => assertion({ aud: 'https://elsewhere.example/token' })],
    ['expired', () => assertion({ exp: Math.floor(Date.now() / 1000) - 60 })],
    ['living too long', () => assertion({ exp: Math.floor(Date.now() / 1000) + 7200 })],
  ])('refuses an assertion %s (invalid_grant)', async (_case, make) => {
    await expect(redeem(await make())).rejects.toMatchObject({ error: 'invalid_grant' });
    expect(world.tokens.issued).toHaveLength(0);
  });

  it("refuses a disabled account's subject, and accepts a subject that is no account", async () => {
    world.accounts.set('acc-1', account({ status: 'disabled' }));
    await expect(redeem(await assertion())).rejects.toMatchObject({ error: 'invalid_grant' });
    world.accounts.delete('acc-1');
    await redeem(await assertion());
    expect(world.tokens.only.account).toBeNull();
  });

  it("binds the token to the DPoP proof's key", async () => {
    await redeem(await assertion(), {}, { client: standIn, method: 'none', jkt: 'key-1' });
    expect(world.tokens.only.jkt).toBe('key-1');
  });

  it('is the one grant that admits requests without client authentication; clients that authenticate need it registered', () => {
    expect(standIn).toMatchObject({ type: 'public', scopes: ['speech:read', 'speech:write'], resources: [ISSUER] });
    expect(() => checkClientMayUse(jwtBearerGrant, standIn)).not.toThrow();
    expect(() => checkClientMayUse(jwtBearerGrant, client())).toThrow(
      expect.objectContaining({ error: 'unauthorized_client' }),
    );
  });
});
