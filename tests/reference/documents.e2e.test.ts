import { startPlatform, type Platform } from '../gateway/platform';

/**
 * The gateway publishes its interface documents: OpenAPI 3.1 for the speech, content and auth APIs and
 * AsyncAPI 3.0 for the message interfaces, each naming this gateway (PUBLIC_URL) as its server.
 */
jest.setTimeout(120_000);

let platform: Platform;

beforeAll(async () => {
  platform = await startPlatform();
});

afterAll(async () => {
  await platform?.stop();
});

describe.each(['speech', 'content', 'auth'])('GET /openapi/%s.json', (name) => {
  it('serves an OpenAPI 3.1 document whose server is the gateway', async () => {
    const res = await fetch(`${platform.publicUrl}/openapi/${name}.json`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    const document = (await res.json()) as {
      openapi: string;
      info: { title: string };
      servers: { url: string }[];
      paths: object;
    };
    expect(document.openapi).toBe('3.1.0');
    expect(document.info.title).toEqual(expect.any(String));
    expect(document.servers).toEqual([{ url: platform.publicUrl }]);
    expect(typeof document.paths).toBe('object');
  });
});

describe('GET /asyncapi.json', () => {
  it('serves an AsyncAPI 3.0 document with the gateway as its WebSocket server', async () => {
    const res = await fetch(`${platform.publicUrl}/asyncapi.json`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    const document = (await res.json()) as {
      asyncapi: string;
      servers: Record<string, { host: string; protocol: string }>;
    };
    expect(document.asyncapi).toBe('3.0.0');
    expect(document.servers.gateway).toMatchObject({ host: new URL(platform.publicUrl).host, protocol: 'ws' });
  });
});
