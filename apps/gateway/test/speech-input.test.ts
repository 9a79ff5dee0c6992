import type { Request } from 'express';
import { z } from 'zod/v4';
import { SpeechError } from '@platform/errors';
import { modelCatalogue } from '@platform/speech-engine';
import { parseKeyPage, parseNewApiKey } from '../src/speech/api-keys/api-key-input';
import { parsePageQuery } from '../src/speech/history/page-query';
import { readSpeechInput } from '../src/speech/speech-input';
import { checkFormat, checkVoiceId, parseTtsRequest } from '../src/speech/tts/parse-request';
import { encodePageToken, parseSearchQuery } from '../src/speech/voices/search-query';
import { readVoiceForm } from '../src/speech/voices/voice-fields';
import { parseSettingsBody } from '../src/speech/voices/settings-body';

/**
 * The speech routes read bodies and queries with their contracts (libs/contracts/src/speech) through
 * `readSpeechInput`. The parity cases are requests the hand-written parsers accepted or refused, with
 * the exact answer they gave: the contracts must give the same (status, message, value).
 */
const refusal = (read: () => unknown) => {
  try {
    read();
  } catch (err) {
    if (err instanceof SpeechError) return { http: err.httpStatus, status: err.status, message: err.message };
    throw err;
  }
  throw new Error('accepted');
};
const badRequest = (message: string) => ({ http: 400, status: 'bad_request', message });

describe('readSpeechInput', () => {
  const schema = z.strictObject(
    {
      n: z.number({ error: 'n must be a number' }),
      t: z.string().refine((s) => s.length < 3, { error: 't is too long', params: { status: 'text_too_long' } }),
      u: z.string().refine((s) => s === 'x', { error: 'u is not x', params: { status: 'no_such_status' } }),
    },
    { error: (issue) => (issue.code === 'unrecognized_keys' ? 'unknown field' : 'not an object') },
  );
  it('returns the parsed value', () => {
    expect(readSpeechInput(schema, { n: 1, t: 'ab', u: 'x' })).toEqual({ n: 1, t: 'ab', u: 'x' });
  });
  it("answers 400 bad_request with the contract's message of the first field that fails", () => {
    expect(refusal(() => readSpeechInput(schema, { n: 'one', t: 'abcd', u: 'x' }))).toEqual(
      badRequest('n must be a number'),
    );
  });
  it('puts a problem of the value as a whole before its fields', () => {
    expect(refusal(() => readSpeechInput(schema, { n: 'one', t: 'ab', u: 'x', z: 1 }))).toEqual(
      badRequest('unknown field'),
    );
    expect(refusal(() => readSpeechInput(schema, []))).toEqual(badRequest('not an object'));
  });
  it('takes the status a check names when it is a speech status, else bad_request', () => {
    expect(refusal(() => readSpeechInput(schema, { n: 1, t: 'abcd', u: 'x' }))).toEqual({
      http: 400,
      status: 'text_too_long',
      message: 't is too long',
    });
    expect(refusal(() => readSpeechInput(schema, { n: 1, t: 'ab', u: 'y' }))).toEqual(badRequest('u is not x'));
  });
  it('answers a check that names voice_not_found with 404, as a path naming no voice', () => {
    const id = z.string().refine((s) => s === 'v', { error: 'no such voice', params: { status: 'voice_not_found' } });
    expect(refusal(() => readSpeechInput(id, 'w'))).toEqual({
      http: 404,
      status: 'voice_not_found',
      message: 'no such voice',
    });
  });
});

describe('path parameters: the same answers as the hand-written checks', () => {
  it('a synthesis voice_id no voice can have is 404 voice_not_found, its first 64 characters quoted', () => {
    expect(checkVoiceId('21m00Tcm4TlvDq8ikWAM')).toBe('21m00Tcm4TlvDq8ikWAM');
    expect(checkVoiceId('a_b-C'.repeat(12))).toBe('a_b-C'.repeat(12));
    const notFound = (id: string) => ({
      http: 404,
      status: 'voice_not_found',
      message: `voice ${JSON.stringify(id)} does not exist`,
    });
    expect(refusal(() => checkVoiceId('no voice'))).toEqual(notFound('no voice'));
    expect(refusal(() => checkVoiceId(''))).toEqual(notFound(''));
    expect(refusal(() => checkVoiceId('x'.repeat(65)))).toEqual(notFound('x'.repeat(64)));
  });
});

