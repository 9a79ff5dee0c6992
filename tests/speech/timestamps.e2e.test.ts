import { ElevenLabsClient } from '@elevenlabs/elevenlabs-js';
import { eventually } from '@platform/testing';
import { piperModelAvailable } from '@platform/speech-engine';
import { decode, expectAlignedWithAudio, expectWellFormed, RATE, type Alignment } from './support/alignment-checks';
import { PIPER_VOICES_DIR, startSpeechStack, type SpeechStack } from './support/speech-stack';

/**
 * `POST /v1/text-to-speech/{voice_id}/with-timestamps` and `…/stream/with-timestamps` through the
 * speech edge and real worker processes, called with the official JS SDK's `convertWithTimestamps`
 * and `streamWithTimestamps`. The alignment is checked against the audio itself (decoded by
 * Debian's ffmpeg): silence where it puts the pause of a comma or a full stop, speech inside the
 * words; and against the text: its characters joined are the text (alignment) or the text as the
 * engine read it (normalized_alignment).
 */
const RACHEL = '21m00Tcm4TlvDq8ikWAM';
const JOE = 'jo5Pq8Nr2Lm7Kv4Ws9Xz';
const TEXT = 'Hello there, my good friend. This sentence comes after a full stop!  And  a third one follows it.';
const neural = piperModelAvailable(PIPER_VOICES_DIR);

let stack: SpeechStack;
let client: ElevenLabsClient;
beforeAll(async () => {
  stack = await startSpeechStack({
    workers: 1,
    concurrency: 2,
    frameTimeoutMs: 90_000,
    accountSpeech: true,
    storeQuota: true,
    neural,
  });
  client = new ElevenLabsClient({ apiKey: stack.apiKey, baseUrl: stack.url, maxRetries: 0 });
}, 90_000);
afterAll(async () => {
  await stack?.stop();
}, 30_000);

const normalized = (text: string) => text.trim().replace(/\s+/g, ' ');

async function characterCount(): Promise<number> {
  return (await client.user.subscription.get()).characterCount;
}

