import http from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { createLogger } from '@platform/logger';
import type { AuthenticateDeps } from '../src/auth/authenticate';
import { loadGatewayConfig } from '../src/config';
import { CORS_MAX_AGE_SECONDS } from '../src/routing/cors';
import { mountEdgeRoutes } from '../src/routing/edge-routes';
import { createUpstream, type Upstream } from '../src/routing/upstream';
import { admitAll, noFailedCredentials } from './edge-doubles';

/**
 * CORS at the edge (routing/cors.ts) on the gateway's real route table, its services replaced by one
 * that records what reaches it: every public interface answers a preflight from an allowed origin
 * with 204 before authentication, refuses one from any other origin with 403 in its own error shape,
 * echoes an allowed origin (never `*`, never with credentials) and exposes the headers scripts need.
 */
const ALLOWED = 'http://app.example.test:5173';
const DENIED = 'http://evil.example.test';
const logger = createLogger('cors-test', 'silent');

const seen: string[] = [];
let service: http.Server;
let gateway: http.Server;
let upstreams: Upstream[];
let base: string;

const listen = async (server: http.Server): Promise<string> => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
};

beforeAll(async () => {
  service = http.createServer((req, res) => {
    seen.push(`${req.method} ${req.url}`);
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"from":"service"}');
  });
  const serviceUrl = await listen(service);
  const bounds = { timeoutMs: 2_000, connectTimeoutMs: 1_000 };
  upstreams = [createUpstream('auth', serviceUrl, bounds), createUpstream('content', serviceUrl, bounds)];
  const app = express();
  mountEdgeRoutes(app, {
    publicUrl: 'http://platform.test',
    corsAllowedOrigins: new Set([ALLOWED]),
    internalSecret: 'cors-test-internal-secret-0123456789abcdef',
    maxBodyBytes: 1024,
    maxGraphqlBodyBytes: 1024,
    logger,
    // Only anonymous requests are made: a credential is never looked at.
    authDeps: {} as AuthenticateDeps,
    limiter: admitAll,
    failedCredentials: noFailedCredentials,
    upstreams: { auth: upstreams[0]!, content: upstreams[1]! },
    speech: [express.Router()],
    speechV2: [express.Router()],
    openaiSpeech: [express.Router()],
    // A GET route at an API path, as the GraphQL explorer's: express would answer an OPTIONS there itself.
    reference: express
      .Router()
      .get('/graphql', (req, res, next) => (req.query.query === undefined ? void res.send('explorer') : next())),
  });
  gateway = http.createServer(app);
  base = await listen(gateway);
});

afterAll(async () => {
  await new Promise<void>((resolve) => gateway.close(() => resolve()));
  await new Promise<void>((resolve) => service.close(() => resolve()));
  await Promise.all(upstreams.map((u) => u.agent.close()));
});

beforeEach(() => {
  seen.length = 0;
});

/** One endpoint of each public interface, with the request a browser app would make there. */
const INTERFACES = [
  { path: '/v1/voices', method: 'GET', shape: 'speech' },
  { path: '/v1/text-to-speech/v/stream', method: 'POST', shape: 'speech' },
  { path: '/v1/audio/speech', method: 'POST', shape: 'openai' },
  { path: '/v2/voices', method: 'GET', shape: 'speech' },
  { path: '/api/v1/posts', method: 'POST', shape: 'content' },
  { path: '/graphql', method: 'POST', shape: 'graphql' },
  ...[
    '/token',
    '/.well-known/openid-configuration',
    '/.well-known/oauth-authorization-server',
    '/jwks',
    '/revoke',
    '/introspect',
    '/par',
    '/register',
    '/device_authorization',
    '/userinfo',
  ].map((path) => ({ path, method: 'POST', shape: 'oauth' })),
] as const;

const preflight = (path: string, origin: string, method: string) =>
  fetch(`${base}${path}`, {
    method: 'OPTIONS',
    headers: {
      origin,
      'access-control-request-method': method,
      'access-control-request-headers': 'authorization,content-type,dpop',
    },
  });

