import { clientCredentialsGrant } from '../../src/grants/client-credentials';
import { checkClientMayUse } from '../../src/grants/grant-steps';
import { callGrant, client, fakeWorld, ISSUER, type FakeWorld } from './fake-grant-deps';

// RFC 6749 §4.4 with RFC 8707 resources and RFC 9449 DPoP binding.
let world: FakeWorld;
beforeEach(() => {
  world = fakeWorld();
});

describe('client_credentials grant', () => {
  it("issues the client's own token: every scope it may have, the platform as audience, no refresh token", async () => {
    const response = await callGrant(world, clientCredentialsGrant, {});
    expect(response.refresh_token).toBeUndefined();
    expect(world.tokens.only).toMatchObject({
      sub: 'web-app',
      clientId: 'web-app',
      scopes: client().scopes,
      audience: [ISSUER],
      withRefresh: false,
    });
  });

  it('narrows to the requested scopes and resources, and refuses what the client may not have', async () => {
    await callGrant(world, clientCredentialsGrant, { scope: 'speech:read', resource: `${ISSUER}/v1` });
    expect(world.tokens.only).toMatchObject({ scopes: ['speech:read'], audience: [`${ISSUER}/v1`] });
    await expect(callGrant(world, clientCredentialsGrant, { scope: 'speech:read admin' })).rejects.toMatchObject({
      error: 'invalid_scope',
    });
    await expect(
      callGrant(world, clientCredentialsGrant, { resource: 'https://elsewhere.example/' }),
    ).rejects.toMatchObject({ error: 'invalid_target' });
    await expect(callGrant(world, clientCredentialsGrant, { resource: 'not a uri' })).rejects.toMatchObject({
      error: 'invalid_target',
    });
  });

  it("binds the token to the DPoP proof's key", async () => {
    const response = await callGrant(world, clientCredentialsGrant, {}, { jkt: 'key-1' });
    expect(response.token_type).toBe('DPoP');
    expect(world.tokens.only.jkt).toBe('key-1');
  });

  it('is for confidential clients whose registration lists it (unauthorized_client otherwise)', () => {
    expect(() => checkClientMayUse(clientCredentialsGrant, client())).not.toThrow();
    expect(() => checkClientMayUse(clientCredentialsGrant, client({ type: 'public' }))).toThrow(
      expect.objectContaining({ error: 'unauthorized_client' }),
    );
    expect(() => checkClientMayUse(clientCredentialsGrant, client({ grantTypes: ['authorization_code'] }))).toThrow(
      expect.objectContaining({ error: 'unauthorized_client' }),
    );
  });
});
