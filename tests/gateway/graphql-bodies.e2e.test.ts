import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { signIdentity } from '@platform/identity';
import { stackEnv } from '@platform/testing';
import { INTERNAL_SECRET, json, startPlatform, type Platform } from './platform';

/**
 * What the gateway does with GraphQL-over-HTTP bodies before content sees them (docs/gateway.md
 * "GraphQL over HTTP"): one encoding (UTF-8 JSON, 415 otherwise, at the gateway and at content), a
 * bounded read that refuses worst-case bodies in the GraphQL shape (400/413, never a 500), and the
 * operation's scope judged on the text content will run.
 */
const run = promisify(execFile);
let platform: Platform;
let gateway: string;
let readOnly: string;
let readWrite: string;

async function clientToken(scope: string): Promise<string> {
  const { stdout } = await run(
    process.execPath,
    [
      path.resolve(__dirname, '../../apps/auth/dist/cli/main.js'),
      'clients:create',
      '--name',
      `graphql-bodies ${scope}`,
      '--type',
      'confidential',
      '--grant',
      'client_credentials',
      '--scope',
      scope,
      '--resource',
      platform.publicUrl,
    ],
    {
      env: {
        PATH: process.env.PATH ?? '',
        ...stackEnv(),
        MONGO_DB: platform.authDb,
        INTERNAL_SECRET,
        PUBLIC_URL: platform.publicUrl,
      },
      timeout: 30_000,
    },
  );
  const client = JSON.parse(stdout) as { client_id: string; client_secret: string };
  const res = await fetch(`${gateway}/token`, {
    method: 'POST',
    headers: {
      authorization: `Basic ${Buffer.from(`${client.client_id}:${client.client_secret}`).toString('base64')}`,
      'content-type': 'application/x-www-form-urlencoded',
    },
    body: new URLSearchParams({ grant_type: 'client_credentials', scope }).toString(),
  });
  const body = (await json(res)) as { access_token?: string };
  if (!body.access_token) throw new Error(`token: ${res.status} ${JSON.stringify(body)}`);
  return body.access_token;
}

beforeAll(async () => {
  // Anonymous callers and clients (the free plan) get room for the test's requests: the limits are not what is tested here.
  const room = { rps: 1000, concurrency: 20 };
  platform = await startPlatform({ gatewayEnv: { PLAN_LIMITS_JSON: JSON.stringify({ anonymous: room, free: room }) } });
  gateway = platform.gateways[0]!.url;
  [readOnly, readWrite] = await Promise.all([clientToken('content:read'), clientToken('content:read content:write')]);
}, 180_000);

afterAll(async () => {
  await platform?.stop();
});

async function post(body: string | Buffer, headers: Record<string, string> = {}, url = `${gateway}/graphql`) {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : new Uint8Array(body),
  });
  return { status: res.status, body: await json(res) };
}

const gqlError = (code: string, message: unknown = expect.any(String)) => ({
  errors: [{ message, extensions: { code } }],
});
const mutation = 'mutation { deletePost(id: "x") { success } }';

describe('one body encoding: UTF-8 JSON', () => {
  it('refuses a UTF-16LE mutation from a content:read token at the gateway (415), which content would have decoded', async () => {
    const utf16 = Buffer.from(JSON.stringify({ query: mutation }), 'utf16le');
    const res = await post(utf16, {
      authorization: `Bearer ${readOnly}`,
      'content-type': 'application/json; charset=utf-16le',
    });
    expect(res).toEqual({ status: 415, body: gqlError('BAD_USER_INPUT', expect.stringContaining('charset utf-16le')) });
  });

  it('refuses other charsets and media types the same way, anonymous or not', async () => {
    for (const type of [
      'application/json; charset=utf-16',
      'application/json; charset=iso-8859-1',
      'text/plain',
      'application/x-www-form-urlencoded',
    ]) {
      const res = await post(JSON.stringify({ query: '{ __typename }' }), { 'content-type': type });
      expect({ type, ...res }).toEqual({
        type,
        status: 415,
        body: gqlError('BAD_USER_INPUT', expect.stringContaining('application/json')),
      });
    }
    // UTF-8, said or not, is served.
    for (const type of ['application/json', 'application/json; charset=UTF-8']) {
      const res = await post(JSON.stringify({ query: '{ __typename }' }), {
        'content-type': type,
        authorization: `Bearer ${readOnly}`,
      });
      expect({ type, ...res }).toEqual({ type, status: 200, body: { data: { __typename: 'Query' } } });
    }
  });

  it('content refuses a body that is not UTF-8 JSON too (415 in the GraphQL shape), should one reach it', async () => {
    const identity = await signIdentity(
      { roles: [], scope: 'content:read content:write', method: 'bearer_jwt', sub: 'client' },
      INTERNAL_SECRET,
    );
    const utf16 = Buffer.from(JSON.stringify({ query: mutation }), 'utf16le');
    const res = await post(
      utf16,
      { 'x-platform-identity': identity, 'content-type': 'application/json; charset=utf-16le' },
      `${platform.content.url}/graphql`,
    );
    expect(res).toEqual({ status: 415, body: gqlError('BAD_REQUEST', expect.stringContaining('charset utf-16le')) });
  });
});