describe('text to speech: the same answers as the hand-written parser', () => {
  const catalogue = modelCatalogue({ neural: false });
  const tts = (body: unknown, query: Record<string, unknown> = {}) => parseTtsRequest(body, query, 10, catalogue);

  it.each<[string, unknown, Record<string, unknown>, ReturnType<typeof badRequest>]>([
    ['a body that is not an object', [], {}, badRequest('request body must be a JSON object')],
    ['no text', {}, {}, badRequest('text is required and must be a string')],
    ['blank text', { text: '  ' }, {}, badRequest('text must not be empty')],
    ['a number as model_id', { text: 'hi', model_id: 5 }, {}, badRequest('model_id must be a string')],
    [
      'an unknown format',
      { text: 'hi', output_format: 'mp3_1' },
      {},
      badRequest('output_format "mp3_1" is not supported; see docs/speech.md'),
    ],
    ['a number as format', { text: 'hi', output_format: 5 }, {}, badRequest('output_format must be a string')],
    [
      'an unknown language',
      { text: 'hi', language_code: 'xx' },
      {},
      badRequest('language_code "xx" is not a language this model speaks; see GET /v1/models'),
    ],
    [
      'settings that are a list',
      { text: 'hi', voice_settings: [] },
      {},
      badRequest('voice_settings must be an object'),
    ],
    [
      'stability over 1',
      { text: 'hi', voice_settings: { stability: 2 } },
      {},
      badRequest('voice_settings.stability must be a number from 0.0 to 1.0'),
    ],
    [
      'speed out of range',
      { text: 'hi', voice_settings: { speed: 2 } },
      {},
      badRequest('voice_settings.speed must be a number from 0.7 to 1.2'),
    ],
    [
      'an unknown normalization',
      { text: 'hi', apply_text_normalization: 'x' },
      {},
      badRequest('apply_text_normalization must be "auto", "on" or "off"'),
    ],
    [
      'latency 5 in the query',
      { text: 'hi' },
      { optimize_streaming_latency: '5' },
      badRequest('optimize_streaming_latency must be a whole number from 0 to 4'),
    ],
    [
      'a fractional seed',
      { text: 'hi', seed: 1.5 },
      {},
      badRequest('seed must be a whole number from 0 to 4294967295'),
    ],
    ['previous_text a number', { text: 'hi', previous_text: 5 }, {}, badRequest('previous_text must be a string')],
    [
      'next_text over the limit',
      { text: 'hi', next_text: 'x'.repeat(11) },
      {},
      badRequest('next_text is longer than 10 characters'),
    ],
  ])('%s', (_name, body, query, expected) => {
    expect(refusal(() => tts(body, query))).toEqual(expected);
  });

  it('text over the limit (code points) is text_too_long; an unknown model model_not_found, in field order', () => {
    expect(refusal(() => tts({ text: 'x'.repeat(11), model_id: 'nope' }))).toEqual({
      http: 400,
      status: 'text_too_long',
      message: 'text is 11 characters; the maximum is 10',
    });
    expect(refusal(() => tts({ text: 'hi', model_id: 'nope', output_format: 'mp3_1' }))).toEqual({
      http: 400,
      status: 'model_not_found',
      message: 'model "nope" does not exist; see GET /v1/models',
    });
    expect(tts({ text: '😀'.repeat(10) }).text).toBe('😀'.repeat(10));
  });

  it('reads the query string where the body says nothing, and the body first', () => {
    const request = tts(
      { text: 'hi', seed: null, model_id: null, language_code: 'de' },
      { output_format: 'pcm_16000', seed: '42', optimize_streaming_latency: '3', next_text: 'after' },
    );
    expect(request).toMatchObject({
      text: 'hi',
      model: { model_id: 'espeak_ng_v1' },
      modelFollowsLanguage: false,
      format: { id: 'pcm_16000' },
      language: { id: 'de' },
      options: { latency: 3, seed: 42, textNormalization: 'auto', previousText: null, nextText: 'after' },
    });
    expect(tts({ text: 'hi', output_format: 'ulaw_8000' }, { output_format: 'pcm_16000' }).format.id).toBe('ulaw_8000');
    // A repeated query parameter is not one format: the default applies.
    expect(tts({ text: 'hi' }, { output_format: ['pcm_16000', 'ulaw_8000'] }).format.id).toBe('mp3_44100_128');
    expect(tts({ text: 'hi', voice_settings: { stability: 0.1 } }).rawSettings).toEqual({ stability: 0.1 });
  });

  it('the WebSocket’s output_format: the default when not given, the message when unknown', () => {
    expect(checkFormat(undefined).id).toBe('mp3_44100_128');
    expect(refusal(() => checkFormat('zz'))).toEqual(
      badRequest('output_format "zz" is not supported; see docs/speech.md'),
    );
  });
});

