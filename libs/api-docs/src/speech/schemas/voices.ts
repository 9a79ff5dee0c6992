import { VOICE_CATEGORIES } from '../code-lists';
import type { JsonObject } from '../json-helpers';

export const VOICE_ID_PATTERN = '^[A-Za-z0-9_-]{1,64}$';

const sampleSchema: JsonObject = {
  type: 'object',
  required: ['sample_id', 'file_name', 'mime_type', 'size_bytes', 'hash'],
  properties: {
    sample_id: { type: 'string' },
    file_name: { type: 'string' },
    mime_type: {
      type: 'string',
      enum: ['audio/wav', 'audio/mpeg', 'audio/ogg', 'audio/flac'],
      description: 'What the bytes are, not what the client claimed.',
    },
    size_bytes: { type: 'integer', minimum: 0 },
    hash: { type: 'string', pattern: '^[0-9a-f]{64}$', description: 'SHA-256 of the bytes, hex.' },
  },
};

/** A voice as `GET /v1/voices` and `GET /v2/voices` list it. */
export const voiceSchema = (): JsonObject => ({
  type: 'object',
  required: ['voice_id', 'name', 'samples', 'category', 'labels'],
  properties: {
    voice_id: { type: 'string' },
    name: { type: 'string' },
    samples: { type: 'array', items: sampleSchema, description: '`[]` for premade voices.' },
    category: { type: 'string', enum: [...VOICE_CATEGORIES] },
    labels: { type: 'object', additionalProperties: { type: 'string' } },
    description: { type: ['string', 'null'] },
  },
  example: {
    voice_id: '21m00Tcm4TlvDq8ikWAM',
    name: 'Rachel',
    samples: [],
    category: 'premade',
    labels: { gender: 'female', accent: 'american', language: 'en' },
    description: 'Calm young American woman.',
  },
});

/** `GET /v1/voices/{voice_id}`: the voice with its preview and the account's settings for it. */
export const voiceDetailSchema = (): JsonObject => ({
  allOf: [
    { $ref: '#/components/schemas/Voice' },
    {
      type: 'object',
      required: ['preview_url', 'settings'],
      properties: {
        preview_url: {
          type: ['string', 'null'],
          format: 'uri',
          description: 'A premade voice’s preview, or a clone’s first sample.',
        },
        settings: { $ref: '#/components/schemas/StoredVoiceSettings' },
      },
    },
  ],
});

export const addVoiceResponseSchema = (): JsonObject => ({
  type: 'object',
  required: ['voice_id', 'name', 'category', 'requires_verification'],
  properties: {
    voice_id: { type: 'string' },
    name: { type: 'string' },
    category: { const: 'cloned' },
    requires_verification: { const: false },
  },
});

const bool = (description: string): JsonObject => ({
  type: 'string',
  pattern: '^([Tt][Rr][Uu][Ee]|[Ff][Aa][Ll][Ss][Ee]|null|)$',
  description,
});

/** The multipart form of `POST /v1/voices/add` and `/v1/voices/{id}/edit`. */
export const voiceFormSchema = (action: 'add' | 'edit'): JsonObject => ({
  type: 'object',
  ...(action === 'add' ? { required: ['name', 'files'] } : {}),
  properties: {
    name: {
      type: 'string',
      minLength: 1,
      maxLength: 100,
      description: action === 'add' ? 'Required.' : 'Unchanged when left out.',
    },
    description: { type: 'string', maxLength: 1000, description: 'Empty: no description.' },
    labels: {
      type: 'string',
      description:
        'JSON text of an object of strings: at most 20 labels, keys 1–50, values at most 200 characters. `null` or empty: not given.',
    },
    files: {
      type: 'array',
      maxItems: 10,
      items: { type: 'string', contentMediaType: 'application/octet-stream' },
      description:
        'WAV, MP3, Ogg/Opus or FLAC recordings (recognised by their bytes), 1–120 s each, at most 10 MB each and 40 MB together, at least 0.5 s of speech in all. Field name `files` or `files[]`.',
    },
    remove_background_noise: bool('`true` or `false` (any case); accepted, no effect.'),
    ...(action === 'edit'
      ? { replace_samples: bool('`true`: the new files replace every sample instead of being added.') }
      : {}),
    moderate_metadata: bool('Accepted, no effect.'),
  },
});

/** `GET /v2/voices`. */
export const voiceSearchPageSchema = (): JsonObject => ({
  type: 'object',
  required: ['voices', 'has_more', 'total_count', 'next_page_token'],
  properties: {
    voices: { type: 'array', items: { $ref: '#/components/schemas/Voice' } },
    has_more: { type: 'boolean' },
    total_count: { type: 'integer', minimum: 0, description: 'Every voice that matches, on all pages.' },
    next_page_token: {
      type: ['string', 'null'],
      description: 'Opaque; pass it back with the same `sort` and `sort_direction`.',
    },
  },
});
