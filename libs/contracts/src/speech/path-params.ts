import { z } from 'zod/v4';
import { API_KEY_ID } from './api-keys';

/** A voice id the synthesis routes can resolve; the premade voices' and clones' ids all match. */
const VOICE_ID = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * `{voice_id}` of the text-to-speech routes: an id no voice can have is 404 `voice_not_found` before
 * the body is read (the status named by the check, for `readSpeechInput`).
 */
export const synthesisVoiceIdParam = z
  .string()
  .refine((id) => VOICE_ID.test(id), {
    error: (issue) => `voice ${JSON.stringify(String(issue.input).slice(0, 64))} does not exist`,
    params: { status: 'voice_not_found' },
  })
  .meta({
    pattern: VOICE_ID.source,
    description:
      'A premade voice or one of the account’s clones (`GET /v1/voices`). Another account’s voice is 404 `voice_not_found`.',
  });

/** An id in a voices route's path, cut to its first 200 characters: a longer one names nothing, as any unknown id. */
const idInPath = (description?: string) =>
  z
    .string()
    .overwrite((id) => id.slice(0, 200))
    .meta({ maxLength: 200, ...(description !== undefined ? { description } : {}) });

/** `{voice_id}` of the voices routes (an unknown one is 404 `voice_not_found`). */
export const voiceIdParam = idInPath(
  'A premade voice or one of the account’s clones; another account’s voice is 404 `voice_not_found`.',
);

/** `{sample_id}` of a voice's sample. */
export const sampleIdParam = idInPath();

/** `{file}` of `GET /v1/voice-previews/{file}`: a premade voice's id and `.mp3`; the capture is the voice id. */
export const PREVIEW_FILE = /^([A-Za-z0-9_-]{1,64})\.mp3$/;
export const previewFileParam = z
  .string()
  .regex(PREVIEW_FILE)
  .meta({ description: '`<voice_id>.mp3` of a premade voice.' });

/** `{history_item_id}`: any text; another account's item is 404 like an unknown one. */
export const historyItemIdParam = z
  .string()
  .meta({ description: 'Another account’s item is 404 like an unknown one.' });

/** `{key_id}` of `DELETE /v1/api-keys/{key_id}`: anything but a key id names no key (404, as another account's). */
export const apiKeyIdParam = z.string().meta({ pattern: API_KEY_ID.source });
