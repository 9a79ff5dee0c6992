import { randomBytes } from 'node:crypto';
import WebSocket from 'ws';
import { pcmSamples, rms } from './support/audio';
import { startSpeechStack, workerJobCounts, type SpeechStack } from './support/speech-stack';
import { connectSession, errorOf, type Session } from './support/ws-session';

const RACHEL = '21m00Tcm4TlvDq8ikWAM';

let stack: SpeechStack;
beforeAll(async () => {
  stack = await startSpeechStack({ workers: 1, concurrency: 2 });
}, 90_000);
afterAll(async () => {
  await stack?.stop();
}, 30_000);

function connect(path: string, headers: Record<string, string> = {}, base = stack.wsUrl): Session {
  return connectSession(`${base}${path}`, headers);
}

async function until(check: () => boolean | Promise<boolean>, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('condition not met in time');
}

const init = (extra: Record<string, unknown> = {}) =>
  JSON.stringify({
    text: ' ',
    voice_settings: { stability: 0.5, similarity_boost: 0.8 },
    xi_api_key: stack.apiKey,
    ...extra,
  });

describe('stream-input: text in, audio out', () => {
  it('text in five messages with a flush yields audio in order, then a final message and a normal close', async () => {
    const s = connect(`/v1/text-to-speech/${RACHEL}/stream-input?output_format=pcm_16000`);
    await s.opened;
    s.ws.send(init());
    const parts = [
      'Hello there, ',
      'this arrives in pieces. ',
      'The second sentence ',
      'follows the first',
      ' and ends here.',
    ];
    for (const [i, text] of parts.entries()) s.ws.send(JSON.stringify({ text, flush: i === parts.length - 1 }));
    s.ws.send(JSON.stringify({ text: '' }));
    const closed = await s.closed;
    expect(closed.code).toBe(1000);
    expect(s.texts.map((t) => JSON.parse(t))).toEqual([{ isFinal: true }]);
    const pcm = pcmSamples(Buffer.concat(s.binary));
    expect(pcm.length / 16000).toBeGreaterThan(2);
    expect(rms(pcm)).toBeGreaterThan(500);
  });

  it('JSON messages on request: base64 audio with character alignment, in the order sent', async () => {
    const s = connect(
      `/v1/text-to-speech/eleven_flash_v2_5/stream-input?voice_id=${RACHEL}&message_format=json&output_format=mp3_22050_32`,
    );
    await s.opened;
    s.ws.send(init());
    const sentences = ['One sentence first.', 'Then a second one.', 'A third.', 'And a fourth!', 'Finally five.'];
    for (const text of sentences) s.ws.send(JSON.stringify({ text: `${text} ` }));
    s.ws.send(JSON.stringify({ text: '' }));
    expect((await s.closed).code).toBe(1000);
    expect(s.binary).toHaveLength(0);
    const messages = s.texts.map(
      (t) =>
        JSON.parse(t) as {
          audio?: string;
          isFinal: boolean | null;
          alignment?: { chars: string[]; charStartTimesMs: number[] } | null;
        },
    );
    expect(messages.at(-1)).toEqual({ isFinal: true });
    // The hosted API's audio messages: isFinal null in each, true only in the last message.
    const audio = messages.slice(0, -1);
    expect(audio.map((m) => m.isFinal)).toEqual(audio.map(() => null));
    expect(Buffer.concat(audio.map((m) => Buffer.from(m.audio ?? '', 'base64'))).length).toBeGreaterThan(1000);
    const aligned = audio.flatMap((m) => (m.alignment ? [m.alignment] : []));
    expect(aligned.map((a) => a.chars.join('')).join('')).toBe(sentences.join(' '));
    // Each message's times count from the start of its own audio, in order within it.
    for (const { charStartTimesMs: starts } of aligned) {
      expect(starts[0]).toBeGreaterThanOrEqual(0);
      expect(starts).toEqual([...starts].sort((a, b) => a - b));
    }
  });

  it('accepts the key in the xi-api-key header and the voice in the first message', async () => {
    const s = connect('/v1/text-to-speech/espeak_ng_v1/stream-input?output_format=pcm_8000', {
      'xi-api-key': stack.apiKey,
    });
    await s.opened;
    s.ws.send(JSON.stringify({ text: ' ', voice_id: RACHEL }));
    s.ws.send(JSON.stringify({ text: 'Short and sweet.', flush: true }));
    s.ws.send(JSON.stringify({ text: '' }));
    expect((await s.closed).code).toBe(1000);
    expect(Buffer.concat(s.binary).length).toBeGreaterThan(8000);
  });

  it('accepts the key in the query string (?xi_api_key=), with none in the first message', async () => {
    const s = connect(
      `/v1/text-to-speech/${RACHEL}/stream-input?output_format=pcm_8000&xi_api_key=${encodeURIComponent(stack.apiKey)}`,
    );
    await s.opened;
    s.ws.send(JSON.stringify({ text: ' ' }));
    s.ws.send(JSON.stringify({ text: 'Keyed by the query string.', flush: true }));
    s.ws.send(JSON.stringify({ text: '' }));
    expect((await s.closed).code).toBe(1000);
    expect(s.texts.map((t) => JSON.parse(t))).toEqual([{ isFinal: true }]);
    const pcm = pcmSamples(Buffer.concat(s.binary));
    expect(pcm.length / 8000).toBeGreaterThan(1);
    expect(rms(pcm)).toBeGreaterThan(500);
  });

  it('a client that closes early cancels its job (the worker counts it)', async () => {
    const metrics = () => workerJobCounts(stack.workers[0]!);
    const before = (await metrics()).jobsCancelled;
    const s = connect(`/v1/text-to-speech/${RACHEL}/stream-input?output_format=mp3_44100_192`);
    await s.opened;
    s.ws.send(init());
    const long = Array.from(
      { length: 60 },
      (_, i) => `This is sentence number ${i + 1}, long enough to take a moment to speak.`,
    ).join(' ');
    s.ws.send(JSON.stringify({ text: long, flush: true }));
    await until(() => s.binary.length > 0);
    s.ws.terminate();
    await until(async () => (await metrics()).jobsCancelled > before);
    // And the job's keys are gone.
    await until(async () => (await stack.redis.keys(`${stack.prefix}:job:*:audio`)).length === 0);
  });
});

