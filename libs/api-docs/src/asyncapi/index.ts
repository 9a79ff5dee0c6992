import type { ApiDocument } from '../document';
import { contentEventChannels, contentEventOperations, snapshotSchemas } from './content-events';
import { graphqlWsChannel, graphqlWsOperations } from './graphql-ws';
import { servers } from './servers';
import { multiStreamInputChannel, multiStreamInputOperations } from './speech-multi-stream-input';
import { streamInputChannel, streamInputOperations } from './speech-stream-input';

/**
 * AsyncAPI 3.0 description of the platform's message interfaces, from the platform's side (`send`:
 * the platform sends, `receive`: clients send): the speech stream-input WebSocket, the graphql-ws
 * endpoint and the content events on Kafka.
 */
export function asyncApi(): ApiDocument {
  return {
    asyncapi: '3.0.0',
    info: {
      title: 'Platform messages',
      version: '1.0.0',
      description:
        'The WebSocket endpoints the gateway serves (speech stream-input in both framings, GraphQL over WebSocket) and the CloudEvents the content service publishes on Kafka.',
    },
    defaultContentType: 'application/json',
    servers,
    channels: {
      streamInput: streamInputChannel,
      multiStreamInput: multiStreamInputChannel,
      graphqlWs: graphqlWsChannel,
      ...contentEventChannels,
    },
    operations: {
      ...streamInputOperations,
      ...multiStreamInputOperations,
      ...graphqlWsOperations,
      ...contentEventOperations,
    },
    components: { schemas: snapshotSchemas },
  };
}
