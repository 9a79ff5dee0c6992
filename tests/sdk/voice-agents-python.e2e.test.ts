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
 * the text, no error, every utterance finished, and the account charged for it. Then what an agent
 * meets between utterances: an interruption (Pipecat's user-turn InterruptionFrame, LiveKit's
 * `aclose()` of a stream mid-speech) cuts the audio short and is charged only for what was
 * delivered; keep-alives hold an idle socket open past the gateway's inactivity timeout (shortened
 * here to IDLE_TIMEOUT_MS); Pipecat's EndFrame closes the socket with close_socket and a 1000 close.
 */
const RACHEL = '21m00Tcm4TlvDq8ikWAM';
const UTTERANCES = ['Hello from a voice agent on this platform.', 'A second sentence follows in its own context.'];
/** 24 kHz, 16-bit mono PCM. */
const PCM_24K_BYTES_PER_SECOND = 24_000 * 2;
/** An agent's long answer, one the user cuts short: sentences enough that its synthesis is still under way when the interruption arrives. */
const LONG_ANSWER = [
  'This answer runs on for a while, so that the listener has time to cut in.',
  'It talks about the weather in the mountains and the rivers below them.',
  'Then it describes a long walk along the coast on a windy afternoon.',
  'After that it lists the birds seen on the way, one after another.',
  'It goes on about the lighthouse, the harbour and the boats in it.',
  'There is a story about a fisherman and his dog, told at some length.',
  'It closes with a few words about the journey home in the evening light.',
  'Nobody should hear this far, because the user spoke up long before.',
];
/** The gateway's WebSocket inactivity timeout here (SPEECH_WS_IDLE_TIMEOUT_MS): shorter than the idle pause below, longer than Pipecat's 10 s keep-alive. */
const IDLE_TIMEOUT_MS = 15_000;

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
const charactersOf = (texts: string[]) => texts.reduce((n, t) => n + characterCount(t), 0);

/** The characters the account has been charged, through the platform's REST API. */
async function chargedCharacters(caller: SdkCaller): Promise<number> {
  return (await caller.client.user.subscription.get()).characterCount;
}

/**
 * The charge once `atLeast` characters of it have settled. An interrupted generation is charged only
 * for the segments delivered whole (docs/speech.md), so the caller bounds it from above.
 */
async function settledCharge(caller: SdkCaller, atLeast: number): Promise<number> {
  await eventually(async () => (await chargedCharacters(caller)) >= atLeast, 30_000).catch(() => undefined);
  return chargedCharacters(caller);
}

/**
 * The account's charge and history once they settle: `history` the texts of its complete history
 * items (HTTP requests; WebSocket segments are not written to history, docs/speech.md) and
 * `characters` the characters charged (a WebSocket segment is charged its own characters).
 */
