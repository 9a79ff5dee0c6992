import { ElevenLabsClient } from '@elevenlabs/elevenlabs-js';
import WebSocket from 'ws';
import { startSpeechPlatform, type Platform } from '../gateway/platform';
import { mp3DurationSeconds, parseMp3, pcmSamples, readAll, rms } from './support/audio';

/**
 * The speech API through the real gateway process, with a real API key issued by auth, and a real
 * synthesis worker process on a queue of this test's own.
 */
const RACHEL = '21m00Tcm4TlvDq8ikWAM';

let platform: Platform;
let key: string;
let client: ElevenLabsClient;

beforeAll(async () => {
  ({ platform, key } = await startSpeechPlatform('Speech Tester'));
  client = new ElevenLabsClient({ apiKey: key, baseUrl: platform.publicUrl });
}, 120_000);

afterAll(async () => {
  await platform?.stop();
}, 30_000);

describe('speech through the gateway with a real API key', () => {
  it('SDK convert (defaults) and stream (explicit model and format)', async () => {
    const full = await readAll(
      await client.textToSpeech.convert(RACHEL, { text: 'Hello from the gateway. This is real audio.' }),
    );
    expect(mp3DurationSeconds(parseMp3(full.bytes))).toBeGreaterThan(1.5);
    const streamed = await readAll(
      await client.textToSpeech.stream(RACHEL, {
        text: 'Streaming through the gateway. Two sentences.',
        modelId: 'eleven_turbo_v2_5',
        outputFormat: 'pcm_22050',
      }),
    );
    expect(rms(pcmSamples(streamed.bytes))).toBeGreaterThan(500);
  });

  it('SDK voices.getAll and voices.get: premade voices with a preview that plays', async () => {
    const { voices } = await client.voices.getAll();
    expect(voices.filter((v) => v.category === 'premade').length).toBeGreaterThanOrEqual(15);
    const rachel = await client.voices.get(RACHEL);
    expect(rachel).toMatchObject({
      voiceId: RACHEL,
      name: 'Rachel',
      category: 'premade',
      labels: { gender: 'female' },
    });
    expect(rachel.previewUrl).toBe(`${platform.publicUrl}/v1/voice-previews/${RACHEL}.mp3`);
    const preview = await fetch(rachel.previewUrl!, { headers: { 'xi-api-key': key } });
    expect(preview.status).toBe(200);
    expect(mp3DurationSeconds(parseMp3(Buffer.from(await preview.arrayBuffer())))).toBeGreaterThan(1);
  });

  it('characters are charged through the account store once the audio is delivered', async () => {
    const usage = async () =>
      (
        (await (
          await fetch(`${platform.publicUrl}/v1/user/subscription`, { headers: { 'xi-api-key': key } })
        ).json()) as { character_count: number }
      ).character_count;
    const before = await usage();
    const text = 'Exactly forty-two characters are here now.';
    const res = await fetch(`${platform.publicUrl}/v1/text-to-speech/${RACHEL}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'xi-api-key': key },
      body: JSON.stringify({ text }),
    });
    expect(res.status).toBe(200);
    await res.arrayBuffer();
    const deadline = Date.now() + 10_000;
    while ((await usage()) < before + text.length && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 100));
    expect(await usage()).toBe(before + text.length);
  });

  it('a bad key is refused in the speech error shape', async () => {
    const res = await fetch(`${platform.publicUrl}/v1/text-to-speech/${RACHEL}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'xi-api-key': 'sk_not_a_key' },
      body: JSON.stringify({ text: 'hi' }),
    });
    expect(res.status).toBe(401);
    expect(((await res.json()) as { detail: { status: string } }).detail.status).toMatch(
      /invalid_api_key|unauthorized/,
    );
  });

  it('GET /v1/models through the gateway', async () => {
    const res = await fetch(`${platform.publicUrl}/v1/models`, { headers: { 'xi-api-key': key } });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { models: { model_id: string }[] }).models.map((m) => m.model_id)).toEqual([
      'espeak_ng_v1',
    ]);
  });

  it('stream-input through the gateway: the key in the first message', async () => {
    const ws = new WebSocket(
      `${platform.publicUrl.replace('http', 'ws')}/v1/text-to-speech/${RACHEL}/stream-input?output_format=pcm_16000`,
    );
    const audio: Buffer[] = [];
    const texts: string[] = [];
    ws.on('message', (data: Buffer, isBinary: boolean) =>
      isBinary ? audio.push(Buffer.from(data)) : texts.push(data.toString()),
    );
    const closed = new Promise<number>((resolve) => ws.on('close', (code) => resolve(code)));
    await new Promise((resolve, reject) => {
      ws.once('open', resolve);
      ws.once('error', reject);
    });
    ws.send(JSON.stringify({ text: ' ', xi_api_key: key }));
    ws.send(JSON.stringify({ text: 'Through the real gateway. ', flush: false }));
    ws.send(JSON.stringify({ text: 'With a real key.', flush: true }));
    ws.send(JSON.stringify({ text: '' }));
    expect(await closed).toBe(1000);
    expect(texts.map((t) => JSON.parse(t))).toEqual([{ isFinal: true }]);
    expect(rms(pcmSamples(Buffer.concat(audio)))).toBeGreaterThan(500);
  });

  it('stream-input refuses a bad key with the speech error shape and 1008', async () => {
    const ws = new WebSocket(`${platform.publicUrl.replace('http', 'ws')}/v1/text-to-speech/${RACHEL}/stream-input`);
    const texts: string[] = [];
    ws.on('message', (data: Buffer) => texts.push(data.toString()));
    const closed = new Promise<number>((resolve) => ws.on('close', (code) => resolve(code)));
    await new Promise((resolve) => ws.once('open', resolve));
    ws.send(JSON.stringify({ text: ' ', xi_api_key: 'sk_wrong' }));
    expect(await closed).toBe(1008);
    expect(JSON.parse(texts[0]!)).toMatchObject({ detail: { status: 'invalid_api_key' } });
  });
});
