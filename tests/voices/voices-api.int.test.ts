import { createHash } from 'node:crypto';
import { DEFAULT_PLANS, recordHistory, type SpeechStore } from '@platform/speech-store';
import { NEUTRAL_PARAMS } from '@platform/voice-analysis';
import { as, startApi, uploadForm } from './api-harness';
import { convert, espeakWav, REFERENCE_TEXT, toneWav } from './audio';
import { testStore } from './helpers';

const PREMADE = [
  {
    voiceId: 'premadeRachel',
    name: 'Rachel',
    description: 'calm',
    labels: { gender: 'female', accent: 'american' },
    engineParams: { ...NEUTRAL_PARAMS, variant: 'f3' },
    previewUrl: 'http://platform.test/v1/voices/premadeRachel/preview',
  },
];

let store: SpeechStore;
let closeStore: () => Promise<void>;
let api: { url: string; close: () => Promise<void> };
const speech = espeakWav(REFERENCE_TEXT, 'en+m3', 30);

beforeAll(async () => {
  ({ store, close: closeStore } = await testStore({
    premade: PREMADE,
    plans: { ...DEFAULT_PLANS, free: { ...DEFAULT_PLANS.free, voice_limit: 2, max_voice_add_edits: 4 } },
  }));
  api = await startApi(store);
});
afterAll(async () => {
  await api.close();
  await closeStore();
});

