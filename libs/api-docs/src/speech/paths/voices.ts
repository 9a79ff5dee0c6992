import { sampleIdParam, voiceIdParam, voiceSearchQuery, voiceSettingsEditBody } from '@platform/contracts';
import { pathParameter, queryParameters, schemaOf } from '../../contract-schemas';
import { PREMADE_VOICES } from '@platform/speech-engine';
import { speechErrors } from '../errors';
import { binaryResponse, jsonContent, jsonResponse, okResponse, schemaRef, type JsonObject } from '../json-helpers';
import { anyCredential } from '../security';

const tags = ['Voices'];
const read = anyCredential('speech:read');
const write = anyCredential('speech:write');

const voiceId: JsonObject = {
  ...pathParameter('voice_id', voiceIdParam),
  example: PREMADE_VOICES[0]!.voice_id,
};

const multipart = (action: 'add' | 'edit'): JsonObject => ({
  required: action === 'add',
  description: 'multipart/form-data, read while streaming; nothing is stored when any check fails.',
  content: {
    'multipart/form-data': {
      schema: schemaRef(action === 'add' ? 'VoiceAddForm' : 'VoiceEditForm'),
      encoding: { files: { contentType: 'audio/wav, audio/mpeg, audio/ogg, audio/flac, application/octet-stream' } },
    },
  },
});

const notFound = { 404: ['voice_not_found'] } as const;

/** `GET /v2/voices`' parameters (docs/speech.md, "Search"). */
const searchParameters = queryParameters(voiceSearchQuery);

export const voicesPaths = (): JsonObject => ({
  '/v1/voices': {
    get: {
      operationId: 'listVoices',
      tags,
      summary: 'The premade voices and the account’s clones',
      description: 'Premade first, then the account’s clones, oldest first.',
      security: read,
      responses: {
        200: jsonResponse('The voices.', {
          type: 'object',
          required: ['voices'],
          properties: { voices: { type: 'array', items: schemaRef('Voice') } },
        }),
        ...speechErrors(),
      },
    },
  },
  '/v2/voices': {
    get: {
      operationId: 'searchVoices',
      tags,
      summary: 'Search voices (keyset paging)',
      description:
        'The hosted API’s voice search over the same voices as `GET /v1/voices`. A parameter given twice is 400, except the lists.',
      security: read,
      parameters: searchParameters,
      responses: { 200: jsonResponse('A page of voices.', schemaRef('VoiceSearchPage')), ...speechErrors() },
    },
  },
  '/v1/voices/settings/default': {
    get: {
      operationId: 'getDefaultVoiceSettings',
      tags,
      summary: 'The default voice settings',
      security: read,
      responses: {
        200: jsonResponse('The defaults.', schemaRef('StoredVoiceSettings'), {
          stability: 0.5,
          similarity_boost: 0.75,
          style: 0,
          use_speaker_boost: true,
        }),
        ...speechErrors(),
      },
    },
  },
  '/v1/voices/add': {
    post: {
      operationId: 'addVoice',
      tags,
      summary: 'Clone a voice from recordings',
      description:
        'Analyses the recordings and derives a voice. Counts against the plan’s `voice_limit` and monthly `max_voice_add_edits` (429 `quota_exceeded`, answered before the upload is read).',
      security: write,
      requestBody: multipart('add'),
      responses: {
        200: jsonResponse('The new voice.', schemaRef('AddVoiceResponse'), {
          voice_id: 'Xb7hH8MSUJpSbSDYk0k2',
          name: 'My voice',
          category: 'cloned',
          requires_verification: false,
        }),
        ...speechErrors({ 409: ['error'], 429: ['quota_exceeded'] }),
      },
    },
  },
  '/v1/voices/{voice_id}': {
    parameters: [voiceId],
    get: {
      operationId: 'getVoice',
      tags,
      summary: 'A voice with its preview and the account’s settings for it',
      security: read,
      responses: { 200: jsonResponse('The voice.', schemaRef('VoiceDetail')), ...speechErrors(notFound) },
    },
    delete: {
      operationId: 'deleteVoice',
      tags,
      summary: 'Delete a cloned voice',
      description:
        'The voice, its samples and saved settings are removed and its slot freed. Premade voices: 400 `bad_request`.',
      security: write,
      responses: { 200: okResponse('Deleted.'), ...speechErrors(notFound) },
    },
  },
  '/v1/voices/{voice_id}/edit': {
    parameters: [voiceId],
    post: {
      operationId: 'editVoice',
      tags,
      summary: 'Rename, relabel or change the samples of a cloned voice',
      description:
        'Every field optional. New `files` are added (at most 10 samples in all) or, with `replace_samples=true`, replace them; a sample change re-derives the voice and counts against `max_voice_add_edits`. Premade voices: 400.',
      security: write,
      requestBody: multipart('edit'),
      responses: {
        200: okResponse('Changed.'),
        ...speechErrors({ ...notFound, 409: ['error'], 429: ['quota_exceeded'] }),
      },
    },
  },
  '/v1/voices/{voice_id}/settings': {
    parameters: [voiceId],
    get: {
      operationId: 'getVoiceSettings',
      tags,
      summary: 'The account’s saved settings for a voice, or the defaults',
      security: read,
      responses: { 200: jsonResponse('The settings.', schemaRef('StoredVoiceSettings')), ...speechErrors(notFound) },
    },
  },
  '/v1/voices/{voice_id}/settings/edit': {
    parameters: [voiceId],
    post: {
      operationId: 'editVoiceSettings',
      tags,
      summary: 'Save settings for a voice (premade or cloned)',
      security: write,
      requestBody: {
        required: true,
        description: 'JSON, at most 8 KiB; any subset of the four fields.',
        content: jsonContent(schemaOf(voiceSettingsEditBody, 'input'), { stability: 0.3, similarity_boost: 0.9 }),
      },
      responses: { 200: okResponse('Saved.'), ...speechErrors({ ...notFound, 413: ['text_too_long'] }) },
    },
  },
  '/v1/voices/{voice_id}/samples/{sample_id}/audio': {
    parameters: [voiceId, pathParameter('sample_id', sampleIdParam)],
    get: {
      operationId: 'getVoiceSampleAudio',
      tags,
      summary: 'A stored sample’s bytes',
      security: read,
      responses: {
        200: binaryResponse('The sample as uploaded, with its media type.', [
          'audio/wav',
          'audio/mpeg',
          'audio/ogg',
          'audio/flac',
        ]),
        ...speechErrors(notFound),
      },
    },
  },
});
