import type { JsonValue } from '../document';

/**
 * GraphQL subscriptions (and queries and mutations) over the gateway's `/graphql` WebSocket with the
 * GraphQL over WebSocket protocol (`graphql-transport-ws`, as the graphql-ws library implements it).
 */
const typed = (type: string, properties: Record<string, JsonValue> = {}, required: string[] = []): JsonValue => ({
  type: 'object',
  required: ['type', ...required],
  properties: { type: { const: type }, ...properties },
});

const id: JsonValue = { type: 'string', description: 'The operation id the client chose in `subscribe`.' };

const graphqlError: JsonValue = {
  type: 'object',
  required: ['message'],
  properties: {
    message: { type: 'string' },
    locations: {
      type: 'array',
      items: { type: 'object', properties: { line: { type: 'integer' }, column: { type: 'integer' } } },
    },
    path: { type: 'array', items: { type: ['string', 'integer'] } },
    extensions: { type: 'object', properties: { code: { type: 'string' } } },
  },
};

const messages: Record<string, JsonValue> = {
  connectionInit: {
    name: 'connection_init',
    title: 'connection_init',
    summary: 'First client message, within 5 s: the credentials an HTTP request would carry, in the payload.',
    payload: typed('connection_init', {
      payload: {
        type: 'object',
        properties: {
          authorization: {
            type: 'string',
            description: '`Bearer <access token>` or `DPoP <access token>` (RFC 9449).',
          },
          dpop: { type: 'string', description: 'A DPoP proof for the WebSocket URL, with a DPoP-bound token.' },
          'xi-api-key': { type: 'string', description: 'A speech API key, instead of a token.' },
        },
      },
    }),
    examples: [{ name: 'bearer', payload: { type: 'connection_init', payload: { authorization: 'Bearer eyJ...' } } }],
  },
  connectionAck: {
    name: 'connection_ack',
    title: 'connection_ack',
    payload: typed('connection_ack', { payload: { type: 'object' } }),
  },
  ping: { name: 'ping', title: 'ping', payload: typed('ping', { payload: { type: 'object' } }) },
  pong: { name: 'pong', title: 'pong', payload: typed('pong', { payload: { type: 'object' } }) },
  subscribe: {
    name: 'subscribe',
    title: 'subscribe',
    payload: typed(
      'subscribe',
      {
        id,
        payload: {
          type: 'object',
          required: ['query'],
          properties: {
            query: { type: 'string', maxLength: 20000 },
            operationName: { type: ['string', 'null'] },
            variables: { type: ['object', 'null'] },
            extensions: { type: ['object', 'null'] },
          },
        },
      },
      ['id', 'payload'],
    ),
    examples: [
      {
        name: 'new posts',
        payload: {
          type: 'subscribe',
          id: '1',
          payload: { query: 'subscription { onPostCreated { id title author { name } } }' },
        },
      },
    ],
  },
  next: {
    name: 'next',
    title: 'next',
    summary: 'One execution result: an event of the subscription.',
    payload: typed(
      'next',
      {
        id,
        payload: {
          type: 'object',
          properties: { data: { type: ['object', 'null'] }, errors: { type: 'array', items: graphqlError } },
        },
      },
      ['id', 'payload'],
    ),
  },
  error: {
    name: 'error',
    title: 'error',
    summary: 'The operation was refused before it ran (validation, authorization, cost); it is over.',
    payload: typed('error', { id, payload: { type: 'array', items: graphqlError } }, ['id', 'payload']),
  },
  complete: {
    name: 'complete',
    title: 'complete',
    summary: 'Either side ends an operation.',
    payload: typed('complete', { id }, ['id']),
  },
};

export const graphqlWsChannel: JsonValue = {
  address: '/graphql',
  title: 'GraphQL over WebSocket',
  description:
    "Subprotocol `graphql-transport-ws`. The schema is the content API's (subscriptions: onPostCreated, onPostUpdated(id), onCommentAdded(postId), onUserCreated, onUserUpdated(id)). " +
    "Close codes are the protocol's (4400 bad message, 4403 forbidden, 4408 no connection_init in time, 4409 duplicate id, 4429 too many connection_init) " +
    "and the gateway's: 4401 credentials refused, expired or revoked while the socket is open; 4429 the client address's budget for refused credentials is spent; " +
    '1013 credentials could not be checked (try again later); 1008 the subscriber read too slowly and its buffer overflowed.',
  servers: [{ $ref: '#/servers/gateway' }],
  messages,
  bindings: {
    ws: {
      bindingVersion: '0.1.0',
      headers: { type: 'object', properties: { 'Sec-WebSocket-Protocol': { const: 'graphql-transport-ws' } } },
    },
  },
};

const ref = (name: string): JsonValue => ({ $ref: `#/channels/graphqlWs/messages/${name}` });
const channel: JsonValue = { $ref: '#/channels/graphqlWs' };

export const graphqlWsOperations: Record<string, JsonValue> = {
  receiveGraphqlWs: {
    action: 'receive',
    channel,
    title: 'The client sends',
    messages: [ref('connectionInit'), ref('subscribe'), ref('complete'), ref('ping'), ref('pong')],
  },
  sendGraphqlWs: {
    action: 'send',
    channel,
    title: 'The gateway sends',
    messages: [ref('connectionAck'), ref('next'), ref('error'), ref('complete'), ref('ping'), ref('pong')],
  },
};
