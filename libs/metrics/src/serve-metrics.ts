import http from 'node:http';
import type { Registry } from 'prom-client';
import { metricsRegistry } from './registry';

/**
 * The internal metrics listener: `GET /metrics` in the Prometheus text exposition format, 404 for
 * anything else. A listener of its own (METRICS_PORT), apart from the app's public port, so the
 * public gateway never serves metrics and no Ingress routes to them.
 */
export async function serveMetrics(
  port: number,
  host: string,
  registry: Registry = metricsRegistry,
): Promise<http.Server> {
  const server = http.createServer((req, res) => {
    const path = (req.url ?? '').split('?', 1)[0];
    if (path !== '/metrics' || (req.method !== 'GET' && req.method !== 'HEAD')) {
      res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('not found\n');
      return;
    }
    registry.metrics().then(
      (text) =>
        res.writeHead(200, { 'content-type': registry.contentType }).end(req.method === 'HEAD' ? undefined : text),
      (err: unknown) => {
        res
          .writeHead(500, { 'content-type': 'text/plain; charset=utf-8' })
          .end(`collecting metrics failed: ${err instanceof Error ? err.message : String(err)}\n`);
      },
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  return server;
}
