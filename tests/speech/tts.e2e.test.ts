import { ElevenLabsClient } from '@elevenlabs/elevenlabs-js';
import { findPremadeVoice, parseVoiceSettings, renderParams, synthesizePcm } from '@platform/speech-engine';
import { createSpeechStore, getHistoryAudio } from '@platform/speech-store';
import { connectMongo } from '@platform/stores';
import { stackEnv } from '@platform/testing';
import {
  activeRms,
  mp3DurationSeconds,
  median,
  opusDurationSeconds,
  parseMp3,
  parseOgg,
  parseOpusHead,
  pcmSamples,
  pitchSpreadSemitones,
  pitchTrack,
  readAll,
  rms,
} from './support/audio';
import { startSpeechStack, type SpeechStack } from './support/speech-stack';

const RACHEL = '21m00Tcm4TlvDq8ikWAM'; // premade, female
const ADAM = 'pNInz6obpgDQGcFmaJgB'; // premade, male
const SHORT = 'Hello there.';
const LONG =
  'Hello there. This is a longer text, read in several sentences. Each one is synthesised in order, and the audio joins without gaps.';

let stack: SpeechStack;
let client: ElevenLabsClient;

beforeAll(async () => {
  stack = await startSpeechStack({ workers: 1, concurrency: 2, accountSpeech: true });
  client = new ElevenLabsClient({ apiKey: stack.apiKey, baseUrl: stack.url });
}, 90_000);

afterAll(async () => {
  await stack?.stop();
}, 30_000);