describe('API keys: the same answers as the hand-written parser', () => {
  const scopesMessage = 'scopes must be a non-empty list of distinct values from: speech:read, speech:write.';
  it.each<[string, unknown, string]>([
    ['not an object', 'x', 'The body must be a JSON object {name, scopes?}.'],
    ['an unknown field before a bad name', { name: 5, foo: 1 }, 'Unknown field "foo"; a key has name and scopes.'],
    ['a blank name', { name: '  ' }, 'name must be a string of 1 to 100 characters.'],
    ['a name too long', { name: 'n'.repeat(101) }, 'name must be a string of 1 to 100 characters.'],
    ['no scope', { name: 'k', scopes: [] }, scopesMessage],
    ['a scope twice', { name: 'k', scopes: ['speech:read', 'speech:read'] }, scopesMessage],
    ['an unknown scope', { name: 'k', scopes: ['admin'] }, scopesMessage],
    ['null scopes', { name: 'k', scopes: null }, scopesMessage],
  ])('refuses %s', (_name, body, message) => {
    expect(refusal(() => parseNewApiKey(body))).toEqual(badRequest(message));
  });
  it('trims the name and keeps the scopes given', () => {
    expect(parseNewApiKey({ name: ' k ' })).toEqual({ name: 'k' });
    expect(parseNewApiKey({ name: 'k', scopes: ['speech:read'] })).toEqual({ name: 'k', scopes: ['speech:read'] });
  });
  const page = (query: Record<string, unknown>) => parseKeyPage({ query } as unknown as Request);
  it('reads a page of keys', () => {
    expect(page({})).toEqual({ pageSize: 20 });
    expect(page({ page_size: '100', start_after_key_id: 'key_0123456789abcdef' })).toEqual({
      pageSize: 100,
      startAfter: 'key_0123456789abcdef',
    });
    expect(refusal(() => page({ page_size: '0' }))).toEqual(badRequest('page_size must be an integer from 1 to 100'));
    expect(refusal(() => page({ page_size: ['1', '2'] }))).toEqual(badRequest('page_size must be given once'));
    expect(refusal(() => page({ start_after_key_id: 'key_x' }))).toEqual(
      badRequest('start_after_key_id is not a key id'),
    );
  });
});

describe('history list: the same answers as the hand-written parser', () => {
  const history = (query: Record<string, unknown>) => parsePageQuery({ query } as unknown as Request);
  it('reads the parameters', () => {
    expect(history({})).toEqual({ pageSize: 100 });
    expect(
      history({
        page_size: '5',
        voice_id: 'v1',
        model_id: 'm1',
        start_after_history_item_id: 'h1',
        sort_direction: 'asc',
        search: 'hello',
        source: 'STS',
        date_after_unix: '10',
        date_before_unix: '20',
      }),
    ).toEqual({
      pageSize: 5,
      voiceId: 'v1',
      modelId: 'm1',
      startAfterId: 'h1',
      direction: 'asc',
      search: 'hello',
      noneMatch: true,
      dateAfterMs: 10_000,
      dateBeforeMs: 20_000,
    });
    expect(history({ source: 'TTS', pageSize: '1000' })).toEqual({ pageSize: 1000 });
  });
  it.each<[Record<string, unknown>, string]>([
    [{ pageSize: '1001' }, 'pageSize must be an integer from 1 to 1000'],
    [{ page_size: 'abc' }, 'pageSize must be an integer from 1 to 1000'],
    [{ pageSize: ['1', '2'] }, 'pageSize must be given once'],
    [{ voice_id: '' }, 'voice_id is not a voice id'],
    [{ start_after_history_item_id: 'x'.repeat(65) }, 'start_after_history_item_id is not a history item id'],
    [{ model_id: ['a', 'b'] }, 'model_id must be given once'],
    [{ sort_direction: 'up' }, 'sort_direction must be asc or desc'],
    [{ sort_direction: ['asc', 'desc'] }, 'sort_direction must be given once'],
    [{ source: ['TTS', 'STS'] }, 'source must be given once'],
    [{ search: 's'.repeat(201) }, 'search must be at most 200 characters'],
    [{ source: 'x' }, 'source must be one of TTS, STS, Flows'],
    [{ date_before_unix: '-1' }, 'date_before_unix must be a Unix time in seconds'],
  ])('refuses %j', (query, message) => {
    expect(refusal(() => history(query))).toEqual(badRequest(message));
  });
});

