import {
  closeContextMessage,
  closeSocketMessage,
  contextAudioMessage,
  contextFinalMessage,
  contextTextMessage,
  flushContextMessage,
  initialiseContextMessage,
  jsonSchemaOf,
  keepAliveMessage,
  MAX_CONTEXTS,
  multiStreamInputQuery,
  speechErrorBody,
} from '@platform/contracts';
import type { z } from 'zod/v4';
import type { JsonValue } from '../document';
import { MAX_TEXT_CHARS } from '../speech/schemas/synthesis';

/**
 * The speech API's multi-context WebSocket (docs/speech.md "WebSocket multi-stream-input"), as the
 * voice-agent frameworks use it. Its payloads are the contracts the gateway reads and writes them
 * with (libs/contracts/src/speech/multi-stream-input.ts).
 */

const schemaOf = (schema: z.ZodType, io: 'input' | 'output' = 'output') => jsonSchemaOf(schema, io) as JsonValue;

const jsonMessage = (name: string, title: string, schema: z.ZodType, example: JsonValue, summary?: string) => ({
  name,
  title,
  ...(summary ? { summary } : {}),
  contentType: 'application/json',
  payload: schemaOf(schema, name === 'audio' || name === 'contextFinal' || name === 'error' ? 'output' : 'input'),
  examples: [{ name, payload: example }],
});

export const multiStreamInputChannel: JsonValue = {
  address: '/v1/text-to-speech/{voice_id}/multi-stream-input',
  title: 'Speech multi-stream-input',
  summary: 'Several independent streams of text in and audio out (contexts) on one connection.',
  description:
    `Up to ${MAX_CONTEXTS} contexts open at once, each with its own voice settings; a context opens with its first message. ` +
    'Authenticate with the `xi-api-key` header (or `xi_api_key` in the query or the first message). ' +
    'Audio comes as JSON messages with base64 audio, alignment and `contextId`; one generation runs at a time per connection. ' +
    '`close_context` after an empty flush finishes the context; at any other moment it interrupts it (its audio stops at once, nothing more is charged). ' +
    'Either way `{"isFinal": true, "contextId": …}` ends it. Failures are a text frame in the speech error shape, then a close (1008 policy, 1011 internal, 1013 try again later).',
  servers: [{ $ref: '#/servers/gateway' }],
  parameters: {
    voice_id: { description: 'A voice id, or a model id (then the voice comes from `voice_id` in the query).' },
  },
  messages: {
    initialiseContext: jsonMessage('initialiseContext', "A context's first message", initialiseContextMessage, {
      text: ' ',
      context_id: 'turn-1',
      voice_settings: { stability: 0.5, similarity_boost: 0.8 },
    }),
    contextText: jsonMessage('contextText', 'Text for a context', contextTextMessage(MAX_TEXT_CHARS), {
      text: 'Hello there, how are you today? ',
      context_id: 'turn-1',
    }),
    flushContext: jsonMessage('flushContext', 'Synthesise what the context has buffered', flushContextMessage, {
      context_id: 'turn-1',
      flush: true,
    }),
    closeContext: jsonMessage('closeContext', 'End a context', closeContextMessage, {
      context_id: 'turn-1',
      close_context: true,
    }),
    keepAlive: jsonMessage('keepAlive', 'Keep-alive', keepAliveMessage, { text: '' }),
    closeSocket: jsonMessage('closeSocket', 'End the connection', closeSocketMessage, { close_socket: true }),
    audio: jsonMessage(
      'audio',
      "A piece of a context's audio",
      contextAudioMessage,
      {
        audio: 'UklGRiQAAABXQVZF...',
        isFinal: null,
        alignment: { chars: ['H', 'i'], charStartTimesMs: [0, 70], charDurationsMs: [70, 90] },
        normalizedAlignment: { chars: ['H', 'i'], charStartTimesMs: [0, 70], charDurationsMs: [70, 90] },
        contextId: 'turn-1',
      },
      "Alignment times count from the start of this message's audio.",
    ),
    contextFinal: jsonMessage('contextFinal', 'The context is over', contextFinalMessage, {
      isFinal: true,
      contextId: 'turn-1',
    }),
    error: jsonMessage(
      'error',
      'Error',
      speechErrorBody,
      { detail: { status: 'bad_request', message: `at most ${MAX_CONTEXTS} contexts may be open on one connection` } },
      'A failure in the speech API error shape; the close that follows carries its code.',
    ),
  },
  bindings: {
    ws: {
      bindingVersion: '0.1.0',
      headers: { type: 'object', properties: { 'xi-api-key': { type: 'string' } } },
      query: schemaOf(multiStreamInputQuery(MAX_TEXT_CHARS), 'input'),
    },
  },
};

const message = (name: string): JsonValue => ({ $ref: `#/channels/multiStreamInput/messages/${name}` });
const channel: JsonValue = { $ref: '#/channels/multiStreamInput' };

export const multiStreamInputOperations: Record<string, JsonValue> = {
  receiveMultiStreamInput: {
    action: 'receive',
    channel,
    title: 'The client sends text per context',
    description:
      'Per context: its first message (with voice settings), text, flushes, then an empty flush and close_context to finish (close_context alone interrupts). Keep-alives at any time; close_socket at the end.',
    messages: ['initialiseContext', 'contextText', 'flushContext', 'closeContext', 'keepAlive', 'closeSocket'].map(
      message,
    ),
  },
  sendMultiStreamInputAudio: {
    action: 'send',
    channel,
    title: 'Audio per context',
    description: "Each context's audio as JSON messages, then its final message.",
    messages: ['audio', 'contextFinal', 'error'].map(message),
  },
};
