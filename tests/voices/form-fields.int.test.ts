import { DEFAULT_PLANS, type SpeechStore } from '@platform/speech-store';
import { as, startApi, uploadForm } from './api-harness';
import { espeakWav, REFERENCE_TEXT } from './audio';
import { testStore } from './helpers';

/**
 * The optional multipart fields of `POST /v1/voices/add` and `/v1/voices/{id}/edit` as the official
 * SDKs send them: the Python SDK always sends `labels` (JSON `null` when not given) and sends
 * `None` values as empty fields; the JS SDK leaves out what is not given. Not given means the
 * default on add and "unchanged" on edit; anything else malformed is a 400 in the speech shape.
 */
let store: SpeechStore;
let closeStore: () => Promise<void>;
let api: { url: string; close: () => Promise<void> };
const speech = espeakWav(REFERENCE_TEXT, 'en+m3', 30);
const sample = [{ name: 'speech.wav', bytes: speech }];

beforeAll(async () => {
  ({ store, close: closeStore } = await testStore({
    plans: { ...DEFAULT_PLANS, free: { ...DEFAULT_PLANS.free, voice_limit: 10, max_voice_add_edits: 10 } },
  }));
  api = await startApi(store);
});
afterAll(async () => {
  await api.close();
  await closeStore();
});

async function post(path: string, fields: Record<string, string>, files: typeof sample = []) {
  const res = await fetch(`${api.url}${path}`, { method: 'POST', headers: as('sdk'), body: uploadForm(fields, files) });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

async function voice(voiceId: string) {
  return (await (await fetch(`${api.url}/voices/${voiceId}`, { headers: as('sdk') })).json()) as {
    name: string;
    description: string | null;
    labels: Record<string, string>;
  };
}

describe('voice form fields as the SDKs send them', () => {
  let voiceId: string;

  it('add: labels, description and remove_background_noise given as JSON null mean not given', async () => {
    const added = await post(
      '/voices/add',
      { name: 'Python style', labels: 'null', description: 'null', remove_background_noise: 'null' },
      sample,
    );
    expect(added.status).toBe(200);
    voiceId = added.body.voice_id as string;
    expect(await voice(voiceId)).toMatchObject({ name: 'Python style', description: null, labels: {} });
  });

  it('add: the same fields empty (Python None) mean not given; remove_background_noise true is accepted', async () => {
    const added = await post(
      '/voices/add',
      { name: 'Empty fields', labels: '', description: '', remove_background_noise: '' },
      sample,
    );
    expect(added.status).toBe(200);
    expect(await voice(added.body.voice_id as string)).toMatchObject({
      name: 'Empty fields',
      description: null,
      labels: {},
    });
    const noisy = await post('/voices/add', { name: 'Denoise asked', remove_background_noise: 'true' }, sample);
    expect(noisy.status).toBe(200);
  });

  it('edit: labels/description/booleans as null leave the voice unchanged; given values change it', async () => {
    const set = await post(`/voices/${voiceId}/edit`, {
      name: 'Python style',
      labels: '{"accent":"british"}',
      description: 'a description',
    });
    expect(set.status).toBe(200);
    const edited = await post(`/voices/${voiceId}/edit`, {
      name: 'Renamed',
      labels: 'null',
      description: 'null',
      remove_background_noise: 'null',
      moderate_metadata: 'False',
      replace_samples: 'null',
    });
    expect(edited).toEqual({ status: 200, body: { status: 'ok' } });
    expect(await voice(voiceId)).toMatchObject({
      name: 'Renamed',
      description: 'a description',
      labels: { accent: 'british' },
    });
    const cleared = await post(`/voices/${voiceId}/edit`, {
      name: 'Renamed',
      labels: '{}',
      remove_background_noise: 'False',
    });
    expect(cleared.status).toBe(200);
    expect((await voice(voiceId)).labels).toEqual({});
  });

  it.each([
    ['labels', '[1, 2]', /labels/],
    ['labels', '{"accent": 1}', /label accent/],
    ['labels', '{not json', /labels/],
    ['remove_background_noise', 'maybe', /remove_background_noise/],
    ['moderate_metadata', '1', /moderate_metadata/],
    ['replace_samples', 'yes', /replace_samples/],
  ])('edit: %s %s is a 400 bad_request naming the field, nothing changed', async (field, value, message) => {
    const before = await voice(voiceId);
    const res = await post(`/voices/${voiceId}/edit`, { name: 'Should not apply', [field]: value });
    expect(res).toEqual({
      status: 400,
      body: { detail: { status: 'bad_request', message: expect.stringMatching(message) } },
    });
    expect(await voice(voiceId)).toEqual(before);
  });

  it('add: a malformed optional field is a 400 before anything is stored', async () => {
    const count = await store.models.Voice.countDocuments({ accountId: 'sdk' });
    const res = await post('/voices/add', { name: 'Bad flag', remove_background_noise: 'sometimes' }, sample);
    expect(res).toEqual({
      status: 400,
      body: { detail: { status: 'bad_request', message: expect.stringMatching(/remove_background_noise/) } },
    });
    expect(await store.models.Voice.countDocuments({ accountId: 'sdk' })).toBe(count);
  });
});
