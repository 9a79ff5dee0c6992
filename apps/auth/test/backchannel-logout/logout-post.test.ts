import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { postForm, type PostBounds } from '../../src/backchannel-logout/logout-post';

/** What a back-channel logout POST makes of an RP's answers (Back-Channel Logout 1.0 §2.8) and of the addresses it may reach. */
const dev: PostBounds = { allowPrivate: true, timeoutMs: 2000 };
const strict: PostBounds = { ...dev, allowPrivate: false };

let server: http.Server;
let port: number;
let connections = 0;
const received: { path: string; type: string | undefined; body: string }[] = [];
const hanging: http.ServerResponse[] = [];

beforeAll(async () => {
  server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      received.push({ path: req.url ?? '', type: req.headers['content-type'], body });
      const status = Number(req.url?.slice(1));
      if (req.url === '/slow') return hanging.push(res);
      res
        .writeHead(Number.isInteger(status) && status >= 200 ? status : 200, status === 302 ? { location: '/200' } : {})
        .end();
    });
  });
  server.on('connection', () => connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  for (const res of hanging) res.destroy();
  await new Promise((resolve) => server.close(resolve));
});

it('POSTs the form; 200 and 204 are delivered, 5xx/408/429 are retried, 400 and redirects are rejected (never followed)', async () => {
  const outcomes: Record<string, unknown> = {};
  for (const status of [200, 204, 503, 408, 429, 400, 302])
    outcomes[status] = await postForm(`http://127.0.0.1:${port}/${status}`, 'logout_token=abc', dev);
  expect(outcomes).toEqual({
    200: { result: 'delivered' },
    204: { result: 'delivered' },
    503: { result: 'retry', reason: 'HTTP 503' },
    408: { result: 'retry', reason: 'HTTP 408' },
    429: { result: 'retry', reason: 'HTTP 429' },
    400: { result: 'rejected', reason: 'HTTP 400' },
    302: { result: 'rejected', reason: 'HTTP 302' },
  });
  expect(received[0]).toEqual({ path: '/200', type: 'application/x-www-form-urlencoded', body: 'logout_token=abc' });
  expect(received.filter((r) => r.path === '/200')).toHaveLength(1);
});

it('reaches a host by name (resolved, checked, connected to the checked address)', async () => {
  await expect(postForm(`http://localhost:${port}/200`, 'logout_token=abc', dev)).resolves.toEqual({
    result: 'delivered',
  });
});

it('an RP that does not answer in time is retried later', async () => {
  await expect(
    postForm(`http://127.0.0.1:${port}/slow`, 'logout_token=abc', { ...dev, timeoutMs: 300 }),
  ).resolves.toEqual({ result: 'retry', reason: 'timeout' });
});

it('by default, loopback and private addresses are refused, by literal and by name, without a connection', async () => {
  const before = connections;
  await expect(postForm(`https://127.0.0.1:${port}/200`, 'x=1', strict)).resolves.toEqual({
    result: 'rejected',
    reason: 'private address',
  });
  await expect(postForm(`https://localhost:${port}/200`, 'x=1', strict)).resolves.toEqual({
    result: 'rejected',
    reason: 'private address',
  });
  await expect(postForm(`https://[::ffff:10.0.0.1]:${port}/200`, 'x=1', strict)).resolves.toEqual({
    result: 'rejected',
    reason: 'private address',
  });
  await expect(postForm('http://10.0.0.1:1/200', 'x=1', dev)).resolves.toEqual({
    result: 'rejected',
    reason: 'private address',
  });
  expect(connections).toBe(before);
});
