import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { createLogger, requestLogger, REDACTED, REQUEST_ID_HEADER } from '../src';

interface Line {
  msg: string;
  req: { id: string; url: string };
  res: { statusCode: number; headers: Record<string, unknown> };
  responseTime: unknown;
}

/** A plain HTTP server behind the request logger, its log lines captured. */
async function serve(level: string) {
  const chunks: string[] = [];
  const stream = new Writable({ write: (chunk: Buffer, _e, done) => (chunks.push(chunk.toString()), done()) });
  const log = requestLogger(createLogger('test', level, stream));
  const seenIds: (string | undefined)[] = [];
  const server = http.createServer((req, res) =>
    log(req, res, () => {
      seenIds.push((req as { id?: string }).id);
      res.statusCode = req.url?.startsWith('/fail') ? 503 : 200;
      res.setHeader('set-cookie', 'session=secret-value');
      res.end('ok');
    }),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    base,
    seenIds,
    lines: () =>
      chunks
        .join('')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as Line),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe('requestLogger', () => {
  it('logs one line per request with its id, redacted URL and headers, and echoes the id', async () => {
    const app = await serve('info');
    try {
      const given = await fetch(`${app.base}/authorize?code=abc123&page=2`, {
        headers: { [REQUEST_ID_HEADER]: 'req-1' },
      });
      expect(given.headers.get(REQUEST_ID_HEADER)).toBe('req-1');
      const made = await fetch(`${app.base}/x`, { headers: { [REQUEST_ID_HEADER]: 'not ok!' } });
      const madeId = made.headers.get(REQUEST_ID_HEADER);
      expect(madeId).toMatch(/^[0-9a-f-]{36}$/);
      await fetch(`${app.base}/healthz`);
      await fetch(`${app.base}/fail`);
      expect(app.seenIds).toEqual(['req-1', madeId, expect.any(String), expect.any(String)]);
      const lines = app.lines();
      expect(lines.map((l) => [l.msg, l.req.url, l.res.statusCode])).toEqual([
        ['request completed', `/authorize?code=${REDACTED}&page=2`, 200],
        ['request completed', '/x', 200],
        ['request errored', '/fail', 503],
      ]);
      expect(lines[0]!.req.id).toBe('req-1');
      expect(lines[0]!.res.headers['set-cookie']).toBe(REDACTED);
      expect(typeof lines[0]!.responseTime).toBe('number');
    } finally {
      await app.close();
    }
  });

  it('above info it logs only server errors', async () => {
    const app = await serve('warn');
    try {
      await fetch(`${app.base}/ok`);
      await fetch(`${app.base}/fail?token=t0k3n`);
      expect(app.lines().map((l) => [l.msg, l.req.url, l.res.statusCode])).toEqual([
        ['request errored', `/fail?token=${REDACTED}`, 503],
      ]);
    } finally {
      await app.close();
    }
  });
});