describe('stream-input errors: a JSON error in the speech shape, then a close', () => {
  it.each([
    ['a first message that is not JSON', 'hello', 1008, 'bad_request'],
    ['a first message without text', JSON.stringify({ xi_api_key: 'x' }), 1008, 'bad_request'],
    ['a bad key', JSON.stringify({ text: ' ', xi_api_key: 'sk_wrong' }), 1008, 'invalid_api_key'],
    ['no key at all', JSON.stringify({ text: ' ' }), 1008, 'unauthorized'],
    [
      'voice settings out of range',
      JSON.stringify({ text: ' ', xi_api_key: 'KEY', voice_settings: { stability: 2 } }),
      1008,
      'bad_request',
    ],
  ])('%s', async (_name, first, code, status) => {
    const s = connect(`/v1/text-to-speech/${RACHEL}/stream-input`);
    await s.opened;
    s.ws.send(first.replace('KEY', stack.apiKey));
    expect((await s.closed).code).toBe(code);
    expect(errorOf(s)?.status).toBe(status);
  });

  it('an unknown voice', async () => {
    const s = connect('/v1/text-to-speech/NoSuchVoice123/stream-input');
    await s.opened;
    s.ws.send(init());
    expect((await s.closed).code).toBe(1008);
    expect(errorOf(s)?.status).toBe('voice_not_found');
  });

  it('an unknown model in the query, and an unknown output format', async () => {
    for (const query of ['model_id=nope', 'output_format=wav_1']) {
      const s = connect(`/v1/text-to-speech/${RACHEL}/stream-input?${query}`);
      await s.opened;
      expect((await s.closed).code).toBe(1008);
      expect(errorOf(s)?.status).toMatch(/model_not_found|bad_request/);
    }
  });

  it('a malformed path is refused without taking the server down', async () => {
    const ws = new WebSocket(`${stack.wsUrl}/v1/text-to-speech/%E0%A4%A/stream-input`);
    const status = await new Promise<number>((resolve) =>
      ws.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0)),
    );
    expect(status).toBe(400);
    const s = connect(`/v1/text-to-speech/${RACHEL}/stream-input?output_format=pcm_8000`);
    await s.opened;
    s.ws.close();
  });

  it('a bad key in the header is refused before any message', async () => {
    const s = connect(`/v1/text-to-speech/${RACHEL}/stream-input`, { 'xi-api-key': 'sk_wrong' });
    await s.opened;
    expect((await s.closed).code).toBe(1008);
    expect(errorOf(s)?.status).toBe('invalid_api_key');
  });

  it('a bad key in the query string is refused before any message', async () => {
    const s = connect(`/v1/text-to-speech/${RACHEL}/stream-input?xi_api_key=sk_wrong`);
    await s.opened;
    expect((await s.closed).code).toBe(1008);
    expect(errorOf(s)?.status).toBe('invalid_api_key');
    expect(s.binary).toHaveLength(0);
  });

  it('the plan concurrency limit', async () => {
    stack.setSessionLimit(0);
    try {
      const s = connect(`/v1/text-to-speech/${RACHEL}/stream-input`);
      await s.opened;
      s.ws.send(init());
      expect((await s.closed).code).toBe(1013);
      expect(errorOf(s)?.status).toBe('too_many_requests');
    } finally {
      stack.setSessionLimit(100);
    }
  });

  it('the character quota', async () => {
    stack.setQuota(5);
    try {
      const s = connect(`/v1/text-to-speech/${RACHEL}/stream-input`);
      await s.opened;
      s.ws.send(init());
      s.ws.send(JSON.stringify({ text: 'This is more than five characters.', flush: true }));
      expect((await s.closed).code).toBe(1008);
      expect(errorOf(s)?.status).toBe('character_limit_exceeded');
    } finally {
      stack.setQuota(Number.POSITIVE_INFINITY);
    }
  });

  it('an idle connection times out', async () => {
    const s = connect(`/v1/text-to-speech/${RACHEL}/stream-input?inactivity_timeout=1`);
    await s.opened;
    s.ws.send(init());
    const started = Date.now();
    expect((await s.closed).code).toBe(1008);
    expect(Date.now() - started).toBeLessThan(5000);
    expect(errorOf(s)?.message).toMatch(/no message within 1 s/);
  });

  it('a flood of messages is cut off', async () => {
    const s = connect(`/v1/text-to-speech/${RACHEL}/stream-input`);
    await s.opened;
    s.ws.send(init());
    for (let i = 0; i < 500 && s.ws.readyState === WebSocket.OPEN; i++) s.ws.send(JSON.stringify({ text: 'a' }));
    expect((await s.closed).code).toBe(1013);
    expect(errorOf(s)?.status).toBe('too_many_requests');
  });

  it('an oversized message closes with 1009', async () => {
    const s = connect(`/v1/text-to-speech/${RACHEL}/stream-input`);
    await s.opened;
    s.ws.send(init());
    s.ws.send(JSON.stringify({ text: 'a'.repeat(100_000) }));
    expect((await s.closed).code).toBe(1009);
  });
});

