import { createApiKeyResolver, type ApiKeyRecord } from '../src/auth/api-key-cache';

const record: ApiKeyRecord = {
  accountId: 'acc1',
  plan: 'starter',
  keyId: 'key1',
  roles: ['USER'],
  scope: 'speech:read speech:write',
};

describe('API key cache', () => {
  it('asks auth once within the TTL, again after it', async () => {
    let clock = 0;
    const lookup = jest.fn(async () => record);
    const resolver = createApiKeyResolver(lookup, { ttlMs: 1000, now: () => clock });
    expect(await resolver.resolve('sk_1')).toEqual(record);
    expect(await resolver.resolve('sk_1')).toEqual(record);
    expect(lookup).toHaveBeenCalledTimes(1);
    clock = 1001;
    await resolver.resolve('sk_1');
    expect(lookup).toHaveBeenCalledTimes(2);
  });

  it('forgets a key as soon as its revocation is announced', async () => {
    let live = true;
    const resolver = createApiKeyResolver(async () => (live ? record : null), { ttlMs: 60_000 });
    expect(await resolver.resolve('sk_1')).toEqual(record);
    live = false;
    resolver.revoke('key1');
    expect(await resolver.resolve('sk_1')).toBeNull();
  });

  it('does not cache an answer when the key was revoked during the lookup', async () => {
    let release: () => void = () => undefined;
    const lookup = jest.fn(() => new Promise<ApiKeyRecord>((resolve) => (release = () => resolve(record))));
    const resolver = createApiKeyResolver(lookup, { ttlMs: 60_000 });
    const pending = resolver.resolve('sk_1');
    resolver.revoke('key1');
    release();
    await pending;
    expect(resolver.size()).toBe(0);
  });

  it('does not remember unknown keys unless told to, and shares concurrent lookups', async () => {
    const lookup = jest.fn(async () => null);
    const resolver = createApiKeyResolver(lookup, { ttlMs: 60_000 });
    await Promise.all([resolver.resolve('sk_x'), resolver.resolve('sk_x')]);
    expect(lookup).toHaveBeenCalledTimes(1);
    await resolver.resolve('sk_x');
    expect(lookup).toHaveBeenCalledTimes(2);
  });

  it('remembers an unknown key only for unknownTtlMs, then asks auth again', async () => {
    let clock = 0;
    const lookup = jest.fn(async (_key: string) => null);
    const resolver = createApiKeyResolver(lookup, { ttlMs: 30_000, unknownTtlMs: 3_000, now: () => clock });
    expect(resolver.isCached('sk_bad')).toBe(false);
    expect(await resolver.resolve('sk_bad')).toBeNull();
    expect(resolver.isCached('sk_bad')).toBe(true);
    for (let i = 0; i < 20; i += 1) expect(await resolver.resolve('sk_bad')).toBeNull();
    expect(lookup).toHaveBeenCalledTimes(1);
    expect(resolver.size()).toBe(0); // nothing taken for a live key
    clock = 3_000;
    expect(resolver.isCached('sk_bad')).toBe(false);
    await resolver.resolve('sk_bad');
    expect(lookup).toHaveBeenCalledTimes(2);
  });

  it('lets a key auth comes to know (an account re-enabled) work once its unknown entry lapses', async () => {
    let clock = 0;
    let known = false;
    const resolver = createApiKeyResolver(async () => (known ? record : null), {
      ttlMs: 30_000,
      unknownTtlMs: 3_000,
      now: () => clock,
    });
    expect(await resolver.resolve('sk_1')).toBeNull();
    known = true; // e.g. its account re-enabled
    expect(await resolver.resolve('sk_1')).toBeNull();
    clock = 3_000;
    expect(await resolver.resolve('sk_1')).toEqual(record);
    expect(await resolver.resolve('sk_other')).toEqual(record); // another key: never remembered as unknown
  });

  it('keeps live keys when made-up keys flood the unknown entries, and forgets unknown keys on clear()', async () => {
    const lookup = jest.fn(async (key: string) => (key === 'sk_live' ? record : null));
    const resolver = createApiKeyResolver(lookup, { ttlMs: 60_000, unknownTtlMs: 60_000 });
    await resolver.resolve('sk_live');
    for (let i = 0; i < 10_050; i += 1) await resolver.resolve(`sk_made_up_${i}`);
    expect(resolver.isCached('sk_live')).toBe(true);
    expect(resolver.isCached('sk_made_up_0')).toBe(false); // oldest unknown entries go first (bounded)
    expect(resolver.isCached('sk_made_up_10049')).toBe(true);
    resolver.clear();
    expect(resolver.isCached('sk_made_up_10049')).toBe(false);
  });

  it('answers a revoked key as unknown after the revocation and keeps answering so', async () => {
    let live = true;
    const lookup = jest.fn(async () => (live ? record : null));
    const resolver = createApiKeyResolver(lookup, { ttlMs: 60_000, unknownTtlMs: 5_000 });
    expect(await resolver.resolve('sk_1')).toEqual(record);
    live = false;
    resolver.revoke('key1');
    expect(await resolver.resolve('sk_1')).toBeNull();
    expect(await resolver.resolve('sk_1')).toBeNull();
    expect(lookup).toHaveBeenCalledTimes(2);
  });
});
