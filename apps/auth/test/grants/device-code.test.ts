import { deviceKey, type DeviceRecord } from '../../src/device/device-codes';
import { deviceCodeGrant } from '../../src/grants/device-code';
import { account, callGrant, client, fakeWorld, ISSUER, type FakeWorld } from './fake-grant-deps';

// RFC 8628 §3.4/§3.5 polling and redemption, with RFC 9449 DPoP binding.
const tv = client({
  _id: 'tv-app',
  type: 'public',
  grantTypes: ['urn:ietf:params:oauth:grant-type:device_code', 'refresh_token'],
});

let world: FakeWorld;
beforeEach(() => {
  world = fakeWorld();
});

async function device(overrides: Partial<DeviceRecord> = {}): Promise<string> {
  const record: DeviceRecord = {
    clientId: 'tv-app',
    scopes: ['speech:read', 'offline_access'],
    audience: [ISSUER],
    userCode: 'BCDFGHJK',
    status: 'approved',
    sub: 'acc-1',
    expiresAt: Date.now() + 60_000,
    interval: 5,
    ...overrides,
  };
  await world.redis.set(deviceKey('dc-1'), JSON.stringify(record));
  return 'dc-1';
}

const poll = (deviceCode: string, options: Parameters<typeof callGrant>[3] = {}) =>
  callGrant(world, deviceCodeGrant, { device_code: deviceCode }, { client: tv, method: 'none', ...options });

describe('device_code grant', () => {
  it("redeems an approved code once, for the approving account, with the public client's refresh token bound to its DPoP key", async () => {
    const code = await device();
    const response = await poll(code, { jkt: 'key-1' });
    expect(response).toMatchObject({ token_type: 'DPoP', refresh_token: 'rt-1' });
    expect(world.tokens.only).toMatchObject({
      sub: 'acc-1',
      clientId: 'tv-app',
      scopes: ['speech:read', 'offline_access'],
      audience: [ISSUER],
      withRefresh: true,
      jkt: 'key-1',
      refreshJkt: 'key-1',
    });
    await expect(poll(code)).rejects.toMatchObject({
      error: 'invalid_grant',
      description: expect.stringContaining('already redeemed'),
    });
  });

  it('answers authorization_pending while the user decides, then slow_down when polled too fast', async () => {
    const code = await device({ status: 'pending' });
    await expect(poll(code)).rejects.toMatchObject({ error: 'authorization_pending' });
    await expect(poll(code)).rejects.toMatchObject({ error: 'slow_down' });
    expect(JSON.parse((await world.redis.get(deviceKey(code)))!)).toMatchObject({ interval: 10 });
  });

  it.each([
    [
      'access_denied (400) once the user denied',
      { status: 'denied' as const },
      { error: 'access_denied', httpStatus: 400 },
    ],
    ['expired_token after expiry', { expiresAt: Date.now() - 1 }, { error: 'expired_token' }],
    ['invalid_grant for another client', { clientId: 'other-app' }, { error: 'invalid_grant' }],
  ])('answers %s', async (_case, overrides, expected) => {
    const code = await device(overrides);
    await expect(poll(code)).rejects.toMatchObject(expected);
    expect(world.tokens.issued).toHaveLength(0);
  });

  it('refuses an unknown device code and a disabled account (invalid_grant)', async () => {
    await expect(poll('unknown')).rejects.toMatchObject({ error: 'invalid_grant' });
    world.accounts.set('acc-1', account({ status: 'disabled' }));
    await expect(poll(await device())).rejects.toMatchObject({
      error: 'invalid_grant',
      description: expect.stringContaining('no longer active'),
    });
  });

  it('issues no refresh token to a client whose registration does not list refresh_token', async () => {
    const code = await device();
    const response = await poll(code, {
      client: { ...tv, grantTypes: ['urn:ietf:params:oauth:grant-type:device_code'] },
    });
    expect(response.refresh_token).toBeUndefined();
  });
});
