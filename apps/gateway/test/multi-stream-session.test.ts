import { MAX_CONTEXTS } from '@platform/contracts';
import { SpeechError } from '@platform/errors';
import { eventually } from '@platform/testing';
import { MultiStreamSession } from '../src/speech/multi-stream-input/multi-stream-session';
import { errorOf, KEY, setup as setupSession, type FakeTransport } from './support/text-socket-fixture';

/**
 * The multi-stream-input protocol without a socket, driven with the message sequences the voice-agent
 * frameworks send (Pipecat's and LiveKit Agents' ElevenLabs services).
 */

const setup = (options?: Parameters<typeof setupSession>[1]) => setupSession(MultiStreamSession, options);

interface Sent {
  audio?: string;
  contextId?: string;
  isFinal?: boolean | null;
  alignment?: { chars: string[] } | null;
}
const sent = (t: FakeTransport) => t.texts as Sent[];
/** Each message as `<contextId>:<audio text>` or `<contextId>:final`. */
const trace = (t: FakeTransport) =>
  sent(t).map((m) =>
    m.isFinal === true ? `${m.contextId}:final` : `${m.contextId}:${Buffer.from(m.audio ?? '', 'base64').toString()}`,
  );

describe('the multi-stream-input session (transport-free)', () => {
  it("finishes Pipecat's utterance (text, flush and close_context back to back) and stays open for the next", async () => {
    const s = setup();
    await s.open('model_id=eleven_flash_v2_5&output_format=pcm_24000&auto_mode=true', undefined, KEY);
    s.send({ text: ' ', context_id: 'c1' });
    s.send({ text: 'Hello there. ', context_id: 'c1' });
    s.send({ context_id: 'c1', flush: true });
    s.send({ context_id: 'c1', close_context: true });
    await eventually(() => trace(s.transport).includes('c1:final'), 10_000);
    expect(trace(s.transport)).toEqual(['c1:audio:Hello there.', 'c1:final']);
    // The interruption path closes the same context again: ignored, the socket stays open.
    s.send({ context_id: 'c1', close_context: true });
    s.send({ text: '' }); // the 10 s keep-alive, no context: not an end of anything
    s.send({ text: ' ', context_id: 'c2' });
    s.send({ text: 'Second turn. ', context_id: 'c2' });
    s.send({ context_id: 'c2', flush: true });
    s.send({ context_id: 'c2', close_context: true });
    await eventually(() => trace(s.transport).includes('c2:final'), 10_000);
    expect(trace(s.transport)).toEqual(['c1:audio:Hello there.', 'c1:final', 'c2:audio:Second turn.', 'c2:final']);
    expect(s.transport.open).toBe(true);
    expect(s.charged).toEqual(['Hello there.'.length, 'Second turn.'.length]);
    s.send({ close_socket: true });
    expect(await s.transport.closed).toEqual({ code: 1000, reason: 'close_socket' });
  });

  it("finishes LiveKit's stream (a flush per sentence, an empty flush, close_context) and reports isFinal per context", async () => {
    const s = setup();
    await s.open('model_id=eleven_flash_v2_5&output_format=mp3_22050_32&sync_alignment=true', undefined, KEY);
    s.send({ text: ' ', voice_settings: {}, context_id: 'lk1' });
    s.send({ text: 'One sentence. ', context_id: 'lk1', flush: true });
    s.send({ text: 'Two sentences. ', context_id: 'lk1', flush: true });
    s.send({ text: '', context_id: 'lk1', flush: true });
    s.send({ context_id: 'lk1', close_context: true });
    await eventually(() => trace(s.transport).includes('lk1:final'), 10_000);
    expect(trace(s.transport)).toEqual(['lk1:audio:One sentence.', 'lk1:audio:Two sentences.', 'lk1:final']);
    // Every context's jobs are timed, so that each audio message carries its alignment.
    expect(s.jobs.map((j) => j.timestamps)).toEqual([true, true]);
  });

  it('interrupts a context closed mid-utterance: its job is cancelled at once, nothing more is sent or charged', async () => {
    let releaseFrames!: () => void;
    const gate = new Promise<void>((resolve) => (releaseFrames = resolve));
    const s = setup({
      beforeFrame: () => gate,
    });
    await s.open('model_id=eleven_flash_v2_5', undefined, KEY);
    s.send({ text: ' ', context_id: 'a' });
    s.send({ text: 'A long answer the user will cut short. ', context_id: 'a' });
    await eventually(() => s.jobs.length === 1, 10_000);
    s.send({ context_id: 'a', close_context: true }); // no empty flush first: an interruption
    await eventually(() => trace(s.transport).includes('a:final'), 10_000);
    releaseFrames();
    // The next context starts at once and is not held behind the interrupted one.
    s.send({ text: 'Sure. ', context_id: 'b', flush: true });
    s.send({ context_id: 'b', flush: true });
    s.send({ context_id: 'b', close_context: true });
    await eventually(() => trace(s.transport).includes('b:final'), 10_000);
    expect(trace(s.transport)).toEqual(['a:final', 'b:audio:Sure.', 'b:final']);
    // The interrupted generation is settled with nothing delivered: not charged.
    expect(s.charged).toEqual([0, 'Sure.'.length]);
  });

  it("interrupts Pipecat's utterance closed again while it is being finished: its job cancelled, not charged, the next one not held", async () => {
    let releaseFrames!: () => void;
    const gate = new Promise<void>((resolve) => (releaseFrames = resolve));
    const s = setup({ beforeFrame: () => gate });
    await s.open('model_id=eleven_flash_v2_5&output_format=pcm_24000&auto_mode=true', undefined, KEY);
    // Pipecat's utterance: text, flush and close_context back to back (the context is finishing) ...
    s.send({ text: ' ', context_id: 'a' });
    s.send({ text: 'A long answer the user will cut short. ', context_id: 'a' });
    s.send({ context_id: 'a', flush: true });
    s.send({ context_id: 'a', close_context: true });
    await eventually(() => s.jobs.length === 1, 10_000);
    // ... and its interruption: the same context closed again while its audio is on its way.
    s.send({ context_id: 'a', close_context: true });
    await eventually(() => trace(s.transport).includes('a:final'), 10_000);
    releaseFrames();
    s.send({ text: ' ', context_id: 'b' });
    s.send({ text: 'Sure. ', context_id: 'b' });
    s.send({ context_id: 'b', flush: true });
    s.send({ context_id: 'b', close_context: true });
    await eventually(() => trace(s.transport).includes('b:final'), 10_000);
    expect(trace(s.transport)).toEqual(['a:final', 'b:audio:Sure.', 'b:final']);
    expect(s.charged).toEqual([0, 'Sure.'.length]);
    expect(s.transport.open).toBe(true);
  });

  it("keeps one job per socket: a context's segments are not interleaved with another's", async () => {
    const s = setup();
    await s.open('', undefined, KEY);
    s.send({ text: 'First one. Second one. ', context_id: 'a' });
    s.send({ text: 'Other context. ', context_id: 'b' });
    s.send({ text: '', context_id: 'a', flush: true });
    s.send({ context_id: 'a', close_context: true });
    s.send({ text: '', context_id: 'b', flush: true });
    s.send({ context_id: 'b', close_context: true });
    await eventually(() => trace(s.transport).filter((m) => m.endsWith(':final')).length === 2, 10_000);
    const order = trace(s.transport).filter((m) => !m.endsWith(':final'));
    expect(order.map((m) => m.split(':')[0])).toEqual(['a', 'b']);
    expect(s.jobs.map((j) => j.text)).toEqual(['First one. Second one.', 'Other context.']);
  });

  it('gives each context its own voice settings', async () => {
    const s = setup();
    await s.open('', undefined, KEY);
    s.send({ text: ' ', context_id: 'slow', voice_settings: { speed: 0.8 } });
    s.send({ text: 'Slowly. ', context_id: 'slow', flush: true });
    s.send({ text: ' ', context_id: 'fast', voice_settings: { speed: 1.2 } });
    s.send({ text: 'Quickly. ', context_id: 'fast', flush: true });
    await eventually(() => s.jobs.length === 2, 10_000);
    expect(s.jobs.map((j) => [j.text, j.settings.speed])).toEqual([
      ['Slowly.', 0.8],
      ['Quickly.', 1.2],
    ]);
  });

  it(`refuses a context beyond ${MAX_CONTEXTS} open ones (1008, the speech error shape)`, async () => {
    const s = setup();
    await s.open('', undefined, KEY);
    for (let i = 0; i <= MAX_CONTEXTS; i++) s.send({ text: ' ', context_id: `c${i}` });
    expect((await s.transport.closed).code).toBe(1008);
    expect(errorOf(s.transport)).toEqual({
      status: 'bad_request',
      message: expect.stringContaining(`at most ${MAX_CONTEXTS} contexts`),
    });
  });

  it('refuses a message that is not the protocol’s, and one without a key when the upgrade had none', async () => {
    const bad = setup();
    await bad.open('', undefined, KEY);
    bad.send({ text: 'Hi. ', context_id: 42 });
    expect((await bad.transport.closed).code).toBe(1008);
    expect(errorOf(bad.transport)).toEqual({ status: 'bad_request', message: expect.stringContaining('context_id') });

    const anonymous = setup();
    await anonymous.open();
    anonymous.send({ text: ' ', context_id: 'c1' });
    expect((await anonymous.transport.closed).code).toBe(1008);
    expect(anonymous.refused).toEqual(['unauthorized']);
  });

  it("applies a context's pronunciation dictionaries to its jobs, and refuses an unknown one before any text", async () => {
    const rule = { type: 'alias', string_to_replace: 'ASAP', alias: 'as soon as possible' } as const;
    const s = setup({
      resolvePronunciation: async (_account, locators) => {
        if (locators.some((l) => l.pronunciation_dictionary_id !== 'dict_1'))
          throw new SpeechError(404, 'error', 'A pronunciation dictionary with the id nope was not found.');
        return [{ ...rule, case_sensitive: true, word_boundaries: true }];
      },
    });
    await s.open('', undefined, KEY);
    const locators = [{ pronunciation_dictionary_id: 'dict_1', version_id: null }];
    s.send({ text: ' ', context_id: 'with', pronunciation_dictionary_locators: locators });
    s.send({ text: 'Call me ASAP. ', context_id: 'with', flush: true });
    s.send({ text: 'Call me ASAP. ', context_id: 'without', flush: true });
    await eventually(() => s.jobs.length === 2, 10_000);
    expect(s.jobs.map((j) => [j.text, j.pronunciation?.map((r) => r.string_to_replace)])).toEqual([
      ['Call me ASAP.', ['ASAP']],
      ['Call me ASAP.', undefined],
    ]);
    s.send({
      text: ' ',
      context_id: 'bad',
      pronunciation_dictionary_locators: [{ pronunciation_dictionary_id: 'nope' }],
    });
    expect((await s.transport.closed).code).toBe(1008);
    expect(errorOf(s.transport)).toMatchObject({ status: 'error', message: expect.stringContaining('was not found') });
    expect(s.jobs).toHaveLength(2);
  });

  it('reads mp3_44100 as mp3_44100_128 (LiveKit lists it)', async () => {
    const s = setup();
    await s.open('output_format=mp3_44100', undefined, KEY);
    s.send({ text: 'Hi. ', context_id: 'c', flush: true });
    await eventually(() => s.jobs.length === 1, 10_000);
    expect(s.jobs[0]?.outputFormat).toBe('mp3_44100_128');
  });
});
