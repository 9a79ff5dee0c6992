import { z } from 'zod/v4';
import { VOICE_CATEGORIES } from './code-lists';
import { storedVoiceSettings } from './voice-settings';

const voiceSample = z.looseObject({
  sample_id: z.string(),
  file_name: z.string(),
  mime_type: z
    .enum(['audio/wav', 'audio/mpeg', 'audio/ogg', 'audio/flac'])
    .meta({ description: 'What the bytes are, not what the client claimed.' }),
  size_bytes: z.int().min(0),
  hash: z
    .string()
    .regex(/^[0-9a-f]{64}$/)
    .meta({ description: 'SHA-256 of the bytes, hex.' }),
});

/** A voice as `GET /v1/voices` and `GET /v2/voices` list it. */
export const voice = z
  .looseObject({
    voice_id: z.string(),
    name: z.string(),
    samples: z.array(voiceSample).meta({ description: '`[]` for premade voices.' }),
    category: z.enum(VOICE_CATEGORIES),
    labels: z.record(z.string(), z.string()),
    description: z.string().nullable().optional(),
  })
  .meta({
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
export const voiceDetail = voice.extend({
  preview_url: z.url().nullable().meta({ description: 'A premade voice’s preview, or a clone’s first sample.' }),
  settings: storedVoiceSettings,
});

/** `POST /v1/voices/add`. */
export const addVoiceResponse = z.looseObject({
  voice_id: z.string(),
  name: z.string(),
  category: z.literal('cloned'),
  requires_verification: z.literal(false),
});

/** `GET /v2/voices`. */
export const voiceSearchPage = z.looseObject({
  voices: z.array(voice),
  has_more: z.boolean(),
  total_count: z.int().min(0).meta({ description: 'Every voice that matches, on all pages.' }),
  next_page_token: z
    .string()
    .nullable()
    .meta({ description: 'Opaque; pass it back with the same `sort` and `sort_direction`.' }),
});
