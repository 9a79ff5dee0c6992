import http from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { verifyIdentity, type Identity } from '@platform/identity';
import { createLogger } from '@platform/logger';
import type { AuthenticateDeps } from '../src/auth/authenticate';
import fs from 'node:fs';
import path from 'node:path';
import { gatewayConfigShape } from '../src/config';
import { mountPaths, type EdgeRoute } from '../src/routing/edge-route';
import { EDGE_ROUTES, UPSTREAM_NAMES, WEBSOCKET_ROUTES } from '../src/routing/edge-route-table';
import { createIdentitySigner } from '../src/routing/identity-signer';
import { mountEdgeRoute, type EdgeRouteContext } from '../src/routing/mount-edge-route';
import { surfaceOf } from '../src/routing/path-guard';
import { createUpstream, type Upstream } from '../src/routing/upstream';
import { admitAll, noFailedCredentials } from './edge-doubles';

/**
 * The edge-route table and the one function that mounts a route (docs/architecture.md "Where
 * things go": an upstream route is one entry). A descriptor mounted here against a recording
 * service shows what each of its fields does; the table itself is held to the path guard.
 */
const SECRET = 'edge-route-table-test-secret-0123456789abcdef';
const logger = createLogger('edge-route-table-test', 'silent');

interface Seen {
  url: string;
  headers: http.IncomingHttpHeaders;
  identity: Identity;
}

const seen: Seen[] = [];
let service: http.Server;
let gateway: http.Server;
let upstream: Upstream;
let down: Upstream;
let base: string;

// Only routes whose requests are all taken as anonymous (`publicPaths`) are mounted here: a credential is never looked at.
const authDeps = {} as AuthenticateDeps;

const listen = async (server: http.Server): Promise<string> => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
};

/** A route to a new service, as one entry would declare it. */
const billing: EdgeRoute = {
  mount: { prefixes: ['/billing', '/invoices'] },
  upstream: { service: 'auth' },
  surface: 'oauth',
  planLimits: false,
  body: 'stream',
};
const reports: EdgeRoute = {
  mount: { at: '/reports' },
  upstream: { service: 'content' },
  surface: 'content',
  authentication: {
    credentials: 'optional',
    resources: [''],
    scopes: { read: 'content:read', write: 'content:write' },
    publicPaths: ['/open'],
  },
  planLimits: true,
  body: 'stream',
};
const helpers: EdgeRoute = {
  mount: { at: '/helpers' },
  upstream: { local: 'speech', notFound: 'no such helper' },
  surface: 'speech',
  planLimits: false,
  body: 'stream',
};
const absent: EdgeRoute = {
  mount: { at: '/absent' },
  upstream: { local: 'speechV2', notFound: 'never mounted' },
  surface: 'speech',
  planLimits: false,
  body: 'stream',
};

beforeAll(async () => {
  service = http.createServer((req, res) => {
    void verifyIdentity(req.headers['x-platform-identity'] as string | undefined, SECRET).then((identity) => {
      seen.push({ url: req.url ?? '', headers: req.headers, identity });
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"from":"service"}');
    });
  });
  const bounds = { timeoutMs: 2_000, connectTimeoutMs: 1_000 };
  upstream = createUpstream('billing', await listen(service), bounds);
  // A port nothing listens on: the service is down.
  const closed = http.createServer();
  const closedUrl = await listen(closed);
  await new Promise<void>((resolve) => closed.close(() => resolve()));
  down = createUpstream('reports', closedUrl, bounds);

  const app = express();
  const helperRouter = express.Router().get('/hello', (_req, res) => void res.json({ from: 'local' }));
  const context = (upstreams: EdgeRouteContext['upstreams']): EdgeRouteContext => ({
    publicUrl: 'http://platform.test',
    corsAllowedOrigins: new Set(),
    maxBodyBytes: 1024,
    maxGraphqlBodyBytes: 1024,
    logger,
    authDeps,
    limiter: admitAll,
    failedCredentials: noFailedCredentials,
    signIdentity: createIdentitySigner(SECRET),
    upstreams,
    local: { speech: [helperRouter] },
  });
  mountEdgeRoute(app, billing, context({ auth: upstream, content: down }));
  mountEdgeRoute(app, reports, context({ auth: down, content: upstream }));
  mountEdgeRoute(app, { ...reports, mount: { at: '/reports-down' } }, context({ auth: upstream, content: down }));
  mountEdgeRoute(app, helpers, context({ auth: down, content: down }));
  mountEdgeRoute(app, absent, context({ auth: down, content: down }));
  app.use((_req, res) => void res.status(404).json({ from: 'fallthrough' }));
  gateway = http.createServer(app);
  base = await listen(gateway);
});

