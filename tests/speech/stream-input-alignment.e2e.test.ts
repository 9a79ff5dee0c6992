import { piperModelAvailable, shortenFirstPiece } from '@platform/speech-engine';
import { decode, expectAlignedWithAudio, expectWellFormed, RATE, type Alignment } from './support/alignment-checks';
import { PIPER_VOICES_DIR, startSpeechStack, type SpeechStack } from './support/speech-stack';
import { connectSession } from './support/ws-session';

/**
 * `stream-input` in the hosted API's shape (docs/speech.md, "WebSocket stream-input"): JSON
 * messages with base64 audio whose `alignment` / `normalizedAlignment` come from the engine's own
 * timing (eSpeak NG's word events, the neural model's documented approximation), each message's
 * times counting from the start of its own audio as the official SDKs' types describe them, and
 * `isFinal: true` only in the last message, after the client's end of input. Checked against the
 * audio itself: each message's characters placed in the whole audio (the messages before it are
 * its offset), the pauses of commas and full stops are silent and the words are speech.
 */
const RACHEL = '21m00Tcm4TlvDq8ikWAM';
const JOE = 'jo5Pq8Nr2Lm7Kv4Ws9Xz';
/** The headers the Python SDK (`elevenlabs` 2.78) sends on the WebSocket upgrade of `convert_realtime`. */
const PYTHON_SDK_HEADERS = {
  'X-Fern-Language': 'Python',
  'X-Fern-SDK-Name': 'elevenlabs',
  'X-Fern-SDK-Version': '2.78.0',
};
const neural = piperModelAvailable(PIPER_VOICES_DIR);

let stack: SpeechStack;
beforeAll(async () => {
  stack = await startSpeechStack({ workers: 1, concurrency: 2, frameTimeoutMs: 90_000, neural });
}, 90_000);
afterAll(async () => {
  await stack?.stop();
}, 30_000);

interface WsAlignment {
  chars: string[];
  charStartTimesMs: number[];
  charDurationsMs: number[];
}
interface Message {
  audio?: string | null;
  isFinal?: boolean | null;
  alignment?: WsAlignment | null;
  normalizedAlignment?: WsAlignment | null;
}

/**
 * A session as the Python SDK's `convert_realtime` runs it (its first message, each text with
 * `try_trigger_generation`, then the empty end of input) in 16 kHz PCM, whose byte count gives
 * each message's duration exactly.
 */
async function realtime(path: string, texts: string[]): Promise<Message[]> {
  const s = connectSession(`${stack.wsUrl}${path}${path.includes('?') ? '&' : '?'}output_format=pcm_16000`, {
    'xi-api-key': stack.apiKey,
    ...PYTHON_SDK_HEADERS,
  });
  await s.opened;
  s.ws.send(
    JSON.stringify({
      text: ' ',
      try_trigger_generation: true,
      voice_settings: null,
      generation_config: { chunk_length_schedule: [50] },
    }),
  );
  for (const text of texts) s.ws.send(JSON.stringify({ text, try_trigger_generation: true }));
  s.ws.send(JSON.stringify({ text: '' }));
  expect(await s.closed).toEqual({ code: 1000, reason: 'done' });
  expect(s.binary).toHaveLength(0);
  return s.texts.map((t) => JSON.parse(t) as Message);
}

const seconds = (audio: string | null | undefined) => Buffer.from(audio ?? '', 'base64').length / 2 / RATE;

/** Each message's alignment placed in the whole audio: its times plus the duration of the messages before it. */
function placed(messages: Message[], key: 'alignment' | 'normalizedAlignment'): Alignment {
  const whole: Alignment = { characters: [], characterStartTimesSeconds: [], characterEndTimesSeconds: [] };
  let offset = 0;
  for (const m of messages) {
    const a = m[key];
    if (a) {
      whole.characters.push(...a.chars);
      whole.characterStartTimesSeconds.push(...a.charStartTimesMs.map((ms) => offset + ms / 1000));
      whole.characterEndTimesSeconds.push(
        ...a.charStartTimesMs.map((ms, i) => offset + (ms + a.charDurationsMs[i]!) / 1000),
      );
    }
    offset += seconds(m.audio);
  }
  return whole;
}

