import { randomUUID } from 'node:crypto';
import http from 'node:http';
import { eventually, startPlatform, type Platform } from './platform';

/**
 * The gateway decides where a request goes by its path, then forwards it; a URL library on the way
 * (or the service) resolves `..`, `%2e%2e` and `\` afterwards. A path such as `/jwks/../internal/x`
 * passes the public-prefix check as written and arrives as `/internal/x`. Every form of it is
 * refused at the edge, in the shape of the interface its first segment names, and never reaches a
 * service: each attempt carries its own `x-request-id`, which auth logs for every request it gets.
 */
let platform: Platform;
let gateway: URL;

beforeAll(async () => {
  platform = await startPlatform({ authEnv: { LOG_LEVEL: 'info' } });
  gateway = new URL(platform.gateways[0]!.url);
}, 120_000);

afterAll(async () => {
  await platform?.stop();
});

interface RawAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** Sends `path` byte for byte (fetch and URL would resolve the dot segments before sending). */
function rawRequest(path: string, headers: Record<string, string> = {}, method = 'GET'): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: gateway.hostname, port: gateway.port, path, method, headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** Whether auth logged a request with this id (auth runs at LOG_LEVEL=info: one line per request). */
function authSaw(requestId: string): boolean {
  return platform.auth.output().includes(`"id":"${requestId}"`);
}

const TRAVERSALS = [
  '/jwks/../internal/accounts',
  '/jwks/./../internal/accounts',
  '/jwks/%2e%2e/internal/accounts',
  '/jwks/%2E%2e/internal/accounts',
  '/jwks/.%2e/internal/accounts',
  '/jwks/%2e./internal/accounts',
  '/jwks\\..\\internal\\accounts',
  '/jwks/..\\internal/accounts',
  '/jwks/..%2finternal/accounts',
  '/jwks/..%2Finternal/accounts',
  '/jwks/..%5cinternal/accounts',
  '/jwks//../internal/accounts',
  '//internal/accounts',
  '/token/../internal/api-keys/lookup',
  '/authorize/%2e%2e/internal/accounts?x=1',
];

describe('paths with dot segments, encoded separators, backslashes or empty segments', () => {
  it('a legitimate auth path is forwarded and auth logs its request id (the observation below can fail)', async () => {
    const id = `ok-${randomUUID()}`;
    const answer = await rawRequest('/jwks', { 'x-request-id': id });
    expect(answer.status).toBe(200);
    await eventually(() => authSaw(id), 10_000);
  });

  it('the sign-out page is served through the gateway (the origin the sign-in cookie belongs to)', async () => {
    const answer = await rawRequest('/logout');
    expect(answer.status).toBe(200);
    expect(answer.headers['content-type']).toMatch(/^text\/html/);
    expect(answer.headers['x-frame-options']).toBe('DENY');
    expect(answer.body).toContain('action="/logout"');
  });

  it.each(TRAVERSALS)('%s is refused with 400 invalid_request and never reaches auth', async (path) => {
    const id = `trav-${randomUUID()}`;
    const answer = await rawRequest(path, { 'x-request-id': id });
    expect(answer.status).toBe(400);
    expect(answer.headers['content-type']).toMatch(/^application\/json/);
    expect(JSON.parse(answer.body)).toEqual({
      error: 'invalid_request',
      error_description: expect.stringMatching(/path/),
    });
    // A later request that does reach auth is logged after anything sent before it on this gateway.
    const marker = `after-${randomUUID()}`;
    await rawRequest('/jwks', { 'x-request-id': marker });
    await eventually(() => authSaw(marker), 10_000);
    expect(authSaw(id)).toBe(false);
    expect(platform.auth.output()).not.toMatch(/"url":"\/internal/);
  });

  it('a POST with a body is refused the same way (the body is not forwarded)', async () => {
    const id = `post-${randomUUID()}`;
    const answer = await rawRequest(
      '/token/..%2f..%2finternal/api-keys/lookup',
      { 'x-request-id': id, 'content-type': 'application/json' },
      'POST',
    );
    expect(answer.status).toBe(400);
    expect(JSON.parse(answer.body)).toMatchObject({ error: 'invalid_request' });
  });

  it('content and speech paths answer in their own shapes', async () => {
    const content = await rawRequest('/api/v1/../../internal/x');
    expect(content.status).toBe(400);
    expect(JSON.parse(content.body)).toEqual({ errors: { path: expect.any(String) } });
    const graphql = await rawRequest('/graphql/%2e%2e/internal');
    expect(graphql.status).toBe(400);
    expect(JSON.parse(graphql.body)).toEqual({
      errors: [{ message: expect.any(String), extensions: { code: 'BAD_USER_INPUT' } }],
    });
    const speech = await rawRequest('/v1//models');
    expect(speech.status).toBe(400);
    expect(JSON.parse(speech.body)).toEqual({ detail: { status: 'bad_request', message: expect.any(String) } });
  });

  it('a WebSocket upgrade on such a path is refused before any protocol runs', async () => {
    const status = await new Promise<number>((resolve, reject) => {
      const req = http.request({
        host: gateway.hostname,
        port: gateway.port,
        path: '/v1/%2e%2e/graphql',
        headers: {
          connection: 'Upgrade',
          upgrade: 'websocket',
          'sec-websocket-version': '13',
          'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==',
          'sec-websocket-protocol': 'graphql-transport-ws',
        },
      });
      req.on('response', (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('upgrade', (res, socket) => {
        socket.destroy();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', reject);
      req.end();
    });
    expect(status).toBe(400);
  });
});