afterAll(async () => {
  await new Promise<void>((resolve) => gateway.close(() => resolve()));
  await new Promise<void>((resolve) => service.close(() => resolve()));
  await Promise.all([upstream.agent.close(), down.agent.close()]);
});

beforeEach(() => {
  seen.length = 0;
});

const call = async (path: string, headers: Record<string, string> = {}) => {
  const res = await fetch(`${base}${path}`, { headers });
  return { status: res.status, body: (await res.json()) as unknown };
};

describe('the edge-route table', () => {
  it('a refusal before routing (a non-canonical path) is in the shape of the route the path belongs to', () => {
    for (const route of EDGE_ROUTES) {
      const paths = 'at' in route.mount ? [route.mount.at] : route.mount.prefixes;
      for (const path of paths)
        expect({ path, surface: surfaceOf(`${path}/x`) }).toEqual({ path, surface: route.surface });
    }
  });

  it('a WebSocket mount refuses in its interface’s shape too (surfaceOf reads both tables)', () => {
    for (const route of WEBSOCKET_ROUTES)
      for (const at of mountPaths(route))
        expect({ at, surface: surfaceOf(`${at.replace(/\/$/, '')}/x`) }).toEqual({ at, surface: route.surface });
  });

  it('every upstream the table names is an internal service of the manifest, reached at its <NAME>_URL', () => {
    const manifest = JSON.parse(
      fs.readFileSync(path.join(__dirname, '../../../deploy/helm/platform/services.json'), 'utf8'),
    ) as { name: string; serves: string }[];
    const internal = manifest.filter((service) => service.serves === 'internal').map((service) => service.name);
    expect([...UPSTREAM_NAMES].sort()).toEqual(['auth', 'content']);
    for (const name of UPSTREAM_NAMES) {
      expect(internal).toContain(name);
      expect(Object.keys(gatewayConfigShape)).toContain(`${name.toUpperCase().replaceAll('-', '_')}_URL`);
    }
  });

  it('no two routes are mounted at the same path', () => {
    const paths = EDGE_ROUTES.flatMap((route) => ('at' in route.mount ? [route.mount.at] : route.mount.prefixes));
    expect(new Set(paths).size).toBe(paths.length);
  });
});

describe('mounting one route', () => {
  it('prefixes: the path and everything under it go to the service as written, with the credential and an anonymous identity carrying the client address', async () => {
    expect(await call('/billing', { authorization: 'Bearer abc' })).toEqual({ status: 200, body: { from: 'service' } });
    expect(await call('/invoices/7?x=1')).toEqual({ status: 200, body: { from: 'service' } });
    expect(seen.map((s) => s.url)).toEqual(['/billing', '/invoices/7?x=1']);
    // Without edge authentication the service authenticates its own callers: the credential reaches it.
    expect(seen[0]!.headers.authorization).toBe('Bearer abc');
    expect(seen[0]!.identity).toMatchObject({ method: 'anonymous', roles: [], scope: '', clientAddress: '127.0.0.1' });
  });

  it('prefixes match exactly as written: another case or a longer segment is not the route', async () => {
    expect(await call('/Billing')).toEqual({ status: 404, body: { from: 'fallthrough' } });
    expect(await call('/billingx')).toEqual({ status: 404, body: { from: 'fallthrough' } });
    expect(seen).toEqual([]);
  });

  it('at: with edge authentication the credential stays at the edge; a public path is anonymous', async () => {
    expect(await call('/reports/open/today', { authorization: 'Bearer abc', 'xi-api-key': 'k', dpop: 'p' })).toEqual({
      status: 200,
      body: { from: 'service' },
    });
    expect(seen).toHaveLength(1);
    expect(seen[0]!.url).toBe('/reports/open/today');
    expect(seen[0]!.headers).not.toHaveProperty('authorization');
    expect(seen[0]!.headers).not.toHaveProperty('xi-api-key');
    expect(seen[0]!.headers).not.toHaveProperty('dpop');
    expect(seen[0]!.identity).toMatchObject({ method: 'anonymous', clientAddress: '127.0.0.1' });
  });

  it("a service that is down is answered in the route's error shape", async () => {
    const answer = await call('/reports-down/open/x');
    expect(answer).toEqual({ status: 503, body: { error: { code: 503, message: 'reports is unavailable' } } });
  });

  it('a local route serves its routers and ends with a 404 in its shape; one whose routers are not handed in is not mounted', async () => {
    expect(await call('/helpers/hello')).toEqual({ status: 200, body: { from: 'local' } });
    expect(await call('/helpers/nothing')).toEqual({
      status: 404,
      body: { detail: { status: 'error', message: 'no such helper' } },
    });
    expect(await call('/absent/x')).toEqual({ status: 404, body: { from: 'fallthrough' } });
  });
});
