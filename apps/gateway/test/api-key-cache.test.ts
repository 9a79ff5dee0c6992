import { createApiKeyResolver, type ApiKeyRecord } from '../src/auth/api-key-cache';

const record: ApiKeyRecord = { accountId: 'acc1', plan: 'starter', keyId: 'key1', roles: ['USER'] };

describe('API key cache', () => {
  it('asks auth once within the TTL, again after it', async () => {
    let clock = 0;
    const lookup = jest.fn(async () => record);
    const resolver = createApiKeyResolver(lookup, 1000, () => clock);
    expect(await resolver.resolve('sk_1')).toEqual(record);
    expect(await resolver.resolve('sk_1')).toEqual(record);
    expect(lookup).toHaveBeenCalledTimes(1);
    clock = 1001;
    await resolver.resolve('sk_1');
    expect(lookup).toHaveBeenCalledTimes(2);
  });

  it('forgets a key as soon as its revocation is announced', async () => {
    let live = true;
    const resolver = createApiKeyResolver(async () => (live ? record : null), 60_000);
    expect(await resolver.resolve('sk_1')).toEqual(record);
    live = false;
    resolver.revoke('key1');
    expect(await resolver.resolve('sk_1')).toBeNull();
  });

  it('does not cache an answer when the key was revoked during the lookup', async () => {
    let release: () => void = () => undefined;
    const lookup = jest.fn(() => new Promise<ApiKeyRecord>((resolve) => (release = () => resolve(record))));
    const resolver = createApiKeyResolver(lookup, 60_000);
    const pending = resolver.resolve('sk_1');
    resolver.revoke('key1');
    release();
    await pending;
    expect(resolver.size()).toBe(0);
  });

  it('never caches unknown keys and shares concurrent lookups', async () => {
    const lookup = jest.fn(async () => null);
    const resolver = createApiKeyResolver(lookup, 60_000);
    await Promise.all([resolver.resolve('sk_x'), resolver.resolve('sk_x')]);
    expect(lookup).toHaveBeenCalledTimes(1);
    await resolver.resolve('sk_x');
    expect(lookup).toHaveBeenCalledTimes(2);
  });
});
