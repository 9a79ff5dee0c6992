import { createAuthClient } from '../src/auth-client/auth-client';

describe("auth client: an account id is one path segment of auth's internal API", () => {
  function recording() {
    const urls: string[] = [];
    const fetchImpl = (async (input: URL | RequestInfo) => {
      urls.push(String(input));
      return new Response('{"id":"x","name":"n","email":"e","roles":[]}', {
        status: 200,
        headers: { 'content-type': 'application/json' },
      });
    }) as typeof fetch;
    return { urls, client: createAuthClient('http://auth.internal:8081', 's'.repeat(40), fetchImpl) };
  }

  it.each(['..', '.', ''])(
    '%j names no account and nothing is sent (URL resolution would climb to /internal/)',
    async (id) => {
      const { urls, client } = recording();
      await expect(client.getAccount(id)).resolves.toMatchObject({ ok: false, status: 404 });
      await expect(client.updateAccount(id, { status: 'disabled' })).resolves.toMatchObject({ ok: false, status: 404 });
      expect(urls).toEqual([]);
    },
  );

  it.each([
    ['acc-1', 'http://auth.internal:8081/internal/accounts/acc-1'],
    ['../login', 'http://auth.internal:8081/internal/accounts/..%2Flogin'],
    ['%2e%2e', 'http://auth.internal:8081/internal/accounts/%252e%252e'],
    ['a/b', 'http://auth.internal:8081/internal/accounts/a%2Fb'],
  ])('%j stays under /internal/accounts/', async (id, url) => {
    const { urls, client } = recording();
    await client.getAccount(id);
    expect(urls).toEqual([url]);
  });
});
