import { Parser } from '@asyncapi/parser';
import { CONTENT_EVENT_TYPES, CONTENT_TOPIC_BASES, POST_STATUSES, USER_ROLES, USER_STATUSES } from '@platform/events';
import { typeDefs } from '@platform/graphql-schema';
import { asyncApi } from '../src/asyncapi';
import { snapshotSchemasOf } from '../src/asyncapi/snapshot-schemas';

/**
 * The AsyncAPI document is valid AsyncAPI 3.0 (the AsyncAPI Initiative's own parser and rule set, run
 * offline) and lists every Kafka topic and CloudEvents type that libs/events defines.
 */
type Channel = {
  address: string;
  messages: Record<string, { name: string; payload: { properties: { type: { const: string } } } }>;
};

describe('asyncApi()', () => {
  const document = asyncApi();

  it('is a valid AsyncAPI 3.0 document with no errors or warnings', async () => {
    const { document: parsed, diagnostics } = await new Parser().parse(JSON.stringify(document));
    // Severity 0 is an error, 1 a warning (Spectral's scale); hints and information are left to style.
    expect(
      diagnostics.filter((d) => d.severity <= 1).map((d) => `${d.code} ${d.path.join('.')}: ${d.message}`),
    ).toEqual([]);
    expect(parsed?.version()).toBe('3.0.0');
  });

  it('has a channel for every content topic, with exactly its event types', () => {
    const channels = Object.values(document.channels as Record<string, Channel>);
    for (const [entity, topic] of Object.entries(CONTENT_TOPIC_BASES)) {
      const channel = channels.find((c) => c.address === topic);
      expect(channel).toBeDefined();
      const types = Object.values(channel!.messages).map((m) => m.payload.properties.type.const);
      expect(types.sort()).toEqual(CONTENT_EVENT_TYPES.filter((t) => t.startsWith(`${entity}.`)).sort());
    }
  });

  it('describes both framings of the speech stream-input socket, the multi-stream-input messages and the graphql-transport-ws messages', () => {
    const channels = document.channels as Record<string, Channel>;
    expect(channels.streamInput!.address).toBe('/v1/text-to-speech/{voice_id}/stream-input');
    expect(Object.keys(channels.streamInput!.messages)).toEqual(
      expect.arrayContaining(['audioFrame', 'audioMessage', 'final', 'error']),
    );
    expect(channels.multiStreamInput!.address).toBe('/v1/text-to-speech/{voice_id}/multi-stream-input');
    expect(Object.keys(channels.multiStreamInput!.messages).sort()).toEqual(
      [
        'audio',
        'closeContext',
        'closeSocket',
        'contextFinal',
        'contextText',
        'error',
        'flushContext',
        'initialiseContext',
        'keepAlive',
      ].sort(),
    );
    expect(
      Object.values(channels.graphqlWs!.messages)
        .map((m) => m.name)
        .sort(),
    ).toEqual(['complete', 'connection_ack', 'connection_init', 'error', 'next', 'ping', 'pong', 'subscribe']);
  });

  it('gives the snapshots the statuses and roles libs/events defines', () => {
    type Schemas = Record<string, { properties: Record<string, { enum?: string[] }> }>;
    const schemas = (document.components as { schemas: Schemas }).schemas;
    expect(schemas.UserSnapshot!.properties.status!.enum).toEqual([...USER_STATUSES]);
    expect(schemas.UserSnapshot!.properties.role!.enum).toEqual([...USER_ROLES]);
    expect(schemas.PostSnapshot!.properties.status!.enum).toEqual([...POST_STATUSES]);
  });

  it('takes the snapshots from the SDL: a stored field added to a GraphQL type is in its snapshot schema', () => {
    const sdl = typeDefs.replace('type Post implements Node {', 'type Post implements Node {\n    readingMinutes: Int');
    const schemas = snapshotSchemasOf(sdl);
    expect(schemas.PostSnapshot.properties.readingMinutes).toEqual({ type: ['integer', 'null'] });
    expect(schemas.PostSnapshot.required).toContain('readingMinutes');
    // Relations stay out: a nested entity is a snapshot of its own, a connection a call to content.
    expect(Object.keys(schemas.PostSnapshot.properties)).not.toContain('comments');
    expect(schemas.PostSnapshot.properties.author).toEqual({ $ref: '#/components/schemas/AuthorSnapshot' });
  });
});
