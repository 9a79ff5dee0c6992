import {
  audioMessage,
  endOfInputMessage,
  finalMessage,
  initialiseMessage,
  jsonSchemaOf,
  speechErrorBody,
  streamInputQuery,
  textMessage,
} from '@platform/contracts';
import type { z } from 'zod/v4';
import type { JsonValue } from '../document';
import { MAX_TEXT_CHARS } from '../speech/schemas/synthesis';

/**
 * The speech API's text-to-speech WebSocket (docs/speech.md "WebSocket stream-input"): the client sends
 * text as it has it, the gateway answers with audio in one of two framings chosen at the upgrade. The
 * messages' payloads are the contracts the gateway reads and writes them with (libs/contracts/src/speech/stream-input.ts).
 */

/** A message's payload from its contract (what the client sends: `input`; what the gateway sends: `output`). */
const schemaOf = (schema: z.ZodType, io: 'input' | 'output' = 'output') => jsonSchemaOf(schema, io) as JsonValue;

export const streamInputChannel: JsonValue = {
  address: '/v1/text-to-speech/{voice_id}/stream-input',
  title: 'Speech stream-input',
  summary: 'Text in as it is written, audio out as it is synthesised.',
  description:
    "The path segment is a voice id (the hosted API's form) or a model id (then the voice comes from the `voice_id` query parameter or the first message). " +
    "Authenticate with the `xi-api-key` header, the `xi_api_key` query parameter or the first message's `xi_api_key`. " +
    'Audio comes as binary frames (the default for other clients, or `shape=document`) or as JSON messages with base64 audio and alignment ' +
    "(an official SDK's `X-Fern-SDK-Name`, `shape=hosted` or `message_format=json`). Failures are a text frame in the speech error shape, then a close (1008 policy, 1011 internal, 1013 try again later).",
  servers: [{ $ref: '#/servers/gateway' }],
  parameters: { voice_id: { description: 'A voice id, or a model id (see the channel description).' } },
  messages: {
    initialise: {
      name: 'initialise',
      title: 'First message: initialise and authenticate',
      contentType: 'application/json',
      payload: schemaOf(initialiseMessage, 'input'),
      examples: [
        {
          name: 'start',
          payload: { text: ' ', voice_settings: { stability: 0.5, similarity_boost: 0.8 }, xi_api_key: 'sk_...' },
        },
      ],
    },
    text: {
      name: 'text',
      title: 'Text to synthesise',
      contentType: 'application/json',
      payload: schemaOf(textMessage(MAX_TEXT_CHARS), 'input'),
      examples: [{ name: 'sentence', payload: { text: 'Hello there, how are you today? ', flush: false } }],
    },
    endOfInput: {
      name: 'endOfInput',
      title: 'End of input',
      contentType: 'application/json',
      payload: schemaOf(endOfInputMessage, 'input'),
      examples: [{ name: 'end', payload: { text: '' } }],
    },
    audioFrame: {
      name: 'audioFrame',
      title: 'Audio (binary framing)',
      summary:
        'A binary frame of audio in the chosen output_format; concatenated, one valid file per synthesised segment.',
      contentType: 'application/octet-stream',
      payload: { type: 'string', format: 'binary' },
    },
    audioMessage: {
      name: 'audioMessage',
      title: "Audio (JSON framing, the hosted API's shape)",
      contentType: 'application/json',
      payload: schemaOf(audioMessage),
      examples: [
        {
          name: 'piece',
          payload: {
            audio: 'SUQzBAAAAAAA...',
            isFinal: null,
            alignment: { chars: ['H', 'i'], charStartTimesMs: [0, 70], charDurationsMs: [70, 90] },
            normalizedAlignment: { chars: ['H', 'i'], charStartTimesMs: [0, 70], charDurationsMs: [70, 90] },
          },
        },
      ],
    },
    final: {
      name: 'final',
      title: 'End of the stream',
      summary: 'After the end of input and the last audio; a close 1000 follows.',
      contentType: 'application/json',
      payload: schemaOf(finalMessage),
      examples: [{ name: 'final', payload: { isFinal: true } }],
    },
    error: {
      name: 'error',
      title: 'Error',
      summary: 'A failure in the speech API error shape; the close that follows carries its code.',
      contentType: 'application/json',
      payload: schemaOf(speechErrorBody),
      examples: [
        { name: 'unknown voice', payload: { detail: { status: 'voice_not_found', message: 'voice not found' } } },
      ],
    },
  },
  bindings: {
    ws: {
      bindingVersion: '0.1.0',
      headers: {
        type: 'object',
        properties: {
          'xi-api-key': { type: 'string' },
          'X-Fern-SDK-Name': { type: 'string', description: 'Sent by the official SDKs: selects the JSON framing.' },
        },
      },
      query: schemaOf(streamInputQuery(MAX_TEXT_CHARS), 'input'),
    },
  },
};

const message = (name: string): JsonValue => ({ $ref: `#/channels/streamInput/messages/${name}` });
const channel: JsonValue = { $ref: '#/channels/streamInput' };

export const streamInputOperations: Record<string, JsonValue> = {
  receiveStreamInputText: {
    action: 'receive',
    channel,
    title: 'The client sends text',
    description: 'First message, then text (buffered; each complete sentence is synthesised), then the end of input.',
    messages: [message('initialise'), message('text'), message('endOfInput')],
  },
  sendStreamInputBinaryAudio: {
    action: 'send',
    channel,
    title: 'Audio as binary frames',
    description:
      'The default for clients that are not the official SDKs (or `shape=document`): binary audio frames, then `{"isFinal": true}` and close 1000.',
    messages: [message('audioFrame'), message('final'), message('error')],
  },
  sendStreamInputJsonAudio: {
    action: 'send',
    channel,
    title: "Audio as JSON messages (the hosted API's shape)",
    description:
      'For the official SDKs, `shape=hosted` or `message_format=json`: one JSON message per piece of text synthesised, then `{"isFinal": true}` and close 1000.',
    messages: [message('audioMessage'), message('final'), message('error')],
  },
};
