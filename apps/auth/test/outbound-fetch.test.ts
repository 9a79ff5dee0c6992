import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { isPrivateAddress } from '../src/http/address-ranges';
import { fetchJsonWithin, OutboundFetchError, type OutboundLimits } from '../src/http/outbound-fetch';

/** The bounds of a fetch of a client-registered URL (a `jwks_uri`): addresses, scheme, size, time, redirects. */
const strict: OutboundLimits = { allowPrivate: false, timeoutMs: 2000, maxBytes: 1024 };
const dev: OutboundLimits = { ...strict, allowPrivate: true };

let server: http.Server;
let base: string;
const hanging: http.ServerResponse[] = [];

beforeAll(async () => {
  server = http.createServer((req, res) => {
    if (req.url === '/keys') return res.end(JSON.stringify({ keys: [] }));
    if (req.url === '/big') return res.end(JSON.stringify({ pad: 'x'.repeat(5000) }));
    if (req.url === '/moved') {
      res.writeHead(302, { location: '/keys' });
      return res.end();
    }
    if (req.url === '/slow') {
      res.writeHead(200);
      res.write('{');
      hanging.push(res);
      return;
    }
    res.end('not json');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  for (const res of hanging) res.destroy();
  await new Promise((resolve) => server.close(resolve));
});

describe('isPrivateAddress', () => {
  it.each([
    '127.0.0.1',
    '10.1.2.3',
    '172.16.0.1',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '::1',
    '::',
    'fd00::1',
    'fe80::1',
    '::ffff:10.0.0.1',
    '::ffff:127.0.0.1',
    '::ffff:a00:1',
    '::ffff:7f00:1',
    '224.0.0.1',
    'not-an-ip',
  ])('%s is private', (address) => expect(isPrivateAddress(address)).toBe(true));
  it.each(['8.8.8.8', '1.1.1.1', '2606:4700:4700::1111', '::ffff:8.8.8.8'])('%s is public', (address) =>
    expect(isPrivateAddress(address)).toBe(false),
  );
});

describe('fetchJsonWithin', () => {
  it('refuses plain http, loopback by address and by name, unless the development setting allows them', async () => {
    await expect(fetchJsonWithin(`${base}/keys`, strict)).rejects.toThrow('only https');
    await expect(fetchJsonWithin('https://127.0.0.1:1/keys', strict)).rejects.toThrow('not fetched from');
    await expect(fetchJsonWithin('https://[::1]:1/keys', strict)).rejects.toThrow('not fetched from');
    await expect(fetchJsonWithin('https://[::ffff:169.254.169.254]:1/keys', strict)).rejects.toThrow(
      'not fetched from',
    );
    await expect(fetchJsonWithin('https://localhost:1/keys', strict)).rejects.toThrow('resolves to an address');
    await expect(fetchJsonWithin(`${base}/keys`, dev)).resolves.toEqual({ keys: [] });
  });

  it('fetches from a host name (resolved and checked), not only from an address literal', async () => {
    await expect(fetchJsonWithin(`${base.replace('127.0.0.1', 'localhost')}/keys`, dev)).resolves.toEqual({ keys: [] });
  });

  it('plain http goes only to loopback even when private addresses are allowed', async () => {
    await expect(fetchJsonWithin('http://10.0.0.1:1/keys', dev)).rejects.toThrow('not fetched from');
  });

  it('refuses credentials in the URL, redirects, answers over the size limit, answers that are not JSON', async () => {
    await expect(fetchJsonWithin(`http://u:p@127.0.0.1:1/keys`, dev)).rejects.toThrow('credentials');
    await expect(fetchJsonWithin(`${base}/moved`, dev)).rejects.toThrow('redirects are not followed');
    await expect(fetchJsonWithin(`${base}/big`, dev)).rejects.toThrow('larger than 1024 bytes');
    await expect(fetchJsonWithin(`${base}/other`, dev)).rejects.toThrow('not JSON');
  });

  it('gives up on an answer that does not complete within the time limit', async () => {
    const started = Date.now();
    const err = await fetchJsonWithin(`${base}/slow`, { ...dev, timeoutMs: 300 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OutboundFetchError);
    expect((err as Error).message).toMatch(/within 300 ms/);
    // Not a latency bound: only that the fetch ended on the limit rather than hanging for jest's timeout.
    expect(Date.now() - started).toBeLessThan(4000);
  });
});
