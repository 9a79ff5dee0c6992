import http from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { httpMetrics, labelRoute, Registry, serveMetrics } from '../src';

async function listen(server: http.Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** An app with a mounted router, a top-level route and a proxy-like middleware, behind the metrics middleware. */
async function serveApp(registry: Registry) {
  const app = express();
  app.use(httpMetrics(registry));
  const voices = express.Router();
  voices.get('/voices/:voice_id', (req, res) => {
    res.json({ voice: req.params.voice_id });
  });
  app.use('/v1', voices);
  app.post('/items/:id', (_req, res) => {
    res.status(201).end();
  });
  app.use('/named', (_req, res) => {
    labelRoute(res, '/named/*');
    res.status(502).end();
  });
  app.use('/proxied', (_req, res) => {
    res.status(504).end();
  });
  const server = http.createServer(app);
  const base = await listen(server);
  return { base, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

async function countOf(registry: Registry, labels: string): Promise<number | undefined> {
  const text = await registry.metrics();
  const line = text.split('\n').find((l) => l.startsWith(`http_server_request_duration_seconds_count{${labels}}`));
  return line === undefined ? undefined : Number(line.split(' ').pop());
}

describe('http_server_request_duration_seconds', () => {
  it('labels a request with its route template joined to the mount path, never the raw path', async () => {
    const registry = new Registry();
    const app = await serveApp(registry);
    try {
      expect((await fetch(`${app.base}/v1/voices/21m00Tcm4TlvDq8ikWAM`)).status).toBe(200);
      expect((await fetch(`${app.base}/v1/voices/other-voice`)).status).toBe(200);
      expect((await fetch(`${app.base}/items/42`, { method: 'POST' })).status).toBe(201);
      expect(await countOf(registry, 'route="/v1/voices/:voice_id",method="GET",status_code="200"')).toBe(2);
      expect(await countOf(registry, 'route="/items/:id",method="POST",status_code="201"')).toBe(1);
      const text = await registry.metrics();
      expect(text).not.toContain('21m00Tcm4TlvDq8ikWAM');
      expect(text).not.toContain('/items/42');
    } finally {
      await app.close();
    }
  });

  it('labels a request no route answered `unmatched`, one a mounted middleware answered with its mount path, and one a handler named with its name', async () => {
    const registry = new Registry();
    const app = await serveApp(registry);
    try {
      expect((await fetch(`${app.base}/no/such/path/123`)).status).toBe(404);
      expect((await fetch(`${app.base}/named/a/b`)).status).toBe(502);
      expect((await fetch(`${app.base}/proxied/c/d`)).status).toBe(504);
      expect(await countOf(registry, 'route="unmatched",method="GET",status_code="404"')).toBe(1);
      expect(await countOf(registry, 'route="/named/*",method="GET",status_code="502"')).toBe(1);
      expect(await countOf(registry, 'route="/proxied",method="GET",status_code="504"')).toBe(1);
      const text = await registry.metrics();
      expect(text).not.toContain('/no/such/path');
      expect(text).not.toContain('/c/d');
    } finally {
      await app.close();
    }
  });
});

describe('serveMetrics', () => {
  it('answers GET /metrics in the Prometheus text format and 404 for anything else', async () => {
    const registry = new Registry();
    await serveApp(registry).then(async (app) => {
      await fetch(`${app.base}/v1/voices/x`);
      await app.close();
    });
    const server = await serveMetrics(0, '127.0.0.1', registry);
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const answer = await fetch(`${base}/metrics`);
      expect(answer.status).toBe(200);
      expect(answer.headers.get('content-type')).toContain('text/plain; version=0.0.4');
      expect(await answer.text()).toContain('# TYPE http_server_request_duration_seconds histogram');
      expect((await fetch(`${base}/`)).status).toBe(404);
      expect((await fetch(`${base}/metrics/x`)).status).toBe(404);
      expect((await fetch(`${base}/metrics`, { method: 'POST' })).status).toBe(404);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
