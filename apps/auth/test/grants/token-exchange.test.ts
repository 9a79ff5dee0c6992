import { checkClientMayUse } from '../../src/grants/grant-steps';
import { ACCESS_TOKEN_TYPE } from '@platform/oauth-grants';
import { tokenExchangeGrant } from '../../src/grants/token-exchange';
import type { SigningKeys } from '../../src/keys/signing-keys';
import { issueAccessToken, type AccessTokenInput } from '../../src/tokens/access-token';
import { REVOKED_JTI_PREFIX } from '../../src/tokens/revocation';
import { callGrant, client, fakeWorld, ISSUER, memoryKeys, type FakeWorld } from './fake-grant-deps';

// RFC 8693 token exchange with its policy (§5), RFC 8707 targets and RFC 9449 DPoP-bound tokens.
let keys: SigningKeys;
let world: FakeWorld;
const exchanger = client({ grantTypes: ['urn:ietf:params:oauth:grant-type:token-exchange'] });

beforeAll(async () => {
  keys = await memoryKeys();
});
beforeEach(() => {
  world = fakeWorld({}, keys);
});

async function accessToken(overrides: Partial<AccessTokenInput> = {}) {
  return issueAccessToken(keys, {
    issuer: ISSUER,
    sub: 'acc-1',
    clientId: 'web-app',
    scopes: ['speech:read', 'speech:write'],
    audience: [ISSUER, `${ISSUER}/v1`],
    ttlSeconds: 600,
    roles: ['USER'],
    plan: 'pro',
    ...overrides,
  });
}

const exchange = (
  subjectToken: string,
  params: Record<string, unknown> = {},
  options: Parameters<typeof callGrant>[3] = {},
) =>
  callGrant(
    world,
    tokenExchangeGrant,
    { subject_token: subjectToken, subject_token_type: ACCESS_TOKEN_TYPE, ...params },
    { client: exchanger, ...options },
  );

describe('token exchange grant', () => {
  it('issues a narrower access token for the subject, never outliving it and revoked with it, without a refresh token', async () => {
    const subject = await accessToken();
    const response = await exchange(subject.token, { scope: 'speech:read', resource: `${ISSUER}/v1` });
    expect(response).toMatchObject({ issued_token_type: ACCESS_TOKEN_TYPE, token_type: 'Bearer' });
    expect(response.refresh_token).toBeUndefined();
    const issued = world.tokens.only;
    expect(issued).toMatchObject({
      sub: 'acc-1',
      clientId: 'web-app',
      scopes: ['speech:read'],
      audience: [`${ISSUER}/v1`],
      withRefresh: false,
      derivedFrom: { jti: subject.jti, exp: subject.exp },
      profile: { roles: ['USER'], plan: 'pro' },
    });
    expect(issued.ttlSeconds).toBeLessThanOrEqual(600);
  });

  it("names the actor (act) when an actor token comes with the subject's", async () => {
    const subject = await accessToken();
    const actor = await accessToken({ sub: 'web-app', scopes: ['speech:read'] });
    await exchange(subject.token, { actor_token: actor.token, actor_token_type: ACCESS_TOKEN_TYPE });
    expect(world.tokens.only.act).toEqual({ sub: 'web-app', client_id: 'web-app' });
  });

  it('refuses to widen scope (invalid_scope) or audience (invalid_target)', async () => {
    const subject = await accessToken({ scopes: ['speech:read'], audience: [ISSUER] });
    await expect(exchange(subject.token, { scope: 'speech:write' })).rejects.toMatchObject({ error: 'invalid_scope' });
    await expect(exchange(subject.token, { resource: `${ISSUER}/v1` })).rejects.toMatchObject({
      error: 'invalid_target',
    });
    expect(world.tokens.issued).toHaveLength(0);
  });

  it("refuses another client's token unless the registration allows that client (RFC 8693 §5)", async () => {
    const foreign = await accessToken({ clientId: 'other-app' });
    await expect(exchange(foreign.token)).rejects.toMatchObject({
      error: 'invalid_grant',
      description: expect.stringContaining('another client'),
    });
    await exchange(foreign.token, {}, { client: { ...exchanger, tokenExchange: { allowedClients: ['other-app'] } } });
    expect(world.tokens.only.sub).toBe('acc-1');
  });

  it('refuses a revoked, foreign-signed or malformed subject token (invalid_grant)', async () => {
    const revoked = await accessToken();
    await world.redis.set(`${REVOKED_JTI_PREFIX}${revoked.jti}`, '1');
    await expect(exchange(revoked.token)).rejects.toMatchObject({ error: 'invalid_grant' });
    const stranger = await issueAccessToken(await memoryKeys(), {
      issuer: ISSUER,
      sub: 'acc-1',
      clientId: 'web-app',
      scopes: ['speech:read'],
      audience: [ISSUER],
      ttlSeconds: 600,
    });
    await expect(exchange(stranger.token)).rejects.toMatchObject({ error: 'invalid_grant' });
    await expect(exchange('not-a-token')).rejects.toMatchObject({ error: 'invalid_grant' });
  });

  it('refuses token types other than access tokens (invalid_request)', async () => {
    const subject = await accessToken();
    await expect(
      exchange(subject.token, { subject_token_type: 'urn:ietf:params:oauth:token-type:refresh_token' }),
    ).rejects.toMatchObject({ error: 'invalid_request' });
    await expect(
      exchange(subject.token, { requested_token_type: 'urn:ietf:params:oauth:token-type:id_token' }),
    ).rejects.toMatchObject({ error: 'invalid_request' });
    await expect(exchange(subject.token, { actor_token: subject.token })).rejects.toMatchObject({
      error: 'invalid_request',
    });
  });

  it("presents a DPoP-bound subject token only with its key's proof, and binds the new token to the proof's key", async () => {
    const bound = await accessToken({ jkt: 'key-1' });
    await expect(exchange(bound.token)).rejects.toMatchObject({ error: 'invalid_dpop_proof' });
    await expect(exchange(bound.token, {}, { jkt: 'key-2' })).rejects.toMatchObject({ error: 'invalid_dpop_proof' });
    const response = await exchange(bound.token, {}, { jkt: 'key-1' });
    expect(response.token_type).toBe('DPoP');
    expect(world.tokens.only.jkt).toBe('key-1');
  });

  it('is for confidential clients whose registration lists it (unauthorized_client otherwise)', () => {
    expect(() => checkClientMayUse(tokenExchangeGrant, exchanger)).not.toThrow();
    expect(() => checkClientMayUse(tokenExchangeGrant, { ...exchanger, type: 'public' })).toThrow(
      expect.objectContaining({ error: 'unauthorized_client' }),
    );
    expect(() => checkClientMayUse(tokenExchangeGrant, client())).toThrow(
      expect.objectContaining({ error: 'unauthorized_client' }),
    );
  });
});
