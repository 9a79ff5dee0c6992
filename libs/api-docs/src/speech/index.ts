import type { ApiDocument } from '../document';
import { accountPaths } from './paths/account';
import { historyPaths } from './paths/history';
import { openAiPaths } from './paths/openai';
import { pronunciationPaths } from './paths/pronunciation';
import { synthesisPaths } from './paths/synthesis';
import { voicesPaths } from './paths/voices';
import { contractSchemas } from './schemas/components';
import { securitySchemes } from './security';

const DESCRIPTION = `The speech synthesis API served by the gateway: text to speech (whole file, streamed, with character timestamps), models, voices and voice cloning, history, the user's subscription and API keys. Compatible with the hosted ElevenLabs API and its official SDKs (docs/speech.md lists where they differ).

Every error (but those of OpenAI's speech API, below) is \`{"detail": {"status": "...", "message": "..."}}\` with \`Content-Type: application/json\`.

Authentication: an API key (\`xi-api-key\` header or \`Authorization: Bearer sk_…\`) or an OAuth 2.0 access token of the platform's authorization server (\`Authorization: Bearer\`, or \`DPoP\` with a proof, RFC 9449). Reads need \`speech:read\`, everything else \`speech:write\`.

OpenAI's \`POST /v1/audio/speech\` answers its errors in OpenAI's shape, \`{"error": {"message", "type", "code", "param"}}\`.

The WebSocket \`/v1/text-to-speech/{voice_id}/stream-input\` is described by the AsyncAPI document (\`/asyncapi.json\`).`;

/** OpenAPI 3.1 description of the speech API as the gateway serves it (docs/speech.md). */
export function speechOpenApi(): ApiDocument {
  return {
    openapi: '3.1.0',
    info: { title: 'Speech API', version: '1.0.0', description: DESCRIPTION },
    servers: [{ url: '/', description: 'The gateway that serves this document.' }],
    security: [{ ApiKey: [] }, { Bearer: [] }, { DPoP: [] }],
    tags: [
      { name: 'Text to speech', description: 'Synthesis over HTTP, and the premade voices’ previews.' },
      {
        name: 'OpenAI speech API',
        description:
          'OpenAI’s `POST /v1/audio/speech`, for apps and SDKs written for OpenAI; errors in OpenAI’s shape.',
      },
      { name: 'Models' },
      { name: 'Voices', description: 'Premade voices, cloning from recordings, settings.' },
      {
        name: 'History',
        description: 'Every generation of `POST /v1/text-to-speech/{voice_id}` and its variants, with its audio.',
      },
      {
        name: 'Pronunciation dictionaries',
        description:
          'The account’s alias and phoneme rules, versioned; applied by `pronunciation_dictionary_locators`.',
      },
      { name: 'User' },
      { name: 'API keys', description: 'The account’s own API keys, managed with an OAuth access token.' },
    ],
    paths: {
      ...synthesisPaths(),
      ...openAiPaths(),
      ...voicesPaths(),
      ...historyPaths(),
      ...pronunciationPaths(),
      ...accountPaths(),
    },
    components: {
      securitySchemes,
      schemas: contractSchemas(),
    },
  };
}
