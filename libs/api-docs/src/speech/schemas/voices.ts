import type { JsonObject } from '../json-helpers';

export const VOICE_ID_PATTERN = '^[A-Za-z0-9_-]{1,64}$';

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
