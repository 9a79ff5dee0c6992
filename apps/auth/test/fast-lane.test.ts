import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createLogger } from '@platform/logger';
import { OAuthError } from '../src/oauth/oauth-error';
import { fastLane } from '../src/http/fast-lane';
import { sendNoStoreJson } from '../src/http/no-store-json';

// A server wired like main.ts: the lane first, everything it declines to a fallback (express there).
let server: http.Server;
let url: string;
const fallback: string[] = [];

beforeAll(async () => {
  const lane = fastLane(createLogger('auth-test', 'silent'), {
    '/echo': async (req, res) => sendNoStoreJson(res, 200, { body: req.body }),
    '/fail': async () => {
      throw new OAuthError('invalid_client', 'nope', 401, { 'WWW-Authenticate': 'Basic realm="auth"' });
    },
    '/crash': async () => {
      throw new Error('bug');
    },
  });
  server = http.createServer((req, res) => {
    if (lane(req, res)) return;
    fallback.push(`${req.method} ${req.url}`);
    res.end('fallback');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const form = (path: string, body: string, headers: Record<string, string> = {}) =>
  fetch(`${url}${path}`, {
    method: 'POST',
    body,
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
  });

describe('fastLane', () => {
  it('reads the form and answers no-store JSON, echoing the request id', async () => {
    const res = await form('/echo', 'a=1&b=2&b=3', { 'x-request-id': 'req-1' });
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(res.headers.get('x-request-id')).toBe('req-1');
    expect(await res.json()).toEqual({ body: { a: '1', b: ['2', '3'] } });
  });

  it('answers OAuth errors in their shape with their headers', async () => {
    const res = await form('/fail', 'x=1');
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe('Basic realm="auth"');
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(await res.json()).toEqual({ error: 'invalid_client', error_description: 'nope' });
  });

  it('answers body errors and bugs like the express error handler', async () => {
    const big = await form('/echo', 'a='.padEnd(20_000, 'x'));
    expect(big.status).toBe(413);
    expect(await big.json()).toEqual({ error: 'invalid_request', error_description: 'request body too large' });
    const crash = await form('/crash', 'x=1');
    expect(crash.status).toBe(500);
    expect(crash.headers.get('cache-control')).toBe('no-store');
    expect(await crash.json()).toEqual({ error: 'server_error', error_description: 'internal error' });
  });

  it('leaves every other request to the fallback', async () => {
    fallback.length = 0;
    expect(await (await fetch(`${url}/echo`)).text()).toBe('fallback');
    expect(await (await form('/echo?x=1', 'a=1')).text()).toBe('fallback');
    expect(await (await form('/echo/', 'a=1')).text()).toBe('fallback');
    expect(await (await form('/other', 'a=1')).text()).toBe('fallback');
    expect(fallback).toEqual(['GET /echo', 'POST /echo?x=1', 'POST /echo/', 'POST /other']);
  });
});
