import fc from 'fast-check';
import { GraphQLErrorCode } from '@platform/errors';
import { toGlobalId } from '@platform/graphql-schema';
import {
  identityHeader,
  seedUser,
  startContent,
  stopContent,
  type Caller,
  type RunningContent,
  type TestUser,
} from './helpers';

/**
 * Property-based fuzzing of content's two interfaces against the built app: REST bodies, query
 * strings and ids of the blog endpoints, and GraphQL request bodies (mutated and random documents,
 * variables of the wrong type, deep nesting, huge strings, bodies that are not GraphQL requests).
 * Whatever comes in: no 5xx, every error in the interface's own shape, and the service still ready
 * afterwards. The seed and the number of runs are fixed, so CI replays the same cases every time
 * (a failure prints its counterexample and the seed; replay it with `path` in fc.assert's options).
 */
const SEED = 20_261_123;
const REST_RUNS = 120;
const GRAPHQL_RUNS = 150;

let app: RunningContent;
let user: TestUser;
let admin: TestUser;
let postId: number;

beforeAll(async () => {
  app = await startContent();
  user = await seedUser(app, { name: 'Fuzz User' });
  admin = await seedUser(app, { name: 'Fuzz Admin', role: 'ADMIN' });
  const created = await send(
    'POST',
    '/api/v1/posts',
    user,
    JSON.stringify({ title: 'Fuzz target', content: 'body', published: true }),
  );
  expect(created.status).toBe(201);
  postId = (created.body as { id: number }).id;
}, 120_000);

afterAll(async () => stopContent(app));

type Who = Caller | 'none';
/** Callers by name (the seeded users exist only once the app runs). */
type CallerName = 'none' | 'anonymous' | 'user' | 'admin';

async function send(
  method: string,
  path: string,
  who: Who,
  body?: string,
  contentType = 'application/json',
): Promise<{ status: number; body: unknown; text: string }> {
  const headers: Record<string, string> = who === 'none' ? {} : await identityHeader(who);
  // fetch refuses a body on GET (as browsers do).
  const sent = method === 'GET' ? undefined : body;
  if (sent !== undefined) headers['content-type'] = contentType;
  const res = await fetch(`${app.url}${path}`, { method, headers, ...(sent !== undefined ? { body: sent } : {}) });
  const text = await res.text();
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = Symbol.for('not json');
  }
  return { status: res.status, body: parsed, text };
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The REST error shapes of docs/content.md: validation, simple (403/404), coded (everything else). */
function restErrorShape(status: number, body: unknown): string | null {
  if (!isRecord(body)) return `error body is not a JSON object: ${String(body)}`;
  if (status === 400 && isRecord(body.errors)) {
    return Object.values(body.errors).every((m) => typeof m === 'string') && Object.keys(body).length === 1
      ? null
      : 'malformed validation body';
  }
  if ((status === 403 || status === 404) && typeof body.error === 'string')
    return Object.keys(body).length === 1 ? null : 'extra keys';
  if (
    isRecord(body.error) &&
    body.error.code === status &&
    typeof body.error.message === 'string' &&
    Object.keys(body).length === 1
  )
    return null;
  return `unexpected error shape ${JSON.stringify(body).slice(0, 300)}`;
}

// ---- REST ------------------------------------------------------------------------------------------