describe('voice settings edit: the same answers as the hand-written parser', () => {
  it.each<[unknown, string]>([
    [[], 'The body must be a voice settings JSON object.'],
    [{ stability: 2 }, 'stability must be a number from 0.0 to 1.0'],
    [{ similarity_boost: '1' }, 'similarity_boost must be a number from 0.0 to 1.0'],
    [{ use_speaker_boost: 'yes' }, 'use_speaker_boost must be a boolean'],
  ])('refuses %j', (body, message) => {
    expect(refusal(() => parseSettingsBody(body))).toEqual(badRequest(message));
  });
  it('keeps the fields given, not null ones nor speed', () => {
    expect(parseSettingsBody({ stability: null, style: 0.2, use_speaker_boost: false, speed: 5 })).toEqual({
      style: 0.2,
      use_speaker_boost: false,
    });
  });
});

describe('voice search: the same answers as the hand-written parser', () => {
  const search = (query: Record<string, unknown>) => parseSearchQuery({ query } as unknown as Request, 'acct_1');
  it('reads the parameters', () => {
    expect(search({})).toEqual({
      accountId: 'acct_1',
      pageSize: 10,
      categories: ['premade', 'cloned'],
      sort: 'created_at_unix',
      direction: 'desc',
    });
    expect(
      search({
        page_size: '5',
        sort: 'name',
        search: 'an',
        voice_type: 'personal',
        gender: 'female',
        language: ['en', 'de'],
        use_cases: 'narration',
        voice_ids: 'v1',
        include_total_count: 'TRUE',
      }),
    ).toEqual({
      accountId: 'acct_1',
      pageSize: 5,
      categories: ['cloned'],
      sort: 'name',
      direction: 'asc',
      search: 'an',
      labels: { gender: ['female'], language: ['en', 'de'], use_case: ['narration'] },
      voiceIds: ['v1'],
    });
    expect(search({ fine_tuning_state: 'draft' }).categories).toEqual([]);
    expect(search({ high_quality: 'True' }).categories).toEqual([]);
    expect(search({ category: 'premade', high_quality: 'false' }).categories).toEqual(['premade']);
  });
  it('continues from a page token of the same order', () => {
    const token = encodePageToken({ sort: 'name', direction: 'asc', cursor: { key: 'Bella', voiceId: 'v9' } });
    expect(search({ sort: 'name', next_page_token: token }).after).toEqual({ key: 'Bella', voiceId: 'v9' });
    expect(refusal(() => search({ next_page_token: token }))).toEqual(
      badRequest('next_page_token belongs to another sort or sort_direction'),
    );
    expect(refusal(() => search({ next_page_token: 'x' }))).toEqual(
      badRequest('next_page_token is not a token this endpoint issued'),
    );
  });
  it.each<[Record<string, unknown>, string]>([
    [{ page_size: '101' }, 'page_size must be an integer from 1 to 100'],
    [{ page_size: ['1', '2'] }, 'page_size must be given once'],
    [{ sort: 'age' }, 'sort must be one of created_at_unix, name'],
    [{ sort_direction: ['asc', 'desc'] }, 'sort_direction must be given once'],
    [{ search: 's'.repeat(201) }, 'search must be at most 200 characters'],
    [
      { voice_type: 'x' },
      'voice_type must be one of personal, community, default, workspace, non-default, non-community, saved',
    ],
    [{ category: 'x' }, 'category must be one of premade, cloned, generated, professional, high_quality'],
    [
      { fine_tuning_state: 'x' },
      'fine_tuning_state must be one of draft, not_verified, not_started, queued, fine_tuning, fine_tuned, failed, delayed',
    ],
    [{ high_quality: 'yes' }, 'high_quality must be true or false'],
    [{ min_notice_period_days: '100001' }, 'min_notice_period_days must be an integer from 0 to 100000'],
    [{ include_total_count: '1' }, 'include_total_count must be true or false'],
    [{ gender: ['a', 'b'] }, 'gender must be given once'],
    [{ language: ['en', ''] }, 'language: at most 100 values of 1 to 200 characters'],
    [
      { voice_ids: Array.from({ length: 101 }, (_, i) => `v${i}`) },
      'voice_ids: at most 100 values of 1 to 200 characters',
    ],
  ])('refuses %j', (query, message) => {
    expect(refusal(() => search(query))).toEqual(badRequest(message));
  });
});