async function expectCharged(caller: SdkCaller, expected: { history: string[]; characters: number }): Promise<void> {
  const settled = async () => {
    const { history } = await caller.client.history.list({ pageSize: 50 });
    const charged = await chargedCharacters(caller);
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
  /** The WebSocket service: how many times it connected, and the close frame the gateway sent on its last socket. */
  connections: number;
  close: { code: number | null; reason: string | null; gateway_first: boolean } | null;
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
  sdk = await startSdkPlatform({ free: { character_limit: 100_000 } }, undefined, {
    SPEECH_WS_IDLE_TIMEOUT_MS: String(IDLE_TIMEOUT_MS),
  });
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

  describe('ElevenLabsTTSService (multi-stream-input) between utterances', () => {
    const speak = (me: SdkCaller, options: { interrupt?: string; idle_seconds?: number; utterances?: string[] }) =>
      me
        .python('pipecat_tts', { service: 'websocket', voice: RACHEL, utterances: UTTERANCES, ...options })
        .then((steps) => stepResult<PipecatRun>(steps, 'pipeline'));

    it('an interruption (InterruptionFrame from the user turn) cuts the utterance short, charges only what was delivered; the next utterances are spoken whole', async () => {
      const me = await sdk.newCaller('Pipecat interruption');
      const long = LONG_ANSWER.join(' ');
      const run = await speak(me, { interrupt: long });
      expect(run.errors).toEqual([]);
      expect(run.connections).toBe(1);
      // The answer whole, the answer interrupted, then each utterance: a context each, in that order.
      expect(run.audio).toHaveLength(2 + UTTERANCES.length);
      const [whole, interrupted, ...next] = run.audio;
      expectSpokenDuration(whole!.bytes / PCM_24K_BYTES_PER_SECOND, long);
      expect(interrupted!.bytes).toBeGreaterThan(0);
      expect(interrupted!.bytes).toBeLessThan(whole!.bytes);
      next.forEach((a, i) => {
        expectSpokenDuration(a.bytes / PCM_24K_BYTES_PER_SECOND, UTTERANCES[i]!);
        const stoppedAfterStart =
          run.events.findIndex((e) => 'stopped' in e && e.stopped === a.context_id) >
          run.events.findIndex((e) => 'started' in e && e.started === a.context_id);
        expect({ utterance: i, stoppedAfterStart }).toEqual({ utterance: i, stoppedAfterStart: true });
      });
      // The last utterance's words exact (the first one's first word may carry a word of the interrupted
      // answer: Pipecat keeps reading the alignment of messages already on their way when it interrupted).
      const last = wordsOf(UTTERANCES.at(-1)!);
      expect(run.words.map((w) => w.text).slice(-last.length)).toEqual(last);
      // The answer whole is charged at least its sentences' characters (a segment each at most); the
      // interrupted one less than that (not its cancelled generation, nor the text after it), the utterances in full.
      const answer = charactersOf(LONG_ANSWER);
      const utterances = charactersOf(UTTERANCES);
      const charged = await settledCharge(me, answer + utterances);
      expect(charged).toBeGreaterThanOrEqual(answer + utterances);
      expect(charged).toBeLessThan(2 * answer + utterances);
    }, 240_000);

    it(`keep-alive: idle ${(IDLE_TIMEOUT_MS * 5) / 3 / 1000} s between utterances (the gateway's inactivity timeout ${IDLE_TIMEOUT_MS / 1000} s), the next utterance is spoken on the same socket`, async () => {
      const me = await sdk.newCaller('Pipecat keep-alive');
      const run = await speak(me, { idle_seconds: (IDLE_TIMEOUT_MS * 5) / 3 / 1000 });
      expectPipecatSpoke(run);
      // One connection: the socket was never closed for inactivity and reopened.
      expect(run.connections).toBe(1);
      await expectCharged(me, { history: [], characters: charactersOf(UTTERANCES) });
    }, 240_000);

    it('shutdown: EndFrame sends close_socket, the gateway closes 1000 first and the pipeline ends', async () => {
      const me = await sdk.newCaller('Pipecat shutdown');
      const run = await speak(me, { utterances: UTTERANCES.slice(0, 1) });
      expect(run.errors).toEqual([]);
      expect(run.audio).toHaveLength(1);
      expect(run.connections).toBe(1);
      expect(run.close).toEqual({ code: 1000, reason: 'close_socket', gateway_first: true });
    }, 240_000);
  });
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

  it('a stream closed mid-speech (aclose(), an agent interrupted) is charged only for what was delivered; a new stream() on the same TTS is spoken whole', async () => {
    const me = await sdk.newCaller('LiveKit interruption');
    const steps = await me.python('livekit_tts', {
      voice: RACHEL,
      encoding: 'pcm_24000',
      interrupt: LONG_ANSWER.join(' '),
      sentences: UTTERANCES,
    });
    const { interrupted, next } = stepResult<{
      interrupted: LiveKitRun & { connection_reused: boolean };
      next: LiveKitRun & { connection_reused: boolean };
    }>(steps, 'interrupted');
    expect(interrupted.pcm_bytes).toBeGreaterThan(0);
    // Far less than the answer whole would last (at least 0.15 s a word).
    expect(interrupted.pcm_bytes / PCM_24K_BYTES_PER_SECOND).toBeLessThan(0.15 * wordsOf(LONG_ANSWER.join(' ')).length);
    expect(next.connection_reused).toBe(true);
    expectLiveKitAudio(next, 24_000, TEXT);
    expect(next.words.map((w) => w.text.trim())).toEqual(wordsOf(TEXT));
    // The next stream in full (a segment per sentence); the interrupted one less than its sentences' characters.
    const sentences = charactersOf(UTTERANCES);
    const charged = await settledCharge(me, sentences);
    expect(charged).toBeGreaterThanOrEqual(sentences);
    expect(charged).toBeLessThan(sentences + charactersOf(LONG_ANSWER));
  }, 240_000);
});
