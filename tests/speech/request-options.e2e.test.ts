import { ElevenLabsClient } from '@elevenlabs/elevenlabs-js';
import { pcmSamples, readAll, rms } from './support/audio';
import { startSpeechStack, type SpeechStack } from './support/speech-stack';
import { connectSession, errorOf, type Session } from './support/ws-session';

/**
 * The hosted API's request options the official SDKs send (docs/speech.md, "Request options"),
 * through the speech edge and real worker processes: the ones our engines honour change what is
 * generated, the others are accepted; malformed values are 400 `bad_request` naming the option.
 */
const RACHEL = '21m00Tcm4TlvDq8ikWAM';

let stack: SpeechStack;
let client: ElevenLabsClient;
beforeAll(async () => {
  stack = await startSpeechStack({ workers: 1, concurrency: 2 });
  client = new ElevenLabsClient({ apiKey: stack.apiKey, baseUrl: stack.url, maxRetries: 0 });
}, 90_000);
afterAll(async () => {
  await stack?.stop();
}, 30_000);

function tts(body: Record<string, unknown>, query = '', path = '') {
  return fetch(`${stack.url}/v1/text-to-speech/${RACHEL}${path}${query}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'xi-api-key': stack.apiKey },
    body: JSON.stringify({ text: 'Options are accepted here.', ...body }),
  });
}

describe('text to speech over HTTP', () => {
  it('the JS SDK sends every option (convert and stream) and gets speech', async () => {
    const options = {
      text: 'The middle sentence, with its neighbours around it.',
      outputFormat: 'pcm_16000' as const,
      seed: 42,
      previousText: 'The sentence before.',
      nextText: 'The sentence after.',
      applyTextNormalization: 'off' as const,
      optimizeStreamingLatency: 3,
    };
    const full = await readAll(await client.textToSpeech.convert(RACHEL, options));
    expect(rms(pcmSamples(full.bytes))).toBeGreaterThan(500);
    const streamed = await readAll(await client.textToSpeech.stream(RACHEL, options));
    expect(rms(pcmSamples(streamed.bytes))).toBeGreaterThan(500);
  });

  it('seed: the same seed and request give the same bytes (eSpeak NG is deterministic)', async () => {
    const once = Buffer.from(await (await tts({ seed: 7, output_format: 'mp3_44100_128' })).arrayBuffer());
    const again = Buffer.from(await (await tts({ seed: 7, output_format: 'mp3_44100_128' })).arrayBuffer());
    expect(once.length).toBeGreaterThan(1000);
    expect(again.equals(once)).toBe(true);
  });

  it.each([
    ['seed', { seed: -1 }, ''],
    ['seed', { seed: 1.5 }, ''],
    ['seed', { seed: 4294967296 }, ''],
    ['seed', { seed: 'seven' }, ''],
    ['previous_text', { previous_text: 5 }, ''],
    ['next_text', { next_text: ['a'] }, ''],
    ['apply_text_normalization', { apply_text_normalization: 'sometimes' }, ''],
    ['optimize_streaming_latency', {}, '?optimize_streaming_latency=5'],
    ['optimize_streaming_latency', {}, '?optimize_streaming_latency=fast'],
    ['optimize_streaming_latency', { optimize_streaming_latency: -1 }, ''],
  ])('a malformed %s is a 400 bad_request naming it (%j %s)', async (name, body, query) => {
    for (const path of ['', '/stream']) {
      const res = await tts(body, query, path);
      expect(res.status).toBe(400);
      expect(await res.json()).toEqual({ detail: { status: 'bad_request', message: expect.stringContaining(name) } });
    }
  });
});

interface JsonMessage {
  audio?: string;
  isFinal?: boolean;
  alignment?: { chars: string[] } | null;
}

/** Each aligned message's piece of text (without the space that starts every message after the first). */
const aligned = (s: Session) =>
  s.texts
    .map((t) => JSON.parse(t) as JsonMessage)
    .filter((m) => m.alignment)
    .map((m, i) => {
      const text = m.alignment!.chars.join('');
      expect(text.startsWith(' ')).toBe(i > 0);
      return text.trimStart();
    });

describe('optimize_streaming_latency over HTTP', () => {
  const LONG =
    'This first sentence runs on for quite a while before it finally comes to its end, so the first audio can start sooner. A second one.';
  /** The characters of each line of `/stream/with-timestamps` (one line per piece of text synthesised). */
  async function streamedPieces(query: string): Promise<string[]> {
    const res = await tts({ text: LONG, output_format: 'pcm_16000' }, query, '/stream/with-timestamps');
    expect(res.status).toBe(200);
    const lines = (await res.text()).split('\n').filter((l) => l.trim());
    return lines
      .map((l) => JSON.parse(l) as { alignment: { characters: string[] } | null })
      .filter((l) => l.alignment && l.alignment.characters.length > 0)
      .map((l) => l.alignment!.characters.join('').trim());
  }

  // The first piece is cut short by default (planPieces), so every level streams the same plan.
  it('makes the first streamed piece a few words at every level, level 0 (the default) included', async () => {
    const fast = await streamedPieces('?optimize_streaming_latency=4');
    expect(fast[0]!.length).toBeLessThanOrEqual(30);
    expect(LONG.startsWith(fast[0]!)).toBe(true);
    const plain = await streamedPieces('');
    expect(plain[0]).toBe('This first sentence');
    expect(plain.join(' ')).toBe(LONG);
  });
});

describe('stream-input', () => {
  const open = (query: string) =>
    connectSession(
      `${stack.wsUrl}/v1/text-to-speech/${RACHEL}/stream-input?output_format=pcm_16000&shape=hosted&${query}`,
    );
  const LONG_SENTENCE =
    'This first sentence runs on for quite a while before it finally comes to its end, so the first audio can start sooner.';

  /** One long sentence, flushed; the session once it has closed normally. */
  async function speakLong(query: string): Promise<Session> {
    const s = open(query);
    await s.opened;
    s.ws.send(JSON.stringify({ text: ' ', xi_api_key: stack.apiKey }));
    s.ws.send(JSON.stringify({ text: LONG_SENTENCE, flush: true }));
    s.ws.send(JSON.stringify({ text: '' }));
    expect((await s.closed).code).toBe(1000);
    return s;
  }

  it('optimize_streaming_latency=4 makes the first piece of audio a few words, not the whole sentence', async () => {
    const pieces = aligned(await speakLong('optimize_streaming_latency=4'));
    expect(pieces[0]!.length).toBeLessThanOrEqual(30);
    expect(pieces.join(' ')).toBe(LONG_SENTENCE);
  });

  it('without it the first piece is a few words too (the session starts at once), the rest of the sentence next', async () => {
    expect(aligned(await speakLong(''))).toEqual([
      'This first sentence',
      LONG_SENTENCE.slice('This first sentence '.length),
    ]);
  });

  it('chunk_length_schedule: text waits until the buffer holds the scheduled length, then is generated in one go', async () => {
    // Each generation checks the key once more (stream-input's per-segment check): the count of
    // lookups after the first is the count of generations.
    const run = async (first: Record<string, unknown>) => {
      const s = open('');
      await s.opened;
      s.ws.send(JSON.stringify({ text: ' ', xi_api_key: stack.apiKey, ...first }));
      for (let i = 1; i <= 7; i += 1) s.ws.send(JSON.stringify({ text: `Number ${i}. ` }));
      s.ws.send(JSON.stringify({ text: '' }));
      expect((await s.closed).code).toBe(1000);
      return s;
    };
    const lookups = stack.keyLookups();
    const plain = await run({});
    const plainGenerations = stack.keyLookups() - lookups - 1;
    expect(plainGenerations).toBe(7);
    expect(aligned(plain)).toEqual([
      'Number 1.',
      'Number 2.',
      'Number 3.',
      'Number 4.',
      'Number 5.',
      'Number 6.',
      'Number 7.',
    ]);

    const start = stack.keyLookups();
    const scheduled = await run({ generation_config: { chunk_length_schedule: [50] } });
    // Ten characters a message: the buffer first holds 50 (trailing space aside) with the sixth sentence, which
    // starts one generation of all six; the seventh comes with the end of input.
    expect(stack.keyLookups() - start - 1).toBe(2);
    expect(aligned(scheduled).join(' ')).toBe('Number 1. Number 2. Number 3. Number 4. Number 5. Number 6. Number 7.');
  });

  it.each([
    [{ generation_config: { chunk_length_schedule: [10] } }, 'chunk_length_schedule'],
    [{ generation_config: { chunk_length_schedule: 'soon' } }, 'chunk_length_schedule'],
    [{ generation_config: { chunk_length_schedule: [] } }, 'chunk_length_schedule'],
    [{ generation_config: 'fast' }, 'generation_config'],
  ])('a malformed generation_config %j closes 1008 with bad_request', async (first, name) => {
    const s = open('');
    await s.opened;
    s.ws.send(JSON.stringify({ text: ' ', xi_api_key: stack.apiKey, ...first }));
    expect((await s.closed).code).toBe(1008);
    expect(errorOf(s)).toEqual({ status: 'bad_request', message: expect.stringContaining(name) });
  });

  it.each([['optimize_streaming_latency=9'], ['seed=-3'], ['apply_text_normalization=never']])(
    'a malformed query option %s closes 1008 with bad_request',
    async (query) => {
      const s = open(query);
      const close = await s.closed;
      expect(close.code).toBe(1008);
      expect(errorOf(s)).toEqual({ status: 'bad_request', message: expect.stringContaining(query.split('=')[0]!) });
    },
  );
});
