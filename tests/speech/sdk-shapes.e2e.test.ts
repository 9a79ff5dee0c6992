import { ElevenLabsClient } from '@elevenlabs/elevenlabs-js';
import { startSpeechPlatform, type Platform } from '../gateway/platform';
import { espeakWav, REFERENCE_TEXT } from '../voices/audio';
import { pcmSamples, rms } from './support/audio';
import { connectSession, type Session } from './support/ws-session';

/**
 * Which shape a client gets where our interface document and the hosted API differ
 * (docs/speech.md, "Response shapes"): the real gateway and a worker as processes, an API key from
 * auth, the official JS SDK, raw fetch and `ws` clients. The document's shape is the default; a
 * client naming an official SDK in `X-Fern-SDK-Name` gets the hosted shape; `?shape=` chooses
 * explicitly.
 */
const RACHEL = '21m00Tcm4TlvDq8ikWAM';
/** The headers the Python SDK (`elevenlabs` 2.78) sends on every request and WebSocket upgrade. */
const PYTHON_SDK_HEADERS = {
  'X-Fern-Language': 'Python',
  'X-Fern-SDK-Name': 'elevenlabs',
  'X-Fern-SDK-Version': '2.78.0',
  'User-Agent': 'elevenlabs/2.78.0',
};

let platform: Platform;
let key: string;
let client: ElevenLabsClient;

beforeAll(async () => {
  ({ platform, key } = await startSpeechPlatform('Shapes Tester'));
  client = new ElevenLabsClient({ apiKey: key, baseUrl: platform.publicUrl, maxRetries: 0 });
}, 120_000);

afterAll(async () => {
  await platform?.stop();
}, 30_000);

const models = (query = '', headers: Record<string, string> = {}) =>
  fetch(`${platform.publicUrl}/v1/models${query}`, { headers: { 'xi-api-key': key, ...headers } });

describe('GET /v1/models', () => {
  it('the official JS SDK gets the hosted bare array: models.list() returns the catalogue', async () => {
    const list = await client.models.list();
    expect(Array.isArray(list)).toBe(true);
    expect(list.map((m) => m.modelId)).toEqual(['espeak_ng_v1']);
    expect(list[0]).toMatchObject({ name: expect.any(String), canDoTextToSpeech: true });
  });

  it('a client without an SDK name gets the document shape {models: [...]}, unchanged', async () => {
    const res = await models();
    expect(res.status).toBe(200);
    expect(res.headers.get('vary')).toMatch(/X-Fern-SDK-Name/i);
    expect(((await res.json()) as { models: { model_id: string }[] }).models.map((m) => m.model_id)).toEqual([
      'espeak_ng_v1',
    ]);
  });

  it('the Python SDK headers get the bare array too', async () => {
    const body = (await (await models('', PYTHON_SDK_HEADERS)).json()) as { model_id: string }[];
    expect(body.map((m) => m.model_id)).toEqual(['espeak_ng_v1']);
  });

  it('?shape= chooses explicitly, over the SDK header', async () => {
    const hosted = (await (await models('?shape=hosted')).json()) as { model_id: string }[];
    expect(hosted.map((m) => m.model_id)).toEqual(['espeak_ng_v1']);
    const document = (await (await models('?shape=document', PYTHON_SDK_HEADERS)).json()) as {
      models: { model_id: string }[];
    };
    expect(document.models.map((m) => m.model_id)).toEqual(['espeak_ng_v1']);
  });

  it('an unknown shape is a 400 in the speech error shape', async () => {
    const res = await models('?shape=xml');
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ detail: { status: 'bad_request', message: expect.stringMatching(/shape/) } });
  });
});

/** Runs a stream-input session the way the Python SDK's `convert_realtime` does, and waits for its close. */
async function realtimeSession(
  query: string,
  headers: Record<string, string>,
): Promise<{ session: Session; close: { code: number } }> {
  const session = connectSession(
    `${platform.publicUrl.replace('http', 'ws')}/v1/text-to-speech/${RACHEL}/stream-input?${query}`,
    { 'xi-api-key': key, ...headers },
  );
  await session.opened;
  // convert_realtime's first message: settings null and a generation_config it always sends.
  session.ws.send(
    JSON.stringify({
      text: ' ',
      try_trigger_generation: true,
      voice_settings: null,
      generation_config: { chunk_length_schedule: [50] },
    }),
  );
  session.ws.send(JSON.stringify({ text: 'Hello from the Python helper. ', try_trigger_generation: true }));
  session.ws.send(JSON.stringify({ text: 'Second sentence here. ', try_trigger_generation: true }));
  session.ws.send(JSON.stringify({ text: '' }));
  return { session, close: await session.closed };
}

interface AudioMessage {
  audio?: string;
  isFinal?: boolean | null;
  alignment?: { chars: string[]; charStartTimesMs: number[]; charDurationsMs: number[] } | null;
  normalizedAlignment?: unknown;
}

/** Every message is JSON text; the audio of all messages with `audio`, decoded from base64. */
function jsonAudio(session: Session): { messages: AudioMessage[]; audio: Buffer } {
  const messages = session.texts.map((t) => JSON.parse(t) as AudioMessage);
  const audio = Buffer.concat(messages.filter((m) => m.audio).map((m) => Buffer.from(m.audio!, 'base64')));
  return { messages, audio };
}

