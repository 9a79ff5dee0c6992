import { eventually } from '@platform/testing';
import { mp3DurationSeconds, parseMp3, pcmSamples, rms } from './support/audio';
import { characterCount } from './support/account-state';
import { startSpeechStack, type SpeechStack } from './support/speech-stack';
import { connectSession, errorOf, type Session } from './support/ws-session';

/**
 * `multi-stream-input` through the gateway and a real worker, with the message sequences of the
 * voice-agent frameworks (the frameworks themselves: tests/sdk). Audio, alignment and charges are
 * checked as the listener and the account see them.
 */

const RACHEL = '21m00Tcm4TlvDq8ikWAM';

let stack: SpeechStack;
beforeAll(async () => {
  stack = await startSpeechStack({ workers: 1, concurrency: 2, accountSpeech: true, storeQuota: true });
}, 90_000);
afterAll(async () => {
  await stack?.stop();
}, 30_000);

interface Message {
  audio?: string;
  contextId?: string;
  isFinal?: boolean | null;
  alignment?: { chars: string[]; charStartTimesMs: number[]; charDurationsMs: number[] } | null;
  detail?: unknown;
}

const connect = (query = 'model_id=eleven_flash_v2_5&output_format=pcm_24000&auto_mode=true') =>
  connectSession(`${stack.wsUrl}/v1/text-to-speech/${RACHEL}/multi-stream-input?${query}`, {
    'xi-api-key': stack.apiKey,
  });
const messages = (s: Session) => s.texts.map((t) => JSON.parse(t) as Message);
const ofContext = (s: Session, id: string) => messages(s).filter((m) => m.contextId === id);
const finalOf = (s: Session, id: string) => ofContext(s, id).some((m) => m.isFinal === true);
const send = (s: Session, message: unknown) => s.ws.send(JSON.stringify(message));

