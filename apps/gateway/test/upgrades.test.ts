import http from 'node:http';
import type { AddressInfo } from 'node:net';
import net from 'node:net';
import { createLogger } from '@platform/logger';
import { routeUpgrades, type UpgradeHandler } from '../src/routing/upgrades';

/**
 * WebSocket upgrades are routed by the edge-route table's WebSocket mounts (WEBSOCKET_ROUTES): each
 * server is asked only for the paths under its mount, and any other upgrade is answered 404.
 */
const asked: { server: string; url: string }[] = [];
let server: http.Server;
let port: number;

/** A server that records what it was asked and takes the upgrade by answering 101-free 200 (enough to tell who took it). */
const taking =
  (name: string, takes: boolean): UpgradeHandler =>
  (req, socket) => {
    asked.push({ server: name, url: req.url ?? '' });
    if (!takes) return false;
    socket.end(`HTTP/1.1 200 OK\r\nX-Taken-By: ${name}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
    return true;
  };

/** The status line and `x-taken-by` of the answer to an upgrade request for `path`. */
async function upgrade(path: string): Promise<{ status: string; takenBy: string | undefined }> {
  const socket = net.connect(port, '127.0.0.1');
  socket.write(
    `GET ${path} HTTP/1.1\r\nHost: gateway\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n`,
  );
  const chunks: Buffer[] = [];
  for await (const chunk of socket) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('latin1');
  return { status: text.split('\r\n', 1)[0]!, takenBy: /x-taken-by: (\S+)/i.exec(text)?.[1] };
}

beforeAll(async () => {
  server = http.createServer();
  routeUpgrades(server, {
    servers: { graphql: taking('graphql', true), speech: taking('speech', false) },
    logger: createLogger('upgrades-test', 'silent'),
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

beforeEach(() => {
  asked.length = 0;
});

describe('WebSocket upgrades', () => {
  it('/graphql goes to the graphql-ws server', async () => {
    expect(await upgrade('/graphql')).toEqual({ status: 'HTTP/1.1 200 OK', takenBy: 'graphql' });
    expect(asked).toEqual([{ server: 'graphql', url: '/graphql' }]);
  });

  it('a path under the speech mount is offered to the speech server, which may decline it: 404', async () => {
    expect(await upgrade('/v1/text-to-speech/v1/elsewhere')).toEqual({
      status: 'HTTP/1.1 404 Not Found',
      takenBy: undefined,
    });
    expect(asked).toEqual([{ server: 'speech', url: '/v1/text-to-speech/v1/elsewhere' }]);
  });

  it('a path under no WebSocket mount is 404 without asking any server', async () => {
    for (const path of ['/api/v1/posts', '/v2/voices', '/graphql/x', '/GRAPHQL'])
      expect(await upgrade(path)).toEqual({ status: 'HTTP/1.1 404 Not Found', takenBy: undefined });
    expect(asked).toEqual([]);
  });
});