/** The hosted shape's messages: audio messages with `isFinal` null, then `{"isFinal": true}` alone, last. */
function expectHostedMessages(messages: Message[]): Message[] {
  expect(messages.at(-1)).toEqual({ isFinal: true });
  const audio = messages.slice(0, -1);
  expect(audio.length).toBeGreaterThan(0);
  for (const m of audio)
    expect({ isFinal: m.isFinal, audio: typeof m.audio }).toEqual({ isFinal: null, audio: 'string' });
  return audio;
}

/**
 * Each timed message's times count from the start of its own audio: its first character starts
 * within it and its last one ends where its audio ends (the piece's final pause is its full stop's).
 */
function expectTimesPerMessage(audio: Message[]): void {
  for (const m of audio.filter((x) => x.alignment)) {
    const a = m.alignment!;
    const durationMs = seconds(m.audio) * 1000;
    expect(a.charStartTimesMs[0]!).toBeGreaterThanOrEqual(0);
    expect(a.charStartTimesMs[0]!).toBeLessThan(durationMs / 2);
    expect(Math.abs(a.charStartTimesMs.at(-1)! + a.charDurationsMs.at(-1)! - durationMs)).toBeLessThanOrEqual(2);
  }
}

describe('stream-input in the hosted shape: the engine’s alignment per message', () => {
  it('eSpeak NG: each sentence’s message timed from its own audio; placed in the whole audio, pauses silent and words spoken; isFinal last', async () => {
    const texts = [
      'Hello there, my good friend. ',
      'This sentence comes after a full stop! ',
      'And a third one follows it.',
    ];
    const messages = await realtime(`/v1/text-to-speech/${RACHEL}/stream-input`, texts);
    const audio = expectHostedMessages(messages);
    // The session's first sentence is cut at its clause so audio starts at once: four pieces.
    const pieces = shortenFirstPiece(texts.map((t) => t.trim()));
    expect(pieces).toEqual([
      'Hello there,',
      'my good friend.',
      'This sentence comes after a full stop!',
      'And a third one follows it.',
    ]);
    expect(audio.filter((m) => m.alignment)).toHaveLength(4);
    expectTimesPerMessage(audio);

    const pcm = await decode(Buffer.concat(audio.map((m) => Buffer.from(m.audio!, 'base64'))), [
      '-f',
      's16le',
      '-ar',
      String(RATE),
      '-ac',
      '1',
    ]);
    const alignment = placed(audio, 'alignment');
    // Each message holds its piece's characters, every one after the first led by the space between pieces.
    const spoken = pieces.join(' ');
    expectWellFormed(alignment, spoken, pcm.length / RATE);
    // The comma, and the full stop and exclamation mark between the messages.
    expectAlignedWithAudio(alignment, pcm, 3);
    const normalized = placed(audio, 'normalizedAlignment');
    expectWellFormed(normalized, spoken, pcm.length / RATE);
    expectAlignedWithAudio(normalized, pcm, 3);
  }, 60_000);

  (neural ? it : it.skip)(
    'the neural model: the documented approximation, the pauses of commas and full stops where the audio is silent',
    async () => {
      const texts = ['Good morning, my friend, how are you? ', 'The neural voice is speaking now.'];
      const messages = await realtime(`/v1/text-to-speech/${JOE}/stream-input?model_id=piper_en_us_v1&seed=7`, texts);
      const audio = expectHostedMessages(messages);
      expectTimesPerMessage(audio);
      const pcm = await decode(Buffer.concat(audio.map((m) => Buffer.from(m.audio!, 'base64'))), [
        '-f',
        's16le',
        '-ar',
        String(RATE),
        '-ac',
        '1',
      ]);
      const alignment = placed(audio, 'alignment');
      expectWellFormed(alignment, shortenFirstPiece(texts.map((t) => t.trim())).join(' '), pcm.length / RATE);
      expectAlignedWithAudio(alignment, pcm, 2);
    },
    120_000,
  );
});