describe('voice add/edit forms: the same answers as the hand-written field checks', () => {
  const form = (action: 'add' | 'edit', fields: Record<string, string>) =>
    readVoiceForm(new Map(Object.entries(fields)), action);

  it('reads the fields given and leaves out the ones not given (JSON null, empty labels)', () => {
    expect(form('add', { name: ' Mine ', description: ' ', labels: '', moderate_metadata: 'null' })).toEqual({
      name: 'Mine',
      description: null,
      replaceSamples: false,
    });
    expect(form('add', { name: 'null', labels: '{"accent":"british"}', replace_samples: ' TRUE ' })).toEqual({
      name: 'null',
      labels: { accent: 'british' },
      replaceSamples: true,
    });
    const edit = form('edit', { name: 'null', description: 'null', labels: 'null', replace_samples: 'True' });
    expect(edit).toEqual({ replaceSamples: true });
    expect(Object.keys(edit)).toEqual(['replaceSamples']);
    expect(form('edit', { description: 'd', remove_background_noise: 'FALSE', other: 'x' })).toEqual({
      description: 'd',
      replaceSamples: false,
    });
  });
  it('keeps a label named __proto__ as a label, in a prototype-free object', () => {
    const { labels } = form('add', { name: 'n', labels: '{"__proto__":"x","a":"b"}' });
    expect(Object.getPrototypeOf(labels)).toBeNull();
    expect(Object.entries(labels!)).toEqual([
      ['__proto__', 'x'],
      ['a', 'b'],
    ]);
  });
  it('counts name and description in code points', () => {
    expect(form('add', { name: '😀'.repeat(100), description: '😀'.repeat(1000) }).name).toBe('😀'.repeat(100));
  });
  it.each<['add' | 'edit', Record<string, string>, string]>([
    ['add', {}, 'The field name is required.'],
    ['add', { name: ' ' }, 'The field name must not be empty.'],
    ['edit', { name: '' }, 'The field name must not be empty.'],
    ['add', { name: 'x'.repeat(101) }, 'The field name is longer than 100 characters.'],
    ['edit', { description: 'x'.repeat(1001) }, 'The field description is longer than 1000 characters.'],
    ['edit', { labels: '{' }, 'The field labels must be JSON text of an object of strings.'],
    ['edit', { labels: '["a"]' }, 'The field labels must be a JSON object of strings.'],
    ['edit', { labels: '"a"' }, 'The field labels must be a JSON object of strings.'],
    [
      'edit',
      { labels: JSON.stringify(Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`k${i}`, 'v']))) },
      'At most 20 labels.',
    ],
    ['edit', { labels: `{"${'k'.repeat(60)}":1}` }, `The label ${'k'.repeat(50)} must be a string.`],
    ['edit', { labels: '{"":"v"}' }, 'Label keys are 1 to 50 characters.'],
    ['edit', { labels: `{"${'k'.repeat(51)}":"v"}` }, 'Label keys are 1 to 50 characters.'],
    ['edit', { labels: `{"k":"${'v'.repeat(201)}"}` }, 'Label values are at most 200 characters.'],
    ['edit', { remove_background_noise: 'yes' }, 'The field remove_background_noise must be true or false.'],
    ['edit', { moderate_metadata: '1' }, 'The field moderate_metadata must be true or false.'],
    ['add', { name: 'n', replace_samples: 'maybe' }, 'The field replace_samples must be true or false.'],
    // The first field in the form's order answers.
    ['add', { name: '', labels: '{', moderate_metadata: 'x' }, 'The field name must not be empty.'],
    [
      'edit',
      { moderate_metadata: 'x', labels: '{', description: 'x'.repeat(1001) },
      'The field description is longer than 1000 characters.',
    ],
    [
      'edit',
      { replace_samples: 'x', remove_background_noise: 'y' },
      'The field remove_background_noise must be true or false.',
    ],
  ])('%s %j: 400 %s', (action, fields, message) => {
    expect(refusal(() => form(action, fields))).toEqual(badRequest(message));
  });
});
