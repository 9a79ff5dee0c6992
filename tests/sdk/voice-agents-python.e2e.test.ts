import { eventually } from '@platform/testing';
import { LIVEKIT_PLUGIN_VERSION, PIPECAT_VERSION, stepResult } from './python-sdk';
import { startSdkPlatform, type SdkCaller, type SdkPlatform } from './sdk-platform';

/**
 * The voice-agent frameworks' ElevenLabs services (pinned in requirements.txt) against the whole
 * platform, configured as docs/speech.md ("Voice agents") says: the library's own base-URL setting
 * and an API key of the platform, nothing else. Pipecat's `ElevenLabsHttpTTSService`
 * (`/stream/with-timestamps`) and `ElevenLabsTTSService` (`multi-stream-input`) in a pipeline with
 * no transport; LiveKit Agents' `elevenlabs.TTS`, `synthesize()` (`/stream`) and `stream()`
 * (`multi-stream-input`, twice on one socket). Each asserts what an agent's transport would get:
 * audio of the text's duration at the rate the library reports, word timings in order that cover
 * the text, no error, every utterance finished, and the account charged for it.
 */
const RACHEL = '21m00Tcm4TlvDq8ikWAM';
const UTTERANCES = ['Hello from a voice agent on this platform.', 'A second sentence follows in its own context.'];
/** 24 kHz, 16-bit mono PCM. */
const PCM_24K_BYTES_PER_SECOND = 24_000 * 2;

/** A plausible length of speech for `text`: 0.15 to 1 s a word (any voice, any rate), plus a second of edges. */
function expectSpokenDuration(seconds: number, text: string): void {
  const words = text.split(/\s+/).length;
  expect(seconds).toBeGreaterThan(0.15 * words);
  expect(seconds).toBeLessThan(words + 1);
}

/** The words of `text` as the libraries report them (split at spaces, punctuation kept). */
function wordsOf(text: string): string[] {
  return text.split(/\s+/).filter(Boolean);
}

/** Whitespace runs as one space, none at the ends: how a history item's text is compared with what was said. */
const squeezed = (text: string) => text.replace(/\s+/g, ' ').trim();

const characterCount = (text: string) => [...text].length;

/**
 * The account's charge and history once they settle: `history` the texts of its complete history
 * items (HTTP requests; WebSocket segments are not written to history, docs/speech.md) and
 * `characters` the characters charged (a WebSocket segment is charged its own characters).
 */
async function expectCharged(caller: SdkCaller, expected: { history: string[]; characters: number }): Promise<void> {
  const settled = async () => {
    const { history } = await caller.client.history.list({ pageSize: 50 });
    const { characterCount: charged } = await caller.client.user.subscription.get();
    return {
      history: history
        .filter((h) => h.state === 'complete')
        .map((h) => squeezed(h.text ?? ''))
        .sort(),
      characters: charged,
    };
  };
  const want = { history: expected.history.map(squeezed).sort(), characters: expected.characters };
  await eventually(async () => JSON.stringify(await settled()) === JSON.stringify(want), 30_000).catch(() => undefined);
  expect(await settled()).toEqual(want);
}

interface PipecatRun {
  errors: string[];
  events: ({ started: string } | { stopped: string })[];
  audio: { context_id: string; bytes: number; frames: number }[];
  sample_rates: number[];
  num_channels: number[];
  words: { text: string; pts_s: number | null; context_id: string | null }[];
}

/**
 * What both Pipecat services must give for UTTERANCES: two contexts of 24 kHz mono audio of the
 * text's length, a start and a stop per context, no error frame, and one word frame per word of the
 * text, in order, with presentation times that increase across both utterances and span no more
 * than the utterance's audio (Pipecat adds each message's alignment times to a running clock).
 */
function expectPipecatSpoke(run: PipecatRun): void {
  expect(run.errors).toEqual([]);
  expect(run.audio).toHaveLength(UTTERANCES.length);
  expect(new Set(run.sample_rates)).toEqual(new Set([24_000]));
  expect(new Set(run.num_channels)).toEqual(new Set([1]));
  const contexts = run.audio.map((a) => a.context_id);
  expect(new Set(contexts).size).toBe(UTTERANCES.length);
  run.audio.forEach((a, i) => {
    expect(a.bytes % 2).toBe(0);
    expectSpokenDuration(a.bytes / PCM_24K_BYTES_PER_SECOND, UTTERANCES[i]!);
  });
  // One start and one stop per utterance, the stop after the start.
  for (const id of contexts) {
    const started = run.events.findIndex((e) => 'started' in e && e.started === id);
    const stopped = run.events.findIndex((e) => 'stopped' in e && e.stopped === id);
    expect({ id, started: started >= 0, stoppedAfter: stopped > started }).toEqual({
      id,
      started: true,
      stoppedAfter: true,
    });
  }
  expect(run.words.map((w) => w.text)).toEqual(UTTERANCES.flatMap(wordsOf));
  const times = run.words.map((w) => w.pts_s);
  expect(times.every((t) => typeof t === 'number')).toBe(true);
  // Never back in time; the next utterance's first word may share the previous one's last time
  // (Pipecat starts an utterance's clock at the later of now and the last word's time).
  for (let i = 1; i < times.length; i++) expect(times[i]!).toBeGreaterThanOrEqual(times[i - 1]!);
  let first = 0;
  UTTERANCES.forEach((text, i) => {
    const count = wordsOf(text).length;
    const own = times.slice(first, first + count) as number[];
    // Pipecat stamps words with presentation times on its own playback clock, never earlier than the last word
    // stamped: a word whose alignment arrives after its audio was queued may share the previous word's time
    // (seen with the last word of an utterance, one run in two). Order is checked above; the spread below.
    for (let j = 1; j < own.length; j++) expect(own[j]!).toBeGreaterThanOrEqual(own[j - 1]!);
    const span = own.at(-1)! - own[0]!;
    const seconds = run.audio[i]!.bytes / PCM_24K_BYTES_PER_SECOND;
    // The last word starts within the audio, and not in its first third: the times are this utterance's.
    expect(span).toBeLessThan(seconds);
    expect(span).toBeGreaterThan(seconds / 3);
    first += count;
  });
}