describe('text to speech with timestamps', () => {
  it('convertWithTimestamps: the audio in base64 with each character timed by the engine, charged and kept in history', async () => {
    const before = await characterCount();
    const { data, rawResponse } = await client.textToSpeech
      .convertWithTimestamps(RACHEL, { text: TEXT })
      .withRawResponse();
    const audio = Buffer.from(data.audioBase64, 'base64');
    expect(
      audio.subarray(0, 3).toString('latin1') === 'ID3' || (audio[0] === 0xff && (audio[1]! & 0xe0) === 0xe0),
    ).toBe(true); // MP3, the default format
    const pcm = await decode(audio);
    const duration = pcm.length / RATE;
    expect(duration).toBeGreaterThan(3);
    expectWellFormed(data.alignment, TEXT, duration);
    expectWellFormed(data.normalizedAlignment, normalized(TEXT), duration);
    // The last character ends where the audio does (its final pause included).
    expect(data.alignment.characterEndTimesSeconds.at(-1)!).toBeGreaterThan(duration - 0.2);
    // The comma and both sentence ends.
    expectAlignedWithAudio(data.alignment, pcm, 3);
    expectAlignedWithAudio(data.normalizedAlignment, pcm, 3);

    expect(await characterCount()).toBe(before + [...TEXT].length);
    const id = rawResponse.headers.get('history-item-id')!;
    // The worker records the item once the job is done.
    await eventually(async () => (await client.history.get(id).catch(() => null))?.state === 'complete', 10_000);
    expect((await client.history.get(id)).text).toBe(TEXT);
  }, 60_000);

  it('streamWithTimestamps: one JSON line per sentence, its audio and its characters; together the whole text and audio', async () => {
    const before = await characterCount();
    const chunks = [];
    for await (const chunk of await client.textToSpeech.streamWithTimestamps(RACHEL, {
      text: TEXT,
      outputFormat: 'pcm_16000',
    }))
      chunks.push(chunk);
    // Three sentences: the first alone, then the rest (planPieces), so at least two timed lines.
    const timed = chunks.filter((c) => c.alignment);
    expect(timed.length).toBeGreaterThanOrEqual(2);
    const audio = Buffer.concat(chunks.map((c) => Buffer.from(c.audioBase64, 'base64')));
    const pcm = await decode(audio, ['-f', 's16le', '-ar', String(RATE), '-ac', '1']);
    const join = (key: 'alignment' | 'normalizedAlignment'): Alignment => ({
      characters: timed.flatMap((c) => c[key]!.characters),
      characterStartTimesSeconds: timed.flatMap((c) => c[key]!.characterStartTimesSeconds),
      characterEndTimesSeconds: timed.flatMap((c) => c[key]!.characterEndTimesSeconds),
    });
    const alignment = join('alignment');
    expectWellFormed(alignment, TEXT, pcm.length / RATE);
    expectWellFormed(join('normalizedAlignment'), normalized(TEXT), pcm.length / RATE);
    // Times run on from the start of the whole audio: the second line starts where the first ended.
    expect(timed[1]!.alignment!.characterStartTimesSeconds[0]!).toBeGreaterThanOrEqual(
      timed[0]!.alignment!.characterEndTimesSeconds.at(-1)! - 0.001,
    );
    // Each line's audio holds its own characters: the audio so far lasts until its last character ends.
    let heard = 0;
    for (const chunk of chunks) {
      heard += Buffer.from(chunk.audioBase64, 'base64').length / 2 / RATE;
      if (chunk.alignment)
        expect(heard).toBeGreaterThanOrEqual(chunk.alignment.characterEndTimesSeconds.at(-1)! - 0.01);
    }
    expectAlignedWithAudio(alignment, pcm, 3);
    expect(await characterCount()).toBe(before + [...TEXT].length);
  }, 60_000);

  it('streamWithTimestamps in MP3: the encoder’s tail comes in a last line without alignment, which the SDK takes; the lines’ audio is one MP3', async () => {
    const chunks = [];
    for await (const chunk of await client.textToSpeech.streamWithTimestamps(RACHEL, { text: TEXT }))
      chunks.push(chunk);
    const last = chunks.at(-1)!;
    expect(last.alignment ?? null).toBeNull();
    expect(Buffer.from(last.audioBase64, 'base64').length).toBeGreaterThan(0);
    const pcm = await decode(Buffer.concat(chunks.map((c) => Buffer.from(c.audioBase64, 'base64'))));
    const timed = chunks.filter((c) => c.alignment);
    const alignment: Alignment = {
      characters: timed.flatMap((c) => c.alignment!.characters),
      characterStartTimesSeconds: timed.flatMap((c) => c.alignment!.characterStartTimesSeconds),
      characterEndTimesSeconds: timed.flatMap((c) => c.alignment!.characterEndTimesSeconds),
    };
    expectWellFormed(alignment, TEXT, pcm.length / RATE);
    expectAlignedWithAudio(alignment, pcm, 3);
  }, 60_000);

  (neural ? it : it.skip)(
    'the neural model: words timed by the documented approximation, the pauses of commas and full stops where the audio is silent',
    async () => {
      const text = 'Good morning, my friend, how are you? The neural voice is speaking now.';
      // A seed makes the neural model's output repeatable (it then draws no sampling noise): the same audio on
      // every run, so the pauses this test looks for are where they were when it was written.
      const data = await client.textToSpeech.convertWithTimestamps(JOE, {
        text,
        modelId: 'piper_en_us_v1',
        outputFormat: 'pcm_16000',
        seed: 7,
      });
      const pcm = await decode(Buffer.from(data.audioBase64, 'base64'), [
        '-f',
        's16le',
        '-ar',
        String(RATE),
        '-ac',
        '1',
      ]);
      expectWellFormed(data.alignment, text, pcm.length / RATE);
      expectWellFormed(data.normalizedAlignment, text, pcm.length / RATE);
      expectAlignedWithAudio(data.alignment, pcm, 2);
    },
    120_000,
  );

  it('refuses bad requests in the speech error shape, before any audio', async () => {
    for (const [path, body, status, code] of [
      [`${RACHEL}/with-timestamps`, { text: '' }, 400, 'bad_request'],
      [`${RACHEL}/stream/with-timestamps`, { text: 'hi', output_format: 'wav_1' }, 400, 'bad_request'],
      ['no_such_voice/with-timestamps', { text: 'hi' }, 404, 'voice_not_found'],
    ] as const) {
      const res = await fetch(`${stack.url}/v1/text-to-speech/${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'xi-api-key': stack.apiKey },
        body: JSON.stringify(body),
      });
      expect({ path, status: res.status, body: (await res.json()) as unknown }).toEqual({
        path,
        status,
        body: { detail: { status: code, message: expect.any(String) } },
      });
    }
  });
});