describe('worst-case bodies are refused cleanly, in the GraphQL shape', () => {
  const limit = 100 * 1024;

  it('deep nesting: 400 within the size bound, 413 past it; never a 500', async () => {
    const within = `{"query":"{ __typename }","variables":{"a":${'['.repeat(limit / 2 - 64)}${']'.repeat(limit / 2 - 64)}}}`;
    expect(await post(within)).toEqual({
      status: 400,
      body: gqlError('BAD_USER_INPUT', 'the request body nests deeper than 32 arrays or objects'),
    });
    expect(await post('['.repeat(limit / 2 - 8) + ']'.repeat(limit / 2 - 8))).toEqual({
      status: 400,
      body: gqlError('BAD_USER_INPUT', 'the request body nests deeper than 32 arrays or objects'),
    });
    expect(await post('['.repeat(512 * 1024) + ']'.repeat(512 * 1024))).toEqual({
      status: 413,
      body: gqlError('BAD_USER_INPUT', `request body exceeds ${limit} bytes`),
    });
  });

  it('long strings: read once and passed on, or 413 past the bound', async () => {
    const long = await post(JSON.stringify({ query: `{ __typename ${'a'.repeat(limit - 64)} }` }));
    // Content's own answer: the field does not exist.
    expect(long.status).toBeLessThan(500);
    expect(long.body).toEqual({
      errors: [expect.objectContaining({ extensions: expect.objectContaining({ code: 'GRAPHQL_VALIDATION_FAILED' }) })],
    });
    expect(await post(JSON.stringify({ query: 'a'.repeat(1024 * 1024) }))).toEqual({
      status: 413,
      body: gqlError('BAD_USER_INPUT', `request body exceeds ${limit} bytes`),
    });
  });

  it('JSON that does not hold together, or names `query` twice: 400', async () => {
    for (const sent of ['', '{"query":', 'null', `{"query":"{ __typename }","query":${JSON.stringify(mutation)}}`]) {
      const res = await post(sent, { authorization: `Bearer ${readOnly}` });
      expect({ sent, ...res }).toEqual({ sent, status: 400, body: gqlError('BAD_USER_INPUT') });
    }
  });
});

describe('the operation is judged on the text content runs', () => {
  it('a mutation needs content:write however it is written; a query needs content:read', async () => {
    const forbidden = { status: 403, body: gqlError('FORBIDDEN', expect.stringContaining('content:write')) };
    expect(
      await post(`{"\\u0071uery":"mut\\u0061tion { deletePost(id: \\"x\\") { success } }"}`, {
        authorization: `Bearer ${readOnly}`,
      }),
    ).toEqual(forbidden);
    expect(
      await post(
        JSON.stringify({
          query: `query A { __typename } # }\n${mutation.replace('mutation', 'mutation B')}`,
          operationName: 'B',
        }),
        { authorization: `Bearer ${readOnly}` },
      ),
    ).toEqual(forbidden);
    expect(
      await post(JSON.stringify({ extensions: { persistedQuery: { version: 1, sha256Hash: 'a'.repeat(64) } } }), {
        authorization: `Bearer ${readOnly}`,
      }),
    ).toEqual(forbidden);
    expect(await post(JSON.stringify({ query: '{ __typename }' }), { authorization: `Bearer ${readOnly}` })).toEqual({
      status: 200,
      body: { data: { __typename: 'Query' } },
    });
    // With the scope, the mutation reaches content (which answers for the post it cannot find).
    const written = await post(JSON.stringify({ query: mutation }), { authorization: `Bearer ${readWrite}` });
    expect(written.status).not.toBe(403);
    expect(written.status).toBeLessThan(500);
  });
});

describe('the same nesting bound on every JSON body content parses', () => {
  it('content REST refuses deep JSON (400 in its shape) before parsing it, anonymous sign-up included', async () => {
    const deep = `{"name":${'['.repeat(200 * 1024)}${']'.repeat(200 * 1024)}}`;
    const res = await post(deep, {}, `${gateway}/api/v1/auth/register`);
    expect(res.status).toBe(400);
    expect(JSON.stringify(res.body)).toContain('nests deeper than 32');
  });

  it('content GraphQL refuses deep JSON too, should a body reach it without the gateway', async () => {
    const identity = await signIdentity({ roles: [], scope: '', method: 'anonymous' }, INTERNAL_SECRET);
    const deep = `{"query":"{ __typename }","variables":{"a":${'['.repeat(40)}${']'.repeat(40)}}}`;
    const res = await post(deep, { 'x-platform-identity': identity }, `${platform.content.url}/graphql`);
    expect(res).toEqual({
      status: 400,
      body: gqlError('BAD_REQUEST', 'the JSON body nests deeper than 32 arrays or objects'),
    });
  });
});