const anyText = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 20 }),
  fc.constantFrom(
    '',
    ' ',
    '0',
    '-1',
    '1e3',
    '99999999999999999999',
    'NaN',
    'null',
    'true',
    '[]',
    '{}',
    '$gt',
    '../../etc',
    '<script>',
    '\u0000',
    '%00',
    '😀',
  ),
  fc.nat({ max: 2000 }).map((n) => 'x'.repeat(n * 50)),
);
const queryKey = fc.oneof(
  fc.constantFrom('page', 'limit', 'category', 'tag', 'tag[$gt]', 'page[]', '__proto__', 'constructor'),
  fc.string({ maxLength: 10 }),
);
/** A query string: encoded pairs, repeated keys, and raw fragments a URL parser has to cope with. */
const queryString = fc
  .array(
    fc.oneof(
      // Values up to 2000 characters: Node's HTTP parser answers a request line beyond 16 KB itself (431, no body), before the app.
      fc.tuple(queryKey, anyText).map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v.slice(0, 2000))}`),
      fc.constantFrom('%', '%zz', '&&', '==', 'page', 'limit=', '=1', 'page=1&page=2', 'tag[]=a&tag[]=b', 'a[b][c]=d'),
    ),
    { maxLength: 6 },
  )
  .map((parts) => (parts.length ? `?${parts.join('&')}` : ''));

const jsonish = fc.oneof(
  anyText,
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.array(anyText, { maxLength: 30 }),
  fc.dictionary(fc.string({ maxLength: 8 }), anyText, { maxKeys: 3 }),
);
const postBody = fc.oneof(
  fc
    .record(
      {
        title: jsonish,
        content: jsonish,
        published: jsonish,
        category: jsonish,
        tags: jsonish,
        slug: jsonish,
        id: jsonish,
      },
      { requiredKeys: [] },
    )
    .map((b) => JSON.stringify(b)),
  fc.jsonValue({ maxDepth: 4 }).map((v) => JSON.stringify(v)),
  fc.constantFrom(
    '',
    '{',
    '{"title":',
    'null',
    '"text"',
    '[1,2]',
    '{"title": "a", "title": "b", "content": "c"}',
    '{"__proto__": {"admin": true}, "title": "t", "content": "c"}',
  ),
  // Beyond the 512 kB body limit.
  fc.constant(JSON.stringify({ title: 't', content: 'y'.repeat(600_000) })),
);
const userBody = fc
  .record({ name: jsonish, avatar: jsonish, status: jsonish, roles: jsonish, createdAt: jsonish }, { requiredKeys: [] })
  .map((b) => JSON.stringify(b));
/** `{post}` stands for the fuzz target's id (known once the app runs), so counterexamples print as plain requests. */
const pathId = fc.oneof(
  fc.constant('{post}'),
  fc.nat().map(String),
  anyText.map((s) => encodeURIComponent(s.slice(0, 300))),
);
const restCaller = fc.constantFrom<CallerName>('none', 'anonymous', 'user', 'admin');
/** Callers as the gateway forwards them (without an identity header content answers a REST-shaped 401 to every path). */
const graphqlCaller = fc.constantFrom<CallerName>('anonymous', 'user', 'admin');
const actual = (name: CallerName): Who => (name === 'user' ? user : name === 'admin' ? admin : name);

const restRequest = fc.oneof(
  fc.record({
    method: fc.constant('GET'),
    path: queryString.map((q) => `/api/v1/posts${q}`),
    body: fc.constant(undefined),
  }),
  fc.record({
    method: fc.constant('GET'),
    path: queryString.map((q) => `/api/v1/users${q}`),
    body: fc.constant(undefined),
  }),
  fc.record({ method: fc.constant('POST'), path: fc.constant('/api/v1/posts'), body: postBody }),
  fc.record({
    method: fc.constantFrom('GET', 'PUT', 'PATCH', 'DELETE'),
    path: pathId.map((id) => `/api/v1/posts/${id}`),
    body: fc.option(postBody, { nil: undefined }),
  }),
  fc.record({
    method: fc.constantFrom('GET', 'PUT'),
    path: pathId.map((id) => `/api/v1/users/${id}`),
    body: fc.option(userBody, { nil: undefined }),
  }),
  fc.record({ method: fc.constant('PUT'), path: fc.constant('/api/v1/users'), body: userBody }),
);

describe('REST /api/v1 under fuzzed input', () => {
  it('answers every request below 500, errors in the REST error shapes', async () => {
    await fc.assert(
      fc.asyncProperty(
        restRequest,
        restCaller,
        fc.constantFrom('application/json', 'text/plain', 'application/json; charset=latin1'),
        async (req, caller, type) => {
          // DELETE of the fuzz target would leave later cases only 404s to find.
          if (req.method === 'DELETE' && req.path.endsWith('{post}')) return;
          const res = await send(
            req.method,
            req.path.replace('{post}', String(postId)),
            actual(caller),
            req.body,
            type,
          );
          expect(res.status).toBeLessThan(500);
          if (res.status >= 400) expect(restErrorShape(res.status, res.body)).toBeNull();
          else if (res.status !== 204) expect(typeof res.body).toBe('object');
        },
      ),
      { seed: SEED, numRuns: REST_RUNS, endOnFailure: true },
    );
  }, 60_000);
});

// ---- GraphQL ---------------------------------------------------------------------------------------

const post = () => toGlobalId('Post', postId);
/** Valid operations over the whole schema; the fuzzer mutates them and their variables. */
const OPERATIONS: { query: string; variables: () => Record<string, unknown> }[] = [
  {
    query:
      'query($f: UserFilter, $o: UserOrderBy, $n: Int, $a: String) { users(filter: $f, orderBy: $o, first: $n, after: $a) { totalCount edges { cursor node { id name email posts { totalCount } comments { totalCount } } } pageInfo { endCursor } } }',
    variables: () => ({ f: { search: 'fuzz' }, o: { field: 'NAME', direction: 'ASC' }, n: 5, a: null }),
  },
  {
    query:
      'query($f: PostFilter, $o: PostOrderBy, $n: Int, $a: String) { posts(filter: $f, orderBy: $o, first: $n, after: $a) { totalCount edges { cursor node { id title author { name } comments { totalCount edges { node { content replies { totalCount } } } } } } } }',
    variables: () => ({ f: { status: 'PUBLISHED' }, o: { field: 'TITLE', direction: 'DESC' }, n: 3, a: null }),
  },
  {
    query:
      'query($id: ID!) { post(id: $id) { id title content excerpt status tags viewCount createdAt publishedAt updatedAt } }',
    variables: () => ({ id: post() }),
  },
  {
    query:
      'query($id: ID!) { node(id: $id) { id createdAt ... on Post { title } ... on User { name } ... on Comment { content } } }',
    variables: () => ({ id: post() }),
  },
  {
    query: 'query($id: ID!) { comment(id: $id) { id content parent { id } post { id } } }',
    variables: () => ({ id: toGlobalId('Comment', 1) }),
  },
  { query: 'query($id: ID!) { user(id: $id) { id name email role status } }', variables: () => ({ id: user.id }) },
  {
    query:
      'query($q: String!, $t: SearchType, $l: Int) { search(query: $q, type: $t, limit: $l) { __typename ... on Post { title } } }',
    variables: () => ({ q: 'fuzz', t: 'ALL', l: 5 }),
  },
  { query: '{ me { id name email } }', variables: () => ({}) },
  {
    query:
      'mutation($i: CreatePostInput!) { createPost(input: $i) { success post { id } errors { field message code } } }',
    variables: () => ({ i: { title: 'Fuzzed', content: 'c', tags: ['a'] } }),
  },
  {
    query:
      'mutation($id: ID!, $i: UpdatePostInput!) { updatePost(id: $id, input: $i) { success errors { field code } } }',
    variables: () => ({ id: post(), i: { excerpt: 'e' } }),
  },
  {
    query: 'mutation($i: CreateCommentInput!) { createComment(input: $i) { id content } }',
    variables: () => ({ i: { content: 'fuzz comment', postId: post() } }),
  },
  {
    query: 'mutation($id: ID!, $i: UpdateCommentInput!) { updateComment(id: $id, input: $i) { id } }',
    variables: () => ({ id: toGlobalId('Comment', 1), i: { content: 'x' } }),
  },
  {
    query:
      'mutation($id: ID!, $i: UpdateUserInput!) { updateUser(id: $id, input: $i) { success errors { field code } } }',
    variables: () => ({ id: user.id, i: { name: 'Fuzz User' } }),
  },
  {
    query: 'mutation($id: ID!) { deleteComment(id: $id) { success message } }',
    variables: () => ({ id: toGlobalId('Comment', 999_999) }),
  },
  { query: '{ __schema { types { name } } }', variables: () => ({}) },
  { query: 'subscription { onPostCreated { id } }', variables: () => ({}) },
];

/** A value of any JSON type (and sizes up to a large string), for a variable that expects one type. */
const wrongValue = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }),
  anyText,
  fc.constantFrom<unknown>(-1, 0, 101, 2 ** 31, 1e308, -0.5, 'ASC', 'EMAIL', '{"$gt":""}', ['x'], { $gt: '' }),
  fc.constant('z'.repeat(90_000)),
);

/** Small edits of a document: a character dropped, one inserted, a slice duplicated or swapped for junk. */
const editedDocument = (doc: string) =>
  fc
    .array(
      fc.tuple(
        fc.nat({ max: doc.length }),
        fc.nat({ max: 20 }),
        fc.oneof(
          fc.constantFrom('{', '}', '(', ')', '$', '!', ':', '"', '...', '@skip(if: true)', '#', '\\', ' ', ''),
          fc.string({ maxLength: 6 }),
        ),
      ),
      { minLength: 1, maxLength: 4 },
    )
    .map((edits) =>
      edits.reduce((text, [at, cut, insert]) => text.slice(0, at) + insert + text.slice(at + (cut % 4)), doc),
    );

/** `depth` levels of posts → author → posts …: valid GraphQL the depth and cost limits must refuse cleanly. */
const nested = (depth: number) => {
  let inner = 'id';
  for (let i = 0; i < depth; i++)
    inner =
      i % 2 === 0
        ? `posts(first: 2) { edges { node { author { ${inner} } } } }`
        : `comments(first: 2) { edges { node { author { ${inner} } } } }`;
  return `{ users(first: 2) { edges { node { ${inner} } } } }`;
};

const operation = fc.nat({ max: OPERATIONS.length - 1 }).map((i) => OPERATIONS[i]!);
const graphqlBody = fc.oneof(
  // A valid operation with valid variables, or some of them replaced by values of the wrong type.
  fc
    .tuple(
      operation,
      fc.dictionary(fc.constantFrom('f', 'o', 'n', 'a', 'id', 'i', 'q', 't', 'l', 'extra'), wrongValue, { maxKeys: 3 }),
      fc.boolean(),
    )
    .map(([op, wrong, keep]) =>
      JSON.stringify({ query: op.query, variables: keep ? { ...op.variables(), ...wrong } : wrong }),
    ),
  // A mutated document with its usual variables.
  operation.chain((op) =>
    editedDocument(op.query).map((query) => JSON.stringify({ query, variables: op.variables() })),
  ),
  fc.integer({ min: 1, max: 40 }).map((depth) => JSON.stringify({ query: nested(depth) })),
  fc.string({ maxLength: 200 }).map((query) => JSON.stringify({ query })),
  fc.nat({ max: 60 }).map((n) =>
    JSON.stringify({
      query: `{ ${'posts { edges { node { title } } } '.repeat(n)}}`.replace(
        /posts/g,
        (_m, i: number) => `a${i}: posts`,
      ),
    }),
  ),
  fc.constant(JSON.stringify({ query: `{ search(query: "${'q'.repeat(95_000)}") { __typename } }` })),
  fc.constantFrom(
    '',
    '{',
    'null',
    '[]',
    '"{ posts { totalCount } }"',
    JSON.stringify({ query: 42 }),
    JSON.stringify({ query: { $gt: '' } }),
    JSON.stringify({ query: '{ posts { totalCount } }', variables: 'x' }),
    JSON.stringify({ query: '{ posts { totalCount } }', operationName: 7 }),
    JSON.stringify({ query: 'query A { me { id } } query B { me { name } }' }),
    JSON.stringify([{ query: '{ me { id } }' }, { query: '{ me { id } }' }]),
    JSON.stringify({
      query: '{ posts { totalCount } }',
      extensions: { persistedQuery: { version: 1, sha256Hash: 'x' } },
    }),
    JSON.stringify({ query: '{ __typename }', variables: { a: 'z'.repeat(200_000) } }),
  ),
);

const ALLOWED_CODES: ReadonlySet<string> = new Set([
  ...Object.values(GraphQLErrorCode).filter((c) => c !== GraphQLErrorCode.INTERNAL_SERVER_ERROR),
  'GRAPHQL_PARSE_FAILED',
  'GRAPHQL_VALIDATION_FAILED',
  'BAD_REQUEST',
  'PERSISTED_QUERY_NOT_FOUND',
  'PERSISTED_QUERY_NOT_SUPPORTED',
  'OPERATION_RESOLUTION_FAILURE',
]);

/** A GraphQL response: `data` and/or `errors`, each error with a message and a known `extensions.code` (never a masked internal error). */
function graphqlShape(body: unknown): string | null {
  if (!isRecord(body)) return `not a JSON object: ${String(body).slice(0, 200)}`;
  if (!('data' in body) && !('errors' in body)) return 'neither data nor errors';
  if (body.errors === undefined) return null;
  if (!Array.isArray(body.errors) || body.errors.length === 0) return 'errors is not a non-empty list';
  for (const error of body.errors as unknown[]) {
    if (!isRecord(error) || typeof error.message !== 'string')
      return `error without a message: ${JSON.stringify(error).slice(0, 200)}`;
    const code = isRecord(error.extensions) ? error.extensions.code : undefined;
    if (typeof code !== 'string' || !ALLOWED_CODES.has(code)) return `error code ${String(code)}: ${error.message}`;
  }
  return null;
}

describe('GraphQL /graphql under fuzzed input', () => {
  it('answers every request below 500, in the GraphQL response shape with known error codes', async () => {
    await fc.assert(
      fc.asyncProperty(graphqlBody, graphqlCaller, async (body, caller) => {
        const res = await send('POST', '/graphql', actual(caller), body);
        expect(res.status).toBeLessThan(500);
        // Body-parser failures (not JSON, too large) are answered in the GraphQL error shape too.
        expect(graphqlShape(res.body)).toBeNull();
      }),
      { seed: SEED, numRuns: GRAPHQL_RUNS, endOnFailure: true },
    );
  }, 60_000);
});

describe('cases the fuzzer found, kept as plain checks', () => {
  it('a persisted query whose hash does not match its text is a 400 BAD_REQUEST, not an INTERNAL_SERVER_ERROR', async () => {
    const res = await send(
      'POST',
      '/graphql',
      'anonymous',
      JSON.stringify({
        query: '{ posts { totalCount } }',
        extensions: { persistedQuery: { version: 1, sha256Hash: 'x' } },
      }),
    );
    expect(res.status).toBe(400);
    expect((res.body as { errors: { extensions: { code: string } }[] }).errors[0]!.extensions.code).toBe('BAD_REQUEST');
  });

  it('a subscription POSTed over HTTP is told to use the gateway (BAD_USER_INPUT), not a null-field INTERNAL_SERVER_ERROR', async () => {
    for (const query of [
      'subscription { onPostCreated { id } }',
      'subscription($id: ID!) { onCommentAdded(postId: $id) { id } }',
    ]) {
      const res = await send('POST', '/graphql', user, JSON.stringify({ query, variables: { id: 'x' } }));
      expect(res.status).toBeLessThan(500);
      const errors = (res.body as { errors: { message: string; extensions: { code: string } }[] }).errors;
      expect(errors[0]!.extensions.code).toBe('BAD_USER_INPUT');
      expect(errors[0]!.message).toMatch(/gateway/);
    }
  });
});

it('the service is still ready after the fuzzing', async () => {
  const ready = await fetch(`${app.url}/readyz`);
  expect(ready.status).toBe(200);
  const list = await send('GET', '/api/v1/posts', user);
  expect(list.status).toBe(200);
});