describe('stream-input logins refused for their key pay from the client IP budget', () => {
  const RPS = 5;
  // A stack of its own: its budget must not see the other tests' refusals (all from 127.0.0.1).
  let guarded: SpeechStack;
  beforeAll(async () => {
    guarded = await startSpeechStack({ workers: 0, loginBudgetRps: RPS });
  }, 60_000);
  afterAll(async () => {
    await guarded?.stop();
  }, 30_000);

  const octet = () => Math.floor(Math.random() * 200) + 1;
  const madeUp = () => `sk_${randomBytes(32).toString('hex')}`;
  /** A login from `ip` (X-Forwarded-For; the socket's peer is loopback, a trusted proxy), or from loopback itself (''). */
  async function login(ip: string, where: 'first message' | 'header' | 'query', key: string) {
    const query = where === 'query' ? `?xi_api_key=${encodeURIComponent(key)}` : '';
    const headers: Record<string, string> = {
      ...(ip ? { 'x-forwarded-for': ip } : {}),
      ...(where === 'header' ? { 'xi-api-key': key } : {}),
    };
    const s = connect(`/v1/text-to-speech/${RACHEL}/stream-input${query}`, headers, guarded.wsUrl);
    await s.opened;
    s.ws.send(JSON.stringify({ text: ' ', ...(where === 'first message' ? { xi_api_key: key } : {}) }));
    s.ws.send(JSON.stringify({ text: '' })); // accepted: {"isFinal": true} and 1000, no synthesis needed
    const closed = await s.closed;
    return { ...closed, error: errorOf(s), texts: s.texts };
  }

  it(`made-up keys from one IP: ${RPS} refused invalid_api_key, then too_many_requests (1013) without a lookup; another IP is served`, async () => {
    const [attacker, elsewhere] = [`198.51.100.${octet()}`, `192.0.2.${octet()}`];
    const places = ['first message', 'header', 'query'] as const;
    const BURST = RPS + 4;
    const [burst, goodElsewhere] = await Promise.all([
      Promise.all(Array.from({ length: BURST }, (_, i) => login(attacker, places[i % places.length]!, madeUp()))),
      Promise.all(places.map((where) => login(elsewhere, where, guarded.apiKey))),
    ]);
    const refused = burst.filter((r) => r.error?.status === 'invalid_api_key');
    const limited = burst.filter((r) => r.error?.status === 'too_many_requests');
    expect(refused).toHaveLength(RPS);
    expect(limited).toHaveLength(BURST - RPS);
    for (const r of refused) expect(r.code).toBe(1008);
    for (const r of limited) {
      expect(r.code).toBe(1013);
      expect(r.error).toEqual({ status: 'too_many_requests', message: expect.stringContaining(`${RPS} per second`) });
      expect(r.texts).toHaveLength(1);
    }
    for (const r of goodElsewhere) {
      expect(r.code).toBe(1000);
      expect(r.texts.map((t) => JSON.parse(t))).toEqual([{ isFinal: true }]);
    }
    // With the IP's budget spent, even a valid key is refused before it is looked up (this stack has
    // no key cache); a missing key too. From another IP the same key is served.
    const lookups = guarded.keyLookups();
    const probe = await login(attacker, 'header', guarded.apiKey);
    expect(probe.code).toBe(1013);
    expect(probe.error?.status).toBe('too_many_requests');
    expect(guarded.keyLookups()).toBe(lookups);
    const none = connect(`/v1/text-to-speech/${RACHEL}/stream-input`, { 'x-forwarded-for': attacker }, guarded.wsUrl);
    await none.opened;
    none.ws.send(JSON.stringify({ text: ' ' }));
    expect((await none.closed).code).toBe(1013);
    expect(errorOf(none)?.status).toBe('too_many_requests');
    expect((await login(`192.0.2.${octet()}`, 'header', guarded.apiKey)).code).toBe(1000);
  });

  it('without X-Forwarded-For from a trusted hop, the socket peer is the one charged', async () => {
    // Refusals from loopback without the header are loopback's; a forwarded IP keeps its own budget.
    const results = await Promise.all(Array.from({ length: RPS + 1 }, () => login('', 'first message', madeUp())));
    expect(results.filter((r) => r.error?.status === 'too_many_requests')).toHaveLength(1);
    expect((await login(`203.0.113.${octet()}`, 'first message', madeUp())).error?.status).toBe('invalid_api_key');
  });
});
