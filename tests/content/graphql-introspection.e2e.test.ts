import { gql, startContent, stopContent, type RunningContent } from './helpers';

/**
 * GraphQL introspection (`__schema`, `__type`) is the GRAPHQL_INTROSPECTION setting: unset, it is on
 * except under NODE_ENV=production; set, it wins either way (docs/configuration.md).
 */
jest.setTimeout(120_000);

const INTROSPECTION = '{ __schema { queryType { name } } }';

async function introspect(app: RunningContent) {
  return gql(app, INTROSPECTION);
}

describe.each<{ env: Record<string, string>; allowed: boolean }>([
  { env: {}, allowed: true },
  { env: { GRAPHQL_INTROSPECTION: 'false' }, allowed: false },
  { env: { NODE_ENV: 'production' }, allowed: false },
  { env: { NODE_ENV: 'production', GRAPHQL_INTROSPECTION: 'true' }, allowed: true },
])('content with $env', ({ env, allowed }) => {
  let app: RunningContent | undefined;
  beforeAll(async () => {
    app = await startContent(env);
  });
  afterAll(() => stopContent(app));

  it(
    allowed
      ? 'answers introspection'
      : 'refuses introspection with GRAPHQL_VALIDATION_FAILED, and still answers queries',
    async () => {
      const result = await introspect(app!);
      if (allowed) {
        expect(result.errors).toBeUndefined();
        expect(result.data).toEqual({ __schema: { queryType: { name: 'Query' } } });
      } else {
        expect(result.data ?? null).toBeNull();
        expect(result.errors?.[0]?.extensions?.code).toBe('GRAPHQL_VALIDATION_FAILED');
        expect(result.errors?.[0]?.message).toMatch(/introspection/i);
      }
      const plain = await gql(app!, '{ posts(first: 1) { totalCount } }');
      expect(plain.errors).toBeUndefined();
    },
  );
});