describe('a preflight', () => {
  it.each(INTERFACES)(
    '$path: from an allowed origin, 204 with the methods, headers and max age, before authentication',
    async ({ path, method }) => {
      const res = await preflight(path, ALLOWED, method);
      expect(res.status).toBe(204);
      expect(res.headers.get('access-control-allow-origin')).toBe(ALLOWED);
      expect(res.headers.get('access-control-allow-methods')!.split(', ')).toContain(method);
      expect(res.headers.get('access-control-allow-headers')!.split(', ')).toEqual(
        expect.arrayContaining(['Authorization', 'Content-Type', 'DPoP']),
      );
      expect(res.headers.get('access-control-max-age')).toBe(String(CORS_MAX_AGE_SECONDS));
      expect(res.headers.get('vary')).toMatch(/\bOrigin\b/);
      expect(res.headers.get('access-control-allow-credentials')).toBeNull();
      expect(seen).toEqual([]);
    },
  );

  it.each(INTERFACES)(
    '$path: from another origin, 403 in the interface’s shape, no CORS headers',
    async ({ path, method, shape }) => {
      const res = await preflight(path, DENIED, method);
      expect(res.status).toBe(403);
      expect(res.headers.get('access-control-allow-origin')).toBeNull();
      expect(res.headers.get('access-control-allow-methods')).toBeNull();
      expect(res.headers.get('vary')).toMatch(/\bOrigin\b/);
      const body = (await res.json()) as Record<string, unknown>;
      const message = `origin ${DENIED} is not in CORS_ALLOWED_ORIGINS`;
      const expected = {
        speech: { detail: { status: 'bad_request', message } },
        openai: { error: expect.objectContaining({ message }) as unknown },
        content: { error: message },
        graphql: { errors: [{ message, extensions: { code: 'FORBIDDEN' } }] },
        oauth: { error: 'invalid_request', error_description: message },
      }[shape];
      expect(body).toEqual(expected);
      expect(seen).toEqual([]);
    },
  );

  it('on the pages a person sees and the administration API: no CORS, the request goes to auth as any OPTIONS', async () => {
    for (const path of ['/authorize', '/login', '/logout', '/device', '/admin/accounts']) {
      const res = await preflight(path, ALLOWED, 'POST');
      expect({ path, origin: res.headers.get('access-control-allow-origin') }).toEqual({ path, origin: null });
    }
    expect(seen).toHaveLength(5);
  });
});

describe('a request', () => {
  it('from an allowed origin: the origin echoed (never *), the headers scripts need exposed, no credentials', async () => {
    const speech = await fetch(`${base}/v1/voices`, { headers: { origin: ALLOWED } });
    // Refused for want of a credential: the page can read why.
    expect(speech.status).toBe(401);
    expect(speech.headers.get('access-control-allow-origin')).toBe(ALLOWED);
    expect(speech.headers.get('access-control-expose-headers')!.split(', ')).toEqual(
      expect.arrayContaining(['Retry-After', 'WWW-Authenticate', 'DPoP-Nonce', 'history-item-id', 'request-id']),
    );
    const token = await fetch(`${base}/token`, { method: 'POST', headers: { origin: ALLOWED } });
    expect(token.status).toBe(200);
    expect(token.headers.get('access-control-allow-origin')).toBe(ALLOWED);
    expect(token.headers.get('access-control-expose-headers')!.split(', ')).toContain('DPoP-Nonce');
    for (const res of [speech, token]) expect(res.headers.get('access-control-allow-credentials')).toBeNull();
  });

  it('from another origin: answered without CORS headers (the browser keeps the answer from the script)', async () => {
    for (const path of ['/graphql?query=%7B__typename%7D', '/api/v1/posts', '/jwks']) {
      const res = await fetch(`${base}${path}`, { headers: { origin: DENIED } });
      expect({ path, status: res.status, acao: res.headers.get('access-control-allow-origin') }).toEqual({
        path,
        status: 200,
        acao: null,
      });
      expect(res.headers.get('vary')).toMatch(/\bOrigin\b/);
    }
  });

  it('with no Origin (not a browser, or the same origin on GET): no CORS headers', async () => {
    const res = await fetch(`${base}/jwks`);
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
  });
});

describe('CORS_ALLOWED_ORIGINS', () => {
  const base = {
    REDIS_URL: 'redis://127.0.0.1:6379',
    KAFKA_BROKERS: '127.0.0.1:9092',
    INTERNAL_SECRET: 'cors-test-internal-secret-0123456789abcdef',
  };

  it('is none by default and a list of exact origins when set', () => {
    expect(loadGatewayConfig(base).CORS_ALLOWED_ORIGINS).toEqual([]);
    expect(
      loadGatewayConfig({ ...base, CORS_ALLOWED_ORIGINS: 'https://app.example.com, http://127.0.0.1:3000' })
        .CORS_ALLOWED_ORIGINS,
    ).toEqual(['https://app.example.com', 'http://127.0.0.1:3000']);
  });

  it.each(['*', 'https://app.example.com/', 'https://app.example.com/spa', 'app.example.com', 'ftp://x.example'])(
    'refuses %s at boot: only origins, as a browser sends them, can match',
    (value) => {
      expect(() => loadGatewayConfig({ ...base, CORS_ALLOWED_ORIGINS: value })).toThrow(/CORS_ALLOWED_ORIGINS/);
    },
  );
});