async function add(
  account: string,
  fields: Record<string, string>,
  files: { name: string; bytes: Buffer; type?: string }[],
  headers: Record<string, string> = {},
) {
  const res = await fetch(`${api.url}/voices/add`, {
    method: 'POST',
    headers: as(account, headers),
    body: uploadForm(fields, files),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

/** The account's voices, and sample files no voice refers to (left behind by a failed request). */
async function storedCounts(account: string) {
  const voices = await store.models.Voice.countDocuments({ accountId: account });
  const all = await store.models.Voice.find({}, { samples: 1 }).lean();
  const referenced = new Set(all.flatMap((v) => v.samples.map((s) => String(s.file_id))));
  const files = await store.connection
    .db!.collection('voice_samples.files')
    .find({}, { projection: { _id: 1 } })
    .toArray();
  return { voices, files: files.filter((f) => !referenced.has(String(f._id))).length };
}

describe('voices API', () => {
  it('adds, lists, gets, edits and deletes a cloned voice; premade voices are read-only', async () => {
    const added = await add(
      'alice',
      { name: 'Alice clone', description: 'from a WAV', labels: '{"accent":"british","gender":"male"}' },
      [{ name: 'speech.wav', bytes: speech }],
    );
    expect(added.status).toBe(200);
    expect(added.body).toEqual({
      voice_id: expect.stringMatching(/^[A-Za-z0-9]{20}$/),
      name: 'Alice clone',
      category: 'cloned',
      requires_verification: false,
    });
    const voiceId = added.body.voice_id as string;

    const list = (await (await fetch(`${api.url}/voices`, { headers: as('alice') })).json()) as {
      voices: Record<string, unknown>[];
    };
    expect(list.voices.map((v) => v.voice_id)).toEqual(['premadeRachel', voiceId]);
    expect(list.voices[0]).toEqual({
      voice_id: 'premadeRachel',
      name: 'Rachel',
      samples: [],
      category: 'premade',
      labels: { gender: 'female', accent: 'american' },
      description: 'calm',
    });
    expect(list.voices[1]).not.toHaveProperty('settings');

    const one = (await (await fetch(`${api.url}/voices/${voiceId}`, { headers: as('alice') })).json()) as Record<
      string,
      unknown
    > & { samples: Record<string, unknown>[] };
    expect(one).toMatchObject({
      voice_id: voiceId,
      name: 'Alice clone',
      category: 'cloned',
      labels: { accent: 'british', gender: 'male' },
      description: 'from a WAV',
    });
    expect(one.settings).toEqual({ stability: 0.5, similarity_boost: 0.75, style: 0, use_speaker_boost: true });
    expect(one.samples).toEqual([
      {
        sample_id: expect.any(String),
        file_name: 'speech.wav',
        mime_type: 'audio/wav',
        size_bytes: speech.length,
        hash: createHash('sha256').update(speech).digest('hex'),
      },
    ]);
    expect(one.preview_url).toBe(
      `http://platform.test/v1/voices/${voiceId}/samples/${one.samples[0]!.sample_id as string}/audio`,
    );
    const sample = await fetch(`${api.url}/voices/${voiceId}/samples/${one.samples[0]!.sample_id as string}/audio`, {
      headers: as('alice'),
    });
    expect(sample.headers.get('content-type')).toBe('audio/wav');
    expect(Buffer.from(await sample.arrayBuffer()).equals(speech)).toBe(true);

    // Edit: rename and add an MP3 sample; parameters are re-derived from both.
    const before = await store.models.Voice.findById(voiceId).lean();
    const mp3 = convert(espeakWav(REFERENCE_TEXT, 'en+m3', 30), 'mp3');
    const edit = await fetch(`${api.url}/voices/${voiceId}/edit`, {
      method: 'POST',
      headers: as('alice'),
      body: uploadForm({ name: 'Alice v2' }, [{ name: 'more.mp3', bytes: mp3, type: 'audio/mpeg' }]),
    });
    expect(edit.status).toBe(200);
    expect(await edit.json()).toEqual({ status: 'ok' });
    const after = (await (await fetch(`${api.url}/voices/${voiceId}`, { headers: as('alice') })).json()) as {
      name: string;
      samples: { file_name: string; mime_type: string }[];
    };
    expect(after.name).toBe('Alice v2');
    expect(after.samples.map((s) => [s.file_name, s.mime_type])).toEqual([
      ['speech.wav', 'audio/wav'],
      ['more.mp3', 'audio/mpeg'],
    ]);
    const reDerived = await store.models.Voice.findById(voiceId).lean();
    expect(reDerived!.analysis.durationSec).toBeGreaterThan(before!.analysis.durationSec!);

    // Replace the samples with one FLAC file.
    const flac = convert(speech, 'flac');
    const replaced = await fetch(`${api.url}/voices/${voiceId}/edit`, {
      method: 'POST',
      headers: as('alice'),
      body: uploadForm({ replace_samples: 'true' }, [{ name: 'only.flac', bytes: flac, type: 'audio/flac' }]),
    });
    expect(replaced.status).toBe(200);
    const replacedVoice = (await (await fetch(`${api.url}/voices/${voiceId}`, { headers: as('alice') })).json()) as {
      samples: { file_name: string }[];
    };
    expect(replacedVoice.samples.map((s) => s.file_name)).toEqual(['only.flac']);
    expect(await storedCounts('alice')).toEqual({ voices: 1, files: 0 });

    // Settings.
    expect(await (await fetch(`${api.url}/voices/settings/default`, { headers: as('alice') })).json()).toEqual({
      stability: 0.5,
      similarity_boost: 0.75,
      style: 0,
      use_speaker_boost: true,
    });
    const set = await fetch(`${api.url}/voices/${voiceId}/settings/edit`, {
      method: 'POST',
      headers: { ...as('alice'), 'content-type': 'application/json' },
      body: JSON.stringify({ stability: 0.3, similarity_boost: 0.9 }),
    });
    expect(set.status).toBe(200);
    expect(await (await fetch(`${api.url}/voices/${voiceId}/settings`, { headers: as('alice') })).json()).toEqual({
      stability: 0.3,
      similarity_boost: 0.9,
      style: 0,
      use_speaker_boost: true,
    });
    const badSettings = await fetch(`${api.url}/voices/${voiceId}/settings/edit`, {
      method: 'POST',
      headers: as('alice'),
      body: JSON.stringify({ stability: 3 }),
    });
    expect(badSettings.status).toBe(400);
    const notJson = await fetch(`${api.url}/voices/${voiceId}/settings/edit`, {
      method: 'POST',
      headers: as('alice'),
      body: '{nope',
    });
    expect(notJson.status).toBe(400);
    expect(await notJson.json()).toEqual({ detail: { status: 'bad_request', message: expect.any(String) } });

    // Premade voices cannot be edited or deleted.
    for (const [method, path] of [
      ['POST', '/voices/premadeRachel/edit'],
      ['DELETE', '/voices/premadeRachel'],
    ] as const) {
      const res = await fetch(`${api.url}${path}`, {
        method,
        headers: as('alice'),
        ...(method === 'POST' ? { body: uploadForm({ name: 'x' }, []) } : {}),
      });
      expect(res.status).toBe(400);
      expect(((await res.json()) as { detail: { status: string } }).detail.status).toBe('bad_request');
    }

    const del = await fetch(`${api.url}/voices/${voiceId}`, { method: 'DELETE', headers: as('alice') });
    expect(del.status).toBe(200);
    expect(await del.json()).toEqual({ status: 'ok' });
    const gone = await fetch(`${api.url}/voices/${voiceId}`, { headers: as('alice') });
    expect(gone.status).toBe(404);
    expect(await gone.json()).toEqual({ detail: { status: 'voice_not_found', message: expect.any(String) } });
    expect(await storedCounts('alice')).toEqual({ voices: 0, files: 0 });
  }, 120_000);

  it('accepts Ogg/Opus uploads', async () => {
    const ogg = convert(speech, 'ogg');
    const added = await add('oggy', { name: 'Opus' }, [{ name: 'a.ogg', bytes: ogg, type: 'audio/ogg' }]);
    expect(added.status).toBe(200);
    const voice = (await (
      await fetch(`${api.url}/voices/${added.body.voice_id as string}`, { headers: as('oggy') })
    ).json()) as { samples: { mime_type: string }[] };
    expect(voice.samples[0]!.mime_type).toBe('audio/ogg');
  }, 30_000);

  it("never shows one account's voices to another", async () => {
    const added = await add('owner', { name: 'Private' }, [{ name: 's.wav', bytes: speech }]);
    const id = added.body.voice_id as string;
    const list = (await (await fetch(`${api.url}/voices`, { headers: as('intruder') })).json()) as {
      voices: { voice_id: string }[];
    };
    expect(list.voices.map((v) => v.voice_id)).toEqual(['premadeRachel']);
    const attempts: [string, string, RequestInit?][] = [
      ['GET', `/voices/${id}`],
      ['GET', `/voices/${id}/settings`],
      [
        'POST',
        `/voices/${id}/settings/edit`,
        { body: JSON.stringify({ stability: 1 }), headers: { 'content-type': 'application/json' } },
      ],
      ['POST', `/voices/${id}/edit`, { body: uploadForm({ name: 'stolen' }, []) }],
      ['DELETE', `/voices/${id}`],
    ];
    for (const [method, path, init] of attempts) {
      const res = await fetch(`${api.url}${path}`, {
        ...init,
        method,
        headers: { ...as('intruder'), ...((init?.headers as Record<string, string>) ?? {}) },
      });
      expect([method, path, res.status]).toEqual([method, path, 404]);
      expect(((await res.json()) as { detail: { status: string } }).detail.status).toBe('voice_not_found');
    }
    const still = (await (await fetch(`${api.url}/voices/${id}`, { headers: as('owner') })).json()) as { name: string };
    expect(still.name).toBe('Private');
  }, 30_000);

  describe('bad uploads are refused with 400 and store nothing', () => {
    const cases: [
      string,
      () => { fields: Record<string, string>; files: { name: string; bytes: Buffer }[] },
      RegExp,
    ][] = [
      [
        'not audio',
        () => ({
          fields: { name: 'x' },
          files: [{ name: 'notes.txt', bytes: Buffer.from('hello, I am definitely not audio at all') }],
        }),
        /not a WAV, MP3, Ogg\/Opus or FLAC/,
      ],
      [
        'corrupt',
        () => ({
          fields: { name: 'x' },
          files: [{ name: 'broken.flac', bytes: Buffer.concat([Buffer.from('fLaC'), Buffer.alloc(5000, 0x5a)]) }],
        }),
        /corrupt/,
      ],
      [
        'too short',
        () => ({
          fields: { name: 'x' },
          files: [{ name: 'blip.wav', bytes: espeakWav('hi', 'en', 50).subarray(0, 44 + 22050) }],
        }),
        /shorter than 1 second/,
      ],
      [
        'too long',
        () => ({ fields: { name: 'x' }, files: [{ name: 'long.wav', bytes: toneWav(125) }] }),
        /longer than 120 seconds/,
      ],
      [
        'too large',
        () => ({
          fields: { name: 'x' },
          files: [{ name: 'big.wav', bytes: Buffer.concat([toneWav(1), Buffer.alloc(11 * 1024 * 1024)]) }],
        }),
        /larger than 10 MB/,
      ],
      [
        'too many files',
        () => ({
          fields: { name: 'x' },
          files: Array.from({ length: 11 }, (_, i) => ({ name: `f${i}.wav`, bytes: speech })),
        }),
        /At most 10 files/,
      ],
      ['no files', () => ({ fields: { name: 'x' }, files: [] }), /At least one audio file/],
      [
        'missing name',
        () => ({ fields: { description: 'no name' }, files: [{ name: 's.wav', bytes: speech }] }),
        /name is required/,
      ],
      [
        'empty name',
        () => ({ fields: { name: '   ' }, files: [{ name: 's.wav', bytes: speech }] }),
        /name must not be empty/,
      ],
      [
        'labels not JSON',
        () => ({ fields: { name: 'x', labels: '{accent: british' }, files: [{ name: 's.wav', bytes: speech }] }),
        /labels must be JSON/,
      ],
      [
        'labels an array',
        () => ({ fields: { name: 'x', labels: '["a"]' }, files: [{ name: 's.wav', bytes: speech }] }),
        /labels must be a JSON object/,
      ],
      [
        'labels with a number',
        () => ({ fields: { name: 'x', labels: '{"age": 30}' }, files: [{ name: 's.wav', bytes: speech }] }),
        /must be a string/,
      ],
      [
        'no speech in it',
        () => ({ fields: { name: 'x' }, files: [{ name: 'silence.wav', bytes: toneWav(3) }] }),
        /Too little speech/,
      ],
    ];
    it.each(cases)(
      '%s',
      async (_label, make, message) => {
        const { fields, files } = make();
        const res = await add('badupload', fields, files);
        expect(res.status).toBe(400);
        expect(res.body).toEqual({ detail: { status: 'bad_request', message: expect.stringMatching(message) } });
        expect(await storedCounts('badupload')).toEqual({ voices: 0, files: 0 });
      },
      30_000,
    );

    describe('files together over the 40 MB limit, each under the 10 MB one', () => {
      // Valid WAV headers followed by padding: only the sizes are wrong.
      const files = (count: number, bytes: number) =>
        Array.from({ length: count }, (_, i) => ({
          name: `part${i}.wav`,
          bytes: Buffer.concat([toneWav(1), Buffer.alloc(bytes)]),
        }));
      const userCounter = async (account: string) =>
        (
          (await (await fetch(`${api.url}/user`, { headers: as(account) })).json()) as {
            subscription: { voice_add_edit_counter: number };
          }
        ).subscription.voice_add_edit_counter;
      const refused = async (account: string, res: Response, message: RegExp) => {
        expect(res.status).toBe(400);
        expect(await res.json()).toEqual({
          detail: { status: 'bad_request', message: expect.stringMatching(message) },
        });
        expect(await storedCounts(account)).toEqual({ voices: 0, files: 0 });
        expect(await userCounter(account)).toBe(0);
      };

      it('5 × 9 MB with a Content-Length: refused before the body is read', async () => {
        const res = await fetch(`${api.url}/voices/add`, {
          method: 'POST',
          headers: as('bigupload1'),
          body: uploadForm({ name: 'x' }, files(5, 9_000_000)),
        });
        await refused('bigupload1', res, /^The upload is larger than 40 MB/);
      }, 30_000);

      it('5 × 8.5 MB (42.7 MB, within the Content-Length allowance for multipart overhead): refused while streaming', async () => {
        const res = await fetch(`${api.url}/voices/add`, {
          method: 'POST',
          headers: as('bigupload2'),
          body: uploadForm({ name: 'x' }, files(5, 8_500_000)),
        });
        await refused('bigupload2', res, /^The files together are larger than 40 MB/);
      }, 30_000);

      it('5 × 9 MB sent chunked, with no Content-Length: refused while streaming', async () => {
        const form = new Response(uploadForm({ name: 'x' }, files(5, 9_000_000)));
        const res = await fetch(`${api.url}/voices/add`, {
          method: 'POST',
          headers: as('bigupload3', { 'content-type': form.headers.get('content-type')! }),
          body: form.body,
          duplex: 'half',
        } as RequestInit);
        await refused('bigupload3', res, /^The files together are larger than 40 MB/);
      }, 30_000);

      it('4 × 9 MB (36 MB) passes the size checks (and is refused later, its padding being no speech)', async () => {
        const res = await fetch(`${api.url}/voices/add`, {
          method: 'POST',
          headers: as('bigupload4'),
          body: uploadForm({ name: 'x' }, files(4, 9_000_000)),
        });
        expect(res.status).toBe(400);
        const body = (await res.json()) as { detail: { message: string } };
        expect(body.detail.message).toMatch(/^Too little speech/);
        expect(await storedCounts('bigupload4')).toEqual({ voices: 0, files: 0 });
      }, 30_000);
    });

    it('a body that is not multipart', async () => {
      const res = await fetch(`${api.url}/voices/add`, {
        method: 'POST',
        headers: { ...as('badupload'), 'content-type': 'application/json' },
        body: '{"name":"x"}',
      });
      expect(res.status).toBe(400);
      const garbled = await fetch(`${api.url}/voices/add`, {
        method: 'POST',
        headers: { ...as('badupload'), 'content-type': 'multipart/form-data; boundary=zzz' },
        body: '--zzz\r\nContent-Disposition: form-data; name="files"; filename="a.wav"\r\n\r\nRIFF',
      });
      expect(garbled.status).toBe(400);
      expect(await storedCounts('badupload')).toEqual({ voices: 0, files: 0 });
    });
  });

  it('enforces the voice limit and max_voice_add_edits with quota_exceeded', async () => {
    // Free plan in this test: voice_limit 2, max_voice_add_edits 4.
    const a = await add('limited', { name: 'one' }, [{ name: 's.wav', bytes: speech }]);
    const b = await add('limited', { name: 'two' }, [{ name: 's.wav', bytes: speech }]);
    expect([a.status, b.status]).toEqual([200, 200]);
    const c = await add('limited', { name: 'three' }, [{ name: 's.wav', bytes: speech }]);
    expect(c.status).toBe(429);
    expect(c.body).toEqual({ detail: { status: 'quota_exceeded', message: expect.stringMatching(/allows 2 voices/) } });
    // Deleting frees a slot; the add/edit allowance (4 a month) still counts the adds.
    await fetch(`${api.url}/voices/${a.body.voice_id as string}`, { method: 'DELETE', headers: as('limited') });
    expect((await add('limited', { name: 'three' }, [{ name: 's.wav', bytes: speech }])).status).toBe(200);
    const editSamples = await fetch(`${api.url}/voices/${b.body.voice_id as string}/edit`, {
      method: 'POST',
      headers: as('limited'),
      body: uploadForm({}, [{ name: 'x.wav', bytes: speech }]),
    });
    expect(editSamples.status).toBe(200);
    const over = await fetch(`${api.url}/voices/${b.body.voice_id as string}/edit`, {
      method: 'POST',
      headers: as('limited'),
      body: uploadForm({}, [{ name: 'y.wav', bytes: speech }]),
    });
    expect(over.status).toBe(429);
    expect(((await over.json()) as { detail: { message: string } }).detail.message).toMatch(
      /4 voice additions or edits per month/,
    );
    // Renaming is not a sample change and stays allowed.
    const rename = await fetch(`${api.url}/voices/${b.body.voice_id as string}/edit`, {
      method: 'POST',
      headers: as('limited'),
      body: uploadForm({ name: 'renamed' }, []),
    });
    expect(rename.status).toBe(200);
    const user = (await (await fetch(`${api.url}/user`, { headers: as('limited') })).json()) as {
      subscription: Record<string, unknown>;
    };
    expect(user.subscription).toMatchObject({ voice_limit: 2, max_voice_add_edits: 4, voice_add_edit_counter: 4 });
  }, 120_000);

  it('answers 401 without an account and 403 without the scope', async () => {
    const anon = await fetch(`${api.url}/voices`);
    expect(anon.status).toBe(401);
    expect(await anon.json()).toEqual({ detail: { status: 'unauthorized', message: expect.any(String) } });
    const readOnly = await add('reader', { name: 'x' }, [{ name: 's.wav', bytes: speech }], {
      'x-test-scope': 'speech:read',
    });
    expect(readOnly.status).toBe(403);
  });
});

describe('history API', () => {
  const base = {
    voiceId: 'premadeRachel',
    voiceName: 'Rachel',
    characterCount: 11,
    contentType: 'audio/mpeg',
    settings: { stability: 0.5, similarity_boost: 0.75 },
  };

  it('lists with paging and a voice filter, gets, serves the exact audio and deletes; isolated per account', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const doc = await recordHistory(store, {
        ...base,
        accountId: 'hist',
        jobId: `hist-${i}`,
        text: `item ${i}`,
        state: 'complete',
        audio: Buffer.from(`mp3-bytes-${i}`),
        createdAtMs: 1_700_000_000_000 + i * 1000,
        ...(i === 4 ? { voiceId: 'other', contentType: 'audio/wav' } : {}),
      });
      ids.push(doc._id);
    }
    await recordHistory(store, {
      ...base,
      accountId: 'hist',
      jobId: 'hist-failed',
      text: 'failed one',
      state: 'failed',
      createdAtMs: 1_700_000_010_000,
    });

    const page1 = (await (await fetch(`${api.url}/history?pageSize=2`, { headers: as('hist') })).json()) as {
      history: Record<string, unknown>[];
      has_more: boolean;
      last_history_item_id: string;
    };
    expect(page1.history.map((h) => h.text)).toEqual(['failed one', 'item 4']);
    expect(page1.has_more).toBe(true);
    expect(page1.history[1]).toEqual({
      history_item_id: ids[4],
      voice_id: 'other',
      voice_name: 'Rachel',
      model_id: null,
      text: 'item 4',
      date_unix: 1_700_000_004,
      character_count_from_request: 11,
      character_count_change_from: 0,
      character_count_change_to: 11,
      content_type: 'audio/wav',
      state: 'complete',
      settings: { stability: 0.5, similarity_boost: 0.75 },
    });
    expect(page1.last_history_item_id).toBe(ids[4]);
    const page2 = (await (
      await fetch(`${api.url}/history?page_size=2&start_after_history_item_id=${page1.last_history_item_id}`, {
        headers: as('hist'),
      })
    ).json()) as typeof page1;
    expect(page2.history.map((h) => h.text)).toEqual(['item 3', 'item 2']);
    const page3 = (await (
      await fetch(`${api.url}/history?pageSize=2&start_after_history_item_id=${page2.last_history_item_id}`, {
        headers: as('hist'),
      })
    ).json()) as typeof page1;
    expect(page3.history.map((h) => h.text)).toEqual(['item 1', 'item 0']);
    expect(page3.has_more).toBe(false);
    const byVoice = (await (
      await fetch(`${api.url}/history?voice_id=other`, { headers: as('hist') })
    ).json()) as typeof page1;
    expect(byVoice.history.map((h) => h.text)).toEqual(['item 4']);

    for (const bad of [
      'pageSize=0',
      'pageSize=1001',
      'pageSize=abc',
      'pageSize=1&pageSize=2',
      'start_after_history_item_id=nope',
    ]) {
      const res = await fetch(`${api.url}/history?${bad}`, { headers: as('hist') });
      expect([bad, res.status]).toEqual([bad, 400]);
      expect(((await res.json()) as { detail: { status: string } }).detail.status).toBe('bad_request');
    }

    const item = await fetch(`${api.url}/history/${ids[2]}`, { headers: as('hist') });
    expect(((await item.json()) as { text: string }).text).toBe('item 2');
    const audio = await fetch(`${api.url}/history/${ids[2]}/audio`, { headers: as('hist') });
    expect(audio.status).toBe(200);
    expect(audio.headers.get('content-type')).toBe('audio/mpeg');
    expect(Buffer.from(await audio.arrayBuffer()).toString()).toBe('mp3-bytes-2');
    const wavAudio = await fetch(`${api.url}/history/${ids[4]}/audio`, { headers: as('hist') });
    expect(wavAudio.headers.get('content-type')).toBe('audio/wav');
    const failedId = page1.history[0]!.history_item_id as string;
    expect((await fetch(`${api.url}/history/${failedId}/audio`, { headers: as('hist') })).status).toBe(404);

    // Another account sees nothing and cannot touch anything.
    expect(
      ((await (await fetch(`${api.url}/history`, { headers: as('stranger') })).json()) as typeof page1).history,
    ).toEqual([]);
    for (const [method, path] of [
      ['GET', `/history/${ids[2]}`],
      ['GET', `/history/${ids[2]}/audio`],
      ['DELETE', `/history/${ids[2]}`],
    ]) {
      const res = await fetch(`${api.url}${path}`, { method, headers: as('stranger') });
      expect([path, res.status]).toEqual([path, 404]);
      expect(await res.json()).toEqual({ detail: { status: 'error', message: expect.any(String) } });
    }
    expect(
      (await fetch(`${api.url}/history?start_after_history_item_id=${ids[2]}`, { headers: as('stranger') })).status,
    ).toBe(400);

    const del = await fetch(`${api.url}/history/${ids[2]}`, { method: 'DELETE', headers: as('hist') });
    expect(del.status).toBe(200);
    expect(await del.json()).toEqual({ status: 'ok' });
    expect((await fetch(`${api.url}/history/${ids[2]}`, { headers: as('hist') })).status).toBe(404);
    expect((await fetch(`${api.url}/history/${ids[2]}`, { method: 'DELETE', headers: as('hist') })).status).toBe(404);
    expect(await store.connection.db!.collection('history_audio.files').countDocuments({ filename: ids[2] })).toBe(0);
  });
});

describe('user API', () => {
  it('answers the speech API fields for /user and /user/subscription, plus those the official SDK requires', async () => {
    const user = (await (
      await fetch(`${api.url}/user`, { headers: as('newbie', { 'x-test-plan': 'creator' }) })
    ).json()) as Record<string, unknown>;
    const sdkSubscription = {
      voice_slots_used: 0,
      professional_voice_slots_used: 0,
      professional_voice_slots_used_in_workspace: 0,
      professional_voice_limit: 0,
      max_credit_limit_extension: 0,
      can_extend_voice_limit: false,
      can_use_instant_voice_cloning: true,
      can_use_professional_voice_cloning: false,
      current_overage: { amount: '0', currency: 'usd' },
      status: 'active',
      character_refresh_period: 'monthly_period',
    };
    const seedUserSubscription = {
      tier: 'creator',
      character_count: 0,
      character_limit: DEFAULT_PLANS.creator.character_limit,
      can_extend_character_limit: true,
      allowed_to_extend_character_limit: true,
      voice_limit: DEFAULT_PLANS.creator.voice_limit,
      max_voice_add_edits: DEFAULT_PLANS.creator.max_voice_add_edits,
      voice_add_edit_counter: 0,
    };
    expect(user).toEqual({
      subscription: { ...seedUserSubscription, ...sdkSubscription },
      is_new_user: true,
      user_id: 'newbie',
      workspace_id: 'newbie',
      created_at: expect.any(Number),
      seat_type: 'workspace_admin',
      can_use_delayed_payment_methods: false,
      is_onboarding_completed: true,
      is_onboarding_checklist_completed: true,
    });
    const sub = (await (
      await fetch(`${api.url}/user/subscription`, { headers: as('newbie', { 'x-test-plan': 'creator' }) })
    ).json()) as Record<string, unknown>;
    const now = new Date();
    expect(sub).toEqual({
      ...seedUserSubscription,
      ...sdkSubscription,
      next_character_count_reset_unix: Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1) / 1000,
      open_invoices: [],
      has_open_invoices: false,
    });
    expect((await fetch(`${api.url}/user`)).status).toBe(401);
  });
});