describe('stream-input', () => {
  it('an upgrade naming an official SDK gets JSON messages with base64 audio and alignment, then isFinal', async () => {
    const { session, close } = await realtimeSession('output_format=pcm_16000', PYTHON_SDK_HEADERS);
    expect(close.code).toBe(1000);
    expect(session.binary).toHaveLength(0);
    const { messages, audio } = jsonAudio(session);
    // Each piece's audio carries its alignment (the first sentence is two pieces: its first words
    // start the audio at once); audio the encoder flushes after the last one has none.
    const aligned = messages.filter((m) => m.audio && m.alignment);
    expect(aligned.map((m) => m.alignment!.chars.join(''))).toEqual([
      'Hello from the',
      ' Python helper.',
      ' Second sentence here.',
    ]);
    for (const m of aligned) {
      expect(m.alignment!.chars.length).toBe(m.alignment!.charStartTimesMs.length);
      expect(m.normalizedAlignment).toEqual(m.alignment);
    }
    expect(aligned.map((m) => m.alignment!.chars.join('')).join('')).toBe(
      'Hello from the Python helper. Second sentence here.',
    );
    expect(messages.at(-1)).toEqual({ isFinal: true });
    expect(rms(pcmSamples(audio))).toBeGreaterThan(500);
  });

  it('a client without an SDK name gets binary frames, unchanged', async () => {
    const { session, close } = await realtimeSession('output_format=pcm_16000', {});
    expect(close.code).toBe(1000);
    expect(session.texts.map((t) => JSON.parse(t))).toEqual([{ isFinal: true }]);
    expect(rms(pcmSamples(Buffer.concat(session.binary)))).toBeGreaterThan(500);
  });

  it('?shape=hosted chooses JSON messages explicitly; ?shape=document keeps binary frames for an SDK', async () => {
    const hosted = await realtimeSession('output_format=pcm_16000&shape=hosted', {});
    expect(hosted.close.code).toBe(1000);
    expect(hosted.session.binary).toHaveLength(0);
    expect(rms(pcmSamples(jsonAudio(hosted.session).audio))).toBeGreaterThan(500);

    const document = await realtimeSession('output_format=pcm_16000&shape=document', PYTHON_SDK_HEADERS);
    expect(document.close.code).toBe(1000);
    expect(document.session.texts.map((t) => JSON.parse(t))).toEqual([{ isFinal: true }]);
    expect(rms(pcmSamples(Buffer.concat(document.session.binary)))).toBeGreaterThan(500);
  });

  it('an unknown shape closes 1008 with a speech error', async () => {
    const session = connectSession(
      `${platform.publicUrl.replace('http', 'ws')}/v1/text-to-speech/${RACHEL}/stream-input?shape=xml`,
      { 'xi-api-key': key },
    );
    const close = await session.closed;
    expect(close.code).toBe(1008);
    expect(JSON.parse(session.texts[0]!)).toEqual({
      detail: { status: 'bad_request', message: expect.stringMatching(/shape/) },
    });
  });
});

describe('voice forms as the SDKs send them', () => {
  const wav = espeakWav(REFERENCE_TEXT, 'en+m3', 30);

  it('JS SDK voices.ivc.create and voices.update without labels', async () => {
    const added = await client.voices.ivc.create({
      name: 'No labels',
      files: [new File([new Uint8Array(wav)], 'reference.wav', { type: 'audio/wav' })],
    });
    expect(added.voiceId).toMatch(/^[A-Za-z0-9]{20}$/);
    await client.voices.update(added.voiceId, { name: 'Still no labels', removeBackgroundNoise: false });
    const voice = await client.voices.get(added.voiceId);
    expect(voice).toMatchObject({ name: 'Still no labels', labels: {} });
  });

  it('the Python SDK\'s multipart (labels "null", on add and edit) is accepted and means no labels', async () => {
    const form = new FormData();
    form.append('name', 'Python clone');
    form.append('labels', 'null');
    form.append('files', new File([new Uint8Array(wav)], 'reference.wav', { type: 'audio/wav' }));
    const added = await fetch(`${platform.publicUrl}/v1/voices/add`, {
      method: 'POST',
      headers: { 'xi-api-key': key, ...PYTHON_SDK_HEADERS },
      body: form,
    });
    expect(added.status).toBe(200);
    const { voice_id: voiceId } = (await added.json()) as { voice_id: string };

    const edit = new FormData();
    edit.append('name', 'Python clone v2');
    edit.append('labels', 'null');
    const edited = await fetch(`${platform.publicUrl}/v1/voices/${voiceId}/edit`, {
      method: 'POST',
      headers: { 'xi-api-key': key, ...PYTHON_SDK_HEADERS },
      body: edit,
    });
    expect(edited.status).toBe(200);
    const voice = (await (
      await fetch(`${platform.publicUrl}/v1/voices/${voiceId}`, { headers: { 'xi-api-key': key } })
    ).json()) as { name: string; labels: unknown };
    expect(voice).toMatchObject({ name: 'Python clone v2', labels: {} });
  });
});