interface LiveKitRun {
  reported_sample_rate: number;
  frame_sample_rates: number[];
  channels: number[];
  pcm_bytes: number;
  frames: number;
  finals: number;
  words: { text: string; start: number; end: number }[];
}

/** The plugin's frames: PCM at the rate it reports (the encoding's), mono, the text's duration. */
function expectLiveKitAudio(run: LiveKitRun, rate: number, text: string): void {
  expect(run.reported_sample_rate).toBe(rate);
  expect(run.frame_sample_rates).toEqual([rate]);
  expect(run.channels).toEqual([1]);
  expectSpokenDuration(run.pcm_bytes / (rate * 2), text);
}

let sdk: SdkPlatform;

beforeAll(async () => {
  sdk = await startSdkPlatform({ free: { character_limit: 100_000 } });
}, 600_000);

afterAll(async () => {
  await sdk?.stop();
}, 30_000);

describe(`Pipecat (pipecat-ai ${PIPECAT_VERSION}) ElevenLabs services, url/base_url set to the gateway`, () => {
  it.each([
    ['ElevenLabsHttpTTSService (/stream/with-timestamps): a request per utterance', 'http', UTTERANCES],
    ['ElevenLabsTTSService (multi-stream-input): two contexts on one socket', 'websocket', []],
  ])(
    '%s: audio, word timestamps, both finished, charged',
    async (_name, service, history) => {
      const me = await sdk.newCaller(`Pipecat ${service}`);
      const steps = await me.python('pipecat_tts', { service, voice: RACHEL, utterances: UTTERANCES });
      expectPipecatSpoke(stepResult<PipecatRun>(steps, 'pipeline'));
      // A request per utterance is a history item each; WebSocket segments are charged, not in history.
      await expectCharged(me, { history, characters: UTTERANCES.reduce((n, u) => n + characterCount(u), 0) });
    },
    240_000,
  );
});

describe(`LiveKit Agents (livekit-plugins-elevenlabs ${LIVEKIT_PLUGIN_VERSION}) elevenlabs.TTS, base_url set to the gateway`, () => {
  const TEXT = UTTERANCES.join(' ');

  it('synthesize() with encoding pcm_24000: 24 kHz audio of the text, charged', async () => {
    const me = await sdk.newCaller('LiveKit synthesize');
    const steps = await me.python('livekit_tts', { voice: RACHEL, encoding: 'pcm_24000', text: TEXT });
    expectLiveKitAudio(stepResult<LiveKitRun>(steps, 'synthesize'), 24_000, TEXT);
    await expectCharged(me, { history: [TEXT], characters: characterCount(TEXT) });
  }, 240_000);

  it('synthesize() with the default encoding (mp3_22050_32): decoded by the plugin to 22.05 kHz audio of the text', async () => {
    const me = await sdk.newCaller('LiveKit synthesize mp3');
    const steps = await me.python('livekit_tts', { voice: RACHEL, text: TEXT });
    expectLiveKitAudio(stepResult<LiveKitRun>(steps, 'synthesize'), 22_050, TEXT);
  }, 240_000);

  it('stream() (multi-stream-input) twice on one TTS: the second reuses the socket; audio and word timings of both sentences', async () => {
    const me = await sdk.newCaller('LiveKit stream');
    const steps = await me.python('livekit_tts', {
      voice: RACHEL,
      encoding: 'pcm_24000',
      text: TEXT,
      sentences: UTTERANCES,
      websocket: true,
    });
    const streams = stepResult<(LiveKitRun & { connection_reused: boolean })[]>(steps, 'streams');
    expect(streams.map((s) => s.connection_reused)).toEqual([false, true]);
    for (const run of streams) {
      expectLiveKitAudio(run, 24_000, TEXT);
      expect(run.words.map((w) => w.text.trim())).toEqual(wordsOf(TEXT));
      // Each word's times within the audio. Not in order across audio messages (a word whose end the
      // next message gives may end before it starts): the plugin reads alignment times as running
      // through the context, the protocol sends them from each message's start (docs/speech.md).
      const seconds = run.pcm_bytes / PCM_24K_BYTES_PER_SECOND;
      for (const w of run.words)
        expect({ word: w.text, inAudio: [w.start, w.end].every((t) => t >= 0 && t <= seconds + 0.05) }).toEqual({
          word: w.text,
          inAudio: true,
        });
    }
    // synthesize() first (a history item), then two streams, each sentence a segment charged its own characters.
    const sentences = UTTERANCES.reduce((n, u) => n + characterCount(u), 0);
    await expectCharged(me, { history: [TEXT], characters: characterCount(TEXT) + 2 * sentences });
  }, 240_000);
});