async function post(path: string, body: unknown, headers: Record<string, string> = {}) {
  return fetch(`${stack.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'xi-api-key': stack.apiKey, ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

async function pcm(voiceId: string, text: string, extra: Record<string, unknown> = {}, rate = 16000) {
  const res = await post(`/v1/text-to-speech/${voiceId}?output_format=pcm_${rate}`, { text, ...extra });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toBe(`audio/pcm;rate=${rate}`);
  return pcmSamples(Buffer.from(await res.arrayBuffer()));
}

describe('text to speech through the official SDK', () => {
  it('convert with defaults gives MP3 44.1 kHz 128 kbit/s, frame by frame', async () => {
    const { bytes } = await readAll(await client.textToSpeech.convert(RACHEL, { text: LONG }));
    const frames = parseMp3(bytes);
    expect(frames.length).toBeGreaterThan(50);
    // LAME's first frame (Info tag) may differ in bit rate; every audio frame has the declared one.
    for (const f of frames.slice(1)) expect(f).toMatchObject({ version: 1, sampleRate: 44100, bitrateKbps: 128 });
    expect(mp3DurationSeconds(frames)).toBeGreaterThan(4);
  });

  it('convert with an explicit hosted model id and mp3_22050_32', async () => {
    const { bytes } = await readAll(
      await client.textToSpeech.convert(ADAM, {
        text: SHORT,
        modelId: 'eleven_multilingual_v2',
        outputFormat: 'mp3_22050_32',
      }),
    );
    const frames = parseMp3(bytes);
    for (const f of frames.slice(1)) expect(f).toMatchObject({ version: 2, sampleRate: 22050, bitrateKbps: 32 });
  });

  it('stream with defaults delivers chunked MP3 that parses', async () => {
    const { bytes, chunks } = await readAll(await client.textToSpeech.stream(RACHEL, { text: LONG }));
    expect(chunks).toBeGreaterThan(1);
    const frames = parseMp3(bytes);
    expect(mp3DurationSeconds(frames)).toBeGreaterThan(4);
  });

  it('stream with our model id and pcm_16000 delivers non-silent PCM', async () => {
    const { bytes } = await readAll(
      await client.textToSpeech.stream(ADAM, { text: LONG, modelId: 'espeak_ng_v1', outputFormat: 'pcm_16000' }),
    );
    expect(bytes.length % 2).toBe(0);
    expect(rms(pcmSamples(bytes))).toBeGreaterThan(500);
  });
});

describe('the audio is real', () => {
  it('PCM length matches its duration at every rate; duration grows with the text', async () => {
    const short16 = await pcm(RACHEL, SHORT, {}, 16000);
    const short8 = await pcm(RACHEL, SHORT, {}, 8000);
    const short44 = await pcm(RACHEL, SHORT, {}, 44100);
    const long16 = await pcm(RACHEL, LONG, {}, 16000);
    const seconds = short16.length / 16000;
    expect(seconds).toBeGreaterThan(0.5);
    // Same audio at three rates: same duration within a few milliseconds of filter delay.
    expect(Math.abs(short8.length / 8000 - seconds)).toBeLessThan(0.01);
    expect(Math.abs(short44.length / 44100 - seconds)).toBeLessThan(0.01);
    expect(long16.length / 16000).toBeGreaterThan(seconds * 4);
    expect(rms(long16)).toBeGreaterThan(500);
  });

  it('sentence joins add no gaps and no clicks: same length and no larger jump than one uninterrupted engine run', async () => {
    const settings = { use_speaker_boost: false };
    const streamed = await readAll(
      await client.textToSpeech.stream(RACHEL, {
        text: LONG,
        outputFormat: 'pcm_22050',
        voiceSettings: { useSpeakerBoost: false },
      }),
    );
    const pieces = pcmSamples(streamed.bytes);
    const whole = await synthesizePcm(
      LONG,
      renderParams(findPremadeVoice(RACHEL)!.engine, parseVoiceSettings(settings)),
    );
    expect(Math.abs(pieces.length - whole.length) / whole.length).toBeLessThan(0.02);
    const maxJump = (x: Int16Array) => x.reduce((m, v, i) => (i === 0 ? 0 : Math.max(m, Math.abs(v - x[i - 1]!))), 0);
    expect(maxJump(pieces)).toBeLessThanOrEqual(maxJump(whole) * 1.1);
  });

  it('ulaw_8000 is one byte per sample with audio/basic', async () => {
    const res = await post(`/v1/text-to-speech/${RACHEL}`, { text: SHORT, output_format: 'ulaw_8000' });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('audio/basic');
    const bytes = Buffer.from(await res.arrayBuffer());
    const reference = await pcm(RACHEL, SHORT, {}, 8000);
    expect(bytes.length).toBe(reference.length);
  });

  it('a female and a male voice differ in pitch', async () => {
    const female = median(pitchTrack(await pcm(RACHEL, LONG), 16000));
    const male = median(pitchTrack(await pcm(ADAM, LONG), 16000));
    expect(female).toBeGreaterThan(male * 1.4);
  });

  it('language_code changes the language: same voice, different spectrum and timing', async () => {
    const text = 'Guten Morgen, wie geht es Ihnen heute?';
    const en = await pcm(RACHEL, text, { language_code: 'en' });
    const de = await pcm(RACHEL, text, { language_code: 'de' });
    expect(en.length).not.toBe(de.length);
  });

  it('stability changes intonation: less stable is more varied', async () => {
    const lively = pitchSpreadSemitones(
      pitchTrack(await pcm(RACHEL, LONG, { voice_settings: { stability: 0 } }), 16000),
    );
    const flat = pitchSpreadSemitones(pitchTrack(await pcm(RACHEL, LONG, { voice_settings: { stability: 1 } }), 16000));
    expect(lively).toBeGreaterThan(flat * 2);
  });

  it('speed and style change the pace', async () => {
    const normal = await pcm(RACHEL, LONG);
    const fast = await pcm(RACHEL, LONG, { voice_settings: { speed: 1.2 } });
    const styled = await pcm(RACHEL, LONG, { voice_settings: { style: 1 } });
    expect(fast.length).toBeLessThan(normal.length * 0.9);
    expect(styled.length).toBeLessThan(normal.length * 0.95);
  });

  it('use_speaker_boost raises and evens out loudness across voices', async () => {
    const loudness = async (voice: string, boost: boolean) =>
      activeRms(await pcm(voice, LONG, { voice_settings: { use_speaker_boost: boost } }));
    const [rachelOn, adamOn, rachelOff, adamOff] = await Promise.all([
      loudness(RACHEL, true),
      loudness(ADAM, true),
      loudness(RACHEL, false),
      loudness(ADAM, false),
    ]);
    expect(rachelOn).toBeGreaterThan(rachelOff * 1.3);
    expect(adamOn).toBeGreaterThan(adamOff * 1.3);
    expect(Math.abs(rachelOn - adamOn)).toBeLessThan(0.1 * adamOn);
  });
});

/** An Ogg Opus body checked page by page: OpusHead (mono, 48 kHz), OpusTags, audio, end of stream. */
function checkOggOpus(bytes: Buffer) {
  const pages = parseOgg(bytes);
  expect(pages.length).toBeGreaterThan(3);
  expect(bytes.toString('latin1', 0, 4)).toBe('OggS');
  expect(pages[0]!.headerType & 0x02).toBe(0x02); // beginning of stream
  const head = parseOpusHead(pages[0]!);
  expect(head).toMatchObject({ version: 1, channels: 1, inputSampleRate: 48000 });
  expect(pages[1]!.body.toString('latin1', 0, 8)).toBe('OpusTags');
  expect(pages[pages.length - 1]!.headerType & 0x04).toBe(0x04); // end of stream
  expect(new Set(pages.map((p) => p.serial)).size).toBe(1);
  pages.forEach((p, i) => expect(p.sequence).toBe(i));
  return { pages, head, seconds: opusDurationSeconds(pages, head) };
}

describe('Opus in Ogg (opus_48000_*)', () => {
  it('SDK convert with opus_48000_64: valid Ogg Opus, as long as the same text in PCM, at about 64 kbit/s', async () => {
    const { bytes } = await readAll(
      await client.textToSpeech.convert(RACHEL, { text: LONG, outputFormat: 'opus_48000_64' }),
    );
    const { seconds, pages } = checkOggOpus(bytes);
    const reference = (await pcm(RACHEL, LONG, {}, 16000)).length / 16000;
    expect(Math.abs(seconds - reference)).toBeLessThan(0.05);
    const audioBytes = pages.slice(2).reduce((n, p) => n + p.body.length, 0);
    const kbps = (audioBytes * 8) / seconds / 1000;
    expect(kbps).toBeGreaterThan(64 * 0.7);
    expect(kbps).toBeLessThan(64 * 1.3);
  });

  it('the Content-Type is audio/ogg with codecs=opus; the bit rate follows the format; duration grows with the text', async () => {
    const sizes: Record<string, number> = {};
    for (const format of ['opus_48000_32', 'opus_48000_192']) {
      const res = await post(`/v1/text-to-speech/${ADAM}?output_format=${format}`, { text: LONG });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('audio/ogg;codecs=opus');
      const bytes = Buffer.from(await res.arrayBuffer());
      checkOggOpus(bytes);
      sizes[format] = bytes.length;
    }
    expect(sizes.opus_48000_192!).toBeGreaterThan(sizes.opus_48000_32! * 3);
    const short = checkOggOpus(
      Buffer.from(
        await (await post(`/v1/text-to-speech/${ADAM}`, { text: SHORT, output_format: 'opus_48000_96' })).arrayBuffer(),
      ),
    );
    const long = checkOggOpus(
      Buffer.from(
        await (await post(`/v1/text-to-speech/${ADAM}`, { text: LONG, output_format: 'opus_48000_128' })).arrayBuffer(),
      ),
    );
    expect(short.seconds).toBeGreaterThan(0.5);
    expect(long.seconds).toBeGreaterThan(short.seconds * 4);
  });

  it('SDK stream with opus_48000_32 arrives in several chunks that join into one valid Ogg Opus stream', async () => {
    const { bytes, chunks } = await readAll(
      await client.textToSpeech.stream(RACHEL, { text: LONG, outputFormat: 'opus_48000_32' }),
    );
    expect(chunks).toBeGreaterThan(1);
    const { seconds } = checkOggOpus(bytes);
    expect(seconds).toBeGreaterThan(4);
  });
});

describe('every MP3 and PCM format', () => {
  const MP3_FORMATS = [
    ['mp3_22050_32', 2, 22050, 32],
    ['mp3_44100_32', 1, 44100, 32],
    ['mp3_44100_64', 1, 44100, 64],
    ['mp3_44100_96', 1, 44100, 96],
    ['mp3_44100_128', 1, 44100, 128],
    ['mp3_44100_192', 1, 44100, 192],
  ] as const;
  const PCM_RATES = [8000, 16000, 22050, 24000, 44100] as const;
  // The engine's own rate: the reference duration every format must keep.
  let referenceSeconds = 0;
  beforeAll(async () => {
    referenceSeconds = (await pcm(RACHEL, LONG, {}, 22050)).length / 22050;
  });

  it.each(MP3_FORMATS)(
    '%s: audio/mpeg, every frame MPEG-%s at %i Hz, audio frames at %i kbit/s, as long as the PCM',
    async (format, version, rate, kbps) => {
      const res = await post(`/v1/text-to-speech/${RACHEL}?output_format=${format}`, { text: LONG });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('audio/mpeg');
      const bytes = Buffer.from(await res.arrayBuffer());
      const frames = parseMp3(bytes); // throws unless every byte belongs to a frame
      expect(frames.length).toBeGreaterThan(50);
      for (const f of frames)
        expect({ version: f.version, sampleRate: f.sampleRate }).toEqual({ version, sampleRate: rate });
      // LAME's first frame (the Info tag) may have another bit rate; the audio frames have the declared one.
      for (const f of frames.slice(1)) expect(f.bitrateKbps).toBe(kbps);
      // Encoder delay and padding add a few frames at most.
      const seconds = mp3DurationSeconds(frames);
      expect(seconds).toBeGreaterThanOrEqual(referenceSeconds);
      expect(seconds - referenceSeconds).toBeLessThan(0.15);
      const measuredKbps =
        (frames.slice(1).reduce((n, f) => n + f.length, 0) * 8) / mp3DurationSeconds(frames.slice(1)) / 1000;
      expect(Math.abs(measuredKbps - kbps) / kbps).toBeLessThan(0.01);
    },
  );

  it.each(PCM_RATES)('pcm_%i: audio/pcm;rate=…, 16-bit samples whose count matches the duration', async (rate) => {
    const res = await post(`/v1/text-to-speech/${RACHEL}?output_format=pcm_${rate}`, { text: LONG });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe(`audio/pcm;rate=${rate}`);
    const bytes = Buffer.from(await res.arrayBuffer());
    expect(bytes.length % 2).toBe(0);
    const samples = pcmSamples(bytes);
    // Same audio at every rate: the same duration within a few milliseconds of filter delay.
    expect(Math.abs(samples.length / rate - referenceSeconds)).toBeLessThan(0.01);
    expect(rms(samples)).toBeGreaterThan(500);
  });
});

describe('/stream delivery', () => {
  it('is chunked, and the first chunk of a long text arrives long before the last', async () => {
    const text = Array.from(
      { length: 30 },
      (_, i) => `This is sentence number ${i + 1} of a long text, streamed as it is spoken.`,
    ).join(' ');
    const started = performance.now();
    const res = await post(`/v1/text-to-speech/${RACHEL}/stream`, { text });
    expect(res.status).toBe(200);
    expect(res.headers.get('transfer-encoding')).toBe('chunked');
    expect(res.headers.get('content-length')).toBeNull();
    // The headers leave with the first audio chunk, so time it from the request, not the headers.
    const headersMs = performance.now() - started;
    const { bytes, chunks, firstChunkMs } = await readAll(res.body!);
    const firstAudioMs = headersMs + firstChunkMs;
    const totalMs = performance.now() - started;
    const seconds = mp3DurationSeconds(parseMp3(bytes));
    expect(seconds).toBeGreaterThan(60);
    expect(chunks).toBeGreaterThan(10);
    // The first audio follows the first sentence; the rest takes the engine the other 29.
    expect(firstAudioMs).toBeLessThan(totalMs / 4);
  });
});

describe('premade voices through the official SDK', () => {
  it('voices.getAll lists the premade voices with both genders and several accents', async () => {
    const { voices } = await client.voices.getAll();
    const premade = voices.filter((v) => v.category === 'premade');
    expect(premade.length).toBeGreaterThanOrEqual(15);
    expect(new Set(premade.map((v) => v.labels?.gender))).toEqual(new Set(['male', 'female']));
    expect(new Set(premade.map((v) => v.labels?.accent)).size).toBeGreaterThan(5);
  });

  it('voices.get answers one voice with settings and a preview_url that serves real audio', async () => {
    const voice = await client.voices.get(RACHEL);
    expect(voice).toMatchObject({
      voiceId: RACHEL,
      name: 'Rachel',
      category: 'premade',
      labels: { gender: 'female', accent: 'american' },
    });
    expect(voice.settings).toMatchObject({ stability: expect.any(Number), similarityBoost: expect.any(Number) });
    const preview = await fetch(voice.previewUrl!, { headers: { 'xi-api-key': stack.apiKey } });
    expect(preview.status).toBe(200);
    expect(mp3DurationSeconds(parseMp3(Buffer.from(await preview.arrayBuffer())))).toBeGreaterThan(1);
  });

  it('an unknown voice is voice_not_found (404)', async () => {
    const res = await fetch(`${stack.url}/v1/voices/NoSuchVoice0000000000`, {
      headers: { 'xi-api-key': stack.apiKey },
    });
    expect(res.status).toBe(404);
    expect(((await res.json()) as { detail: { status: string } }).detail.status).toBe('voice_not_found');
  });
});

describe('history', () => {
  it('the finished audio and its request are handed to the history store exactly once', async () => {
    const res = await post(`/v1/text-to-speech/${ADAM}`, { text: SHORT, voice_settings: { stability: 0.3 } });
    expect(res.status).toBe(200);
    const audio = Buffer.from(await res.arrayBuffer());
    const id = res.headers.get('history-item-id')!;
    expect(id).toMatch(/^[A-Za-z0-9]{20}$/);
    const connection = await connectMongo(stackEnv().MONGO_URL, stack.speechDb);
    try {
      const store = await createSpeechStore(connection);
      const deadline = Date.now() + 10_000;
      let found = await getHistoryAudio(store, 'acct_test', id);
      while (!found && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 100));
        found = await getHistoryAudio(store, 'acct_test', id);
      }
      expect(found).not.toBeNull();
      expect(found!.bytes.equals(audio)).toBe(true);
      expect(found!.item).toMatchObject({
        voiceId: ADAM,
        text: SHORT,
        state: 'complete',
        characterCount: SHORT.length,
      });
      expect(await store.models.History.countDocuments({ _id: id })).toBe(1);
    } finally {
      await connection.close();
    }
  });
});

describe('models and previews', () => {
  it('GET /v1/models answers {models} with truthful capabilities and languages', async () => {
    const res = await fetch(`${stack.url}/v1/models`, { headers: { 'xi-api-key': stack.apiKey } });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { models: Record<string, unknown>[] };
    // This stack serves eSpeak NG only (the neural model's listing is in neural.e2e.test.ts).
    expect(body.models.map((m) => m.model_id)).toEqual(['espeak_ng_v1']);
    const model = body.models.find((m) => m.model_id === 'espeak_ng_v1')!;
    expect(model).toMatchObject({
      model_id: 'espeak_ng_v1',
      can_do_text_to_speech: true,
      can_do_voice_conversion: false,
      can_use_style: true,
      can_use_speaker_boost: true,
      serves_provided_models: null,
    });
    expect(model.languages).toEqual(
      expect.arrayContaining([
        { language_id: 'de', name: 'German' },
        { language_id: 'en-GB', name: 'English (United Kingdom)' },
      ]),
    );
  });

  it('a premade voice preview is real MP3', async () => {
    const res = await fetch(`${stack.url}/v1/voice-previews/${ADAM}.mp3`, { headers: { 'xi-api-key': stack.apiKey } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('audio/mpeg');
    expect(mp3DurationSeconds(parseMp3(Buffer.from(await res.arrayBuffer())))).toBeGreaterThan(1);
  });
});

describe('errors in the speech shape', () => {
  const cases: [string, string, unknown, number, string][] = [
    ['unknown voice', '/v1/text-to-speech/NoSuchVoice000', { text: 'hi' }, 404, 'voice_not_found'],
    ['unknown model', `/v1/text-to-speech/${RACHEL}`, { text: 'hi', model_id: 'nope' }, 400, 'model_not_found'],
    ['unknown format', `/v1/text-to-speech/${RACHEL}`, { text: 'hi', output_format: 'flac_1' }, 400, 'bad_request'],
    [
      'unknown format in the query',
      `/v1/text-to-speech/${RACHEL}?output_format=mp3_1_1`,
      { text: 'hi' },
      400,
      'bad_request',
    ],
    ['unknown language', `/v1/text-to-speech/${RACHEL}`, { text: 'hi', language_code: 'xx' }, 400, 'bad_request'],
    [
      'stability above 1',
      `/v1/text-to-speech/${RACHEL}`,
      { text: 'hi', voice_settings: { stability: 1.5 } },
      400,
      'bad_request',
    ],
    [
      'style below 0',
      `/v1/text-to-speech/${RACHEL}/stream`,
      { text: 'hi', voice_settings: { style: -0.1 } },
      400,
      'bad_request',
    ],
    [
      'similarity as text',
      `/v1/text-to-speech/${RACHEL}`,
      { text: 'hi', voice_settings: { similarity_boost: '1' } },
      400,
      'bad_request',
    ],
    [
      'speed out of range',
      `/v1/text-to-speech/${RACHEL}`,
      { text: 'hi', voice_settings: { speed: 3 } },
      400,
      'bad_request',
    ],
    ['empty text', `/v1/text-to-speech/${RACHEL}`, { text: '' }, 400, 'bad_request'],
    ['whitespace text', `/v1/text-to-speech/${RACHEL}/stream`, { text: ' \n\t ' }, 400, 'bad_request'],
    ['missing text', `/v1/text-to-speech/${RACHEL}`, {}, 400, 'bad_request'],
    ['text too long', `/v1/text-to-speech/${RACHEL}`, { text: 'a'.repeat(5001) }, 400, 'text_too_long'],
    ['malformed JSON', `/v1/text-to-speech/${RACHEL}`, '{"text": ', 400, 'bad_request'],
    ['a JSON array', `/v1/text-to-speech/${RACHEL}`, '[1,2]', 400, 'bad_request'],
    [
      'oversized body',
      `/v1/text-to-speech/${RACHEL}`,
      JSON.stringify({ text: 'a'.repeat(70_000) }),
      413,
      'text_too_long',
    ],
  ];
  it.each(cases)('%s', async (_name, path, body, status, detailStatus) => {
    const res = await post(path, body);
    expect(res.status).toBe(status);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    const json = (await res.json()) as { detail: { status: string; message: string } };
    expect(json.detail.status).toBe(detailStatus);
    expect(json.detail.message.length).toBeGreaterThan(0);
  });

  it.each([
    ['a malformed percent-encoding in the voice id', '/v1/text-to-speech/%E0%A4%A'],
    ['an overlong voice id', `/v1/text-to-speech/${'x'.repeat(300)}`],
    ['a voice id with odd characters', '/v1/text-to-speech/%00%0Avoice'],
  ])('%s is a 4xx in the speech shape, never a 500', async (_name, path) => {
    const res = await post(path, { text: 'hi' });
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);
    expect(((await res.json()) as { detail: { status: string } }).detail.status).toBeTruthy();
  });

  it('text of exactly the maximum length is accepted', async () => {
    const text = `${LONG} `.repeat(Math.ceil(5000 / (LONG.length + 1))).slice(0, 5000);
    const res = await post(`/v1/text-to-speech/${RACHEL}?output_format=pcm_22050`, { text });
    expect(res.status).toBe(200);
    // About five minutes of speech.
    expect((await res.arrayBuffer()).byteLength / 2 / 22050).toBeGreaterThan(200);
  }, 60_000);
});