describe('multi-stream-input: contexts on one socket', () => {
  it("speaks Pipecat's utterances (text, flush, close_context back to back), each as JSON audio with its context, alignment and isFinal", async () => {
    const s = connect();
    await s.opened;
    const turns = { t1: 'Hello there, this is the first turn.', t2: 'And this is the second one.' };
    for (const [id, text] of Object.entries(turns)) {
      send(s, { text: ' ', context_id: id });
      send(s, { text: `${text} `, context_id: id });
      send(s, { context_id: id, flush: true });
      send(s, { context_id: id, close_context: true });
      await eventually(() => finalOf(s, id), 30_000);
    }
    send(s, { context_id: 't1', close_context: true }); // closed again (Pipecat's interruption path): ignored
    send(s, { text: '' }); // the keep-alive
    expect(s.binary).toHaveLength(0);
    for (const [id, text] of Object.entries(turns)) {
      const audio = ofContext(s, id).filter((m) => m.audio);
      expect(audio.length).toBeGreaterThan(0);
      expect(ofContext(s, id).at(-1)).toEqual({ isFinal: true, contextId: id });
      const pcm = pcmSamples(Buffer.concat(audio.map((m) => Buffer.from(m.audio!, 'base64'))));
      expect(pcm.length / 24_000).toBeGreaterThan(1);
      expect(rms(pcm)).toBeGreaterThan(500);
      // The alignments, one per message and timed from that message's audio, concatenated spell the text as sent.
      // (A message of audio left after the last piece, if any, has none.)
      const aligned = audio.filter((m) => m.alignment);
      expect(aligned.map((m) => m.alignment!.chars.join('')).join('')).toBe(text);
      for (const m of aligned) expect(m.alignment!.charStartTimesMs[0]).toBeLessThan(1_000);
    }
    send(s, { close_socket: true });
    expect((await s.closed).code).toBe(1000);
  }, 60_000);

  it('stops an interrupted context at once: no more of its audio, and only what was delivered is charged', async () => {
    const before = await characterCount(stack);
    const s = connect();
    await s.opened;
    const long = Array.from({ length: 12 }, (_, i) => `This is sentence number ${i + 1} of a long answer.`).join(' ');
    send(s, { text: ' ', context_id: 'long' });
    send(s, { text: `${long} `, context_id: 'long' });
    await eventually(() => ofContext(s, 'long').some((m) => m.audio), 30_000);
    send(s, { context_id: 'long', close_context: true });
    await eventually(() => finalOf(s, 'long'), 10_000);
    const heard = ofContext(s, 'long').length;
    const short = 'Sure, go ahead.';
    send(s, { text: `${short} `, context_id: 'next', flush: true });
    send(s, { text: '', context_id: 'next', flush: true });
    send(s, { context_id: 'next', close_context: true });
    await eventually(() => finalOf(s, 'next'), 30_000);
    // Nothing of the interrupted context came after its isFinal.
    expect(ofContext(s, 'long')).toHaveLength(heard);
    // The cancelled generation is not charged; the next one is, in full.
    await eventually(async () => (await characterCount(stack)) === before + short.length, 10_000);
    s.ws.close();
  }, 60_000);

  it("applies a context's pronunciation dictionary (and stream-input's): said differently and longer, aligned to the text as sent", async () => {
    const created = await fetch(`${stack.url}/v1/pronunciation-dictionaries/add-from-rules`, {
      method: 'POST',
      headers: { 'xi-api-key': stack.apiKey, 'content-type': 'application/json' },
      body: JSON.stringify({
        name: 'agent words',
        rules: [{ type: 'alias', string_to_replace: 'ASAP', alias: 'as soon as you possibly can' }],
      }),
    });
    expect(created.status).toBe(200);
    const { id } = (await created.json()) as { id: string };
    const locators = [{ pronunciation_dictionary_id: id, version_id: null }];
    const text = 'Please call me back ASAP.';
    const s = connect();
    await s.opened;
    const say = (context: string, extra: Record<string, unknown>) => {
      send(s, { text: ' ', context_id: context, ...extra });
      send(s, { text: `${text} `, context_id: context });
      send(s, { context_id: context, flush: true });
      send(s, { context_id: context, close_context: true });
    };
    say('plain', {});
    say('dict', { pronunciation_dictionary_locators: locators });
    await eventually(() => finalOf(s, 'plain') && finalOf(s, 'dict'), 30_000);
    const pcmOf = (id: string) =>
      Buffer.concat(ofContext(s, id).flatMap((m) => (m.audio ? [Buffer.from(m.audio, 'base64')] : [])));
    expect(pcmOf('dict').length).toBeGreaterThan(pcmOf('plain').length * 1.2);
    const spelled = (id: string) =>
      ofContext(s, id)
        .filter((m) => m.alignment)
        .map((m) => m.alignment!.chars.join(''))
        .join('');
    expect(spelled('dict')).toBe(text);

    // stream-input takes them in its first message.
    const single = connectSession(
      `${stack.wsUrl}/v1/text-to-speech/${RACHEL}/stream-input?output_format=pcm_24000&message_format=json`,
      { 'xi-api-key': stack.apiKey },
    );
    await single.opened;
    send(single, { text: ' ', pronunciation_dictionary_locators: locators });
    send(single, { text: `${text} ` });
    send(single, { text: '' });
    expect((await single.closed).code).toBe(1000);
    const singleAudio = messages(single).filter((m) => m.audio);
    expect(Buffer.concat(singleAudio.map((m) => Buffer.from(m.audio!, 'base64'))).length).toBe(pcmOf('dict').length);
    expect(
      singleAudio
        .filter((m) => m.alignment)
        .map((m) => m.alignment!.chars.join(''))
        .join(''),
    ).toBe(text);

    // A dictionary that is not the account's is refused before any text.
    const refused = connect();
    await refused.opened;
    send(refused, {
      text: ' ',
      context_id: 'x',
      pronunciation_dictionary_locators: [{ pronunciation_dictionary_id: 'nope' }],
    });
    expect((await refused.closed).code).toBe(1008);
    expect(errorOf(refused)?.message).toContain('was not found');
    s.ws.close();
  }, 60_000);

  it('refuses a sixth open context and a malformed message with the speech error shape and 1008', async () => {
    const s = connect();
    await s.opened;
    for (let i = 0; i < 6; i++) send(s, { text: ' ', context_id: `c${i}` });
    expect((await s.closed).code).toBe(1008);
    expect(errorOf(s)).toMatchObject({ status: 'bad_request', message: expect.stringContaining('at most 5 contexts') });

    const bad = connect();
    await bad.opened;
    bad.ws.send('not json');
    expect((await bad.closed).code).toBe(1008);
    expect(errorOf(bad)).toMatchObject({ status: 'bad_request' });
  }, 30_000);

  it("takes LiveKit's query (mp3_44100, sync_alignment, inactivity_timeout, enable_ssml_parsing, enable_logging, apply_text_normalization)", async () => {
    const s = connect(
      'model_id=eleven_flash_v2_5&output_format=mp3_44100&enable_ssml_parsing=false&enable_logging=true&inactivity_timeout=180&apply_text_normalization=auto&sync_alignment=true',
    );
    await s.opened;
    send(s, { text: ' ', voice_settings: {}, context_id: 'lk' });
    send(s, { text: 'A sentence from LiveKit. ', context_id: 'lk', flush: true });
    send(s, { text: '', context_id: 'lk', flush: true });
    send(s, { context_id: 'lk', close_context: true });
    await eventually(() => finalOf(s, 'lk'), 30_000);
    const mp3 = Buffer.concat(ofContext(s, 'lk').flatMap((m) => (m.audio ? [Buffer.from(m.audio, 'base64')] : [])));
    // The whole body is MP3 frames at 44.1 kHz and 128 kbit/s (`mp3_44100_128`), of plausible length.
    const frames = parseMp3(mp3);
    expect(new Set(frames.map((f) => `${f.sampleRate}/${f.bitrateKbps}`))).toEqual(new Set(['44100/128']));
    expect(mp3DurationSeconds(frames)).toBeGreaterThan(1);
    expect(messages(s).some((m) => m.detail)).toBe(false);
    s.ws.close();
  }, 30_000);
});
