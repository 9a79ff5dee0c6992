import { buildSchema, printSchema } from 'graphql';
import { typeDefs } from '@platform/graphql-schema';
import { stackEnv } from '@platform/testing';
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

  it('names the Kafka brokers the platform is configured with (KAFKA_BROKERS), not a default address', async () => {
    const document = (await (await fetch(`${platform.publicUrl}/asyncapi.json`)).json()) as {
      servers: Record<string, { host: string; protocol: string; description: string }>;
    };
    const brokers = stackEnv().KAFKA_BROKERS.split(',');
    expect(document.servers.kafka).toMatchObject({ host: brokers[0], protocol: 'kafka' });
    expect(document.servers.kafka!.description).toContain(brokers.join(', '));
  });
});

describe('GET /graphql/schema.graphql', () => {
  it('serves the GraphQL SDL, from its one source, as text any origin may read', async () => {
    const res = await fetch(`${platform.publicUrl}/graphql/schema.graphql`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    const sdl = await res.text();
    // The same types, fields and directives as the schema content and the subscriptions are built from.
    expect(printSchema(buildSchema(sdl))).toBe(printSchema(buildSchema(typeDefs)));
    expect(sdl).toContain('directive @auth(requires: Role = USER) on FIELD_DEFINITION');
    expect(sdl).toMatch(/^type Subscription \{$/m);
  });
});
