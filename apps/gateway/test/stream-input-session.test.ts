import { SpeechError } from '@platform/errors';
import { eventually } from '@platform/testing';
import { MAX_BUFFERED_BYTES } from '../src/speech/stream-input/audio-relay';
import { MESSAGE_BURST, MESSAGES_PER_SECOND, StreamInputSession } from '../src/speech/stream-input/session';
import { errorOf, KEY, RACHEL, SPEAKER, setup as setupSession } from './support/text-socket-fixture';

/**
 * The stream-input protocol without a socket: a fake transport records what the session sends and
 * how it closes, a fake runner plays the worker's frames, a fake key lookup stands for auth.
 */

const setup = (options?: Parameters<typeof setupSession>[1]) => setupSession(StreamInputSession, options);

describe('the stream-input session (transport-free)', () => {
  it('takes the key and settings in the first message, synthesises each sentence, and ends with isFinal and 1000', async () => {
    const s = setup();
    await s.open();
    s.send({ text: ' ', xi_api_key: KEY, voice_settings: { stability: 0.5 } });
    s.send({ text: 'Hello there. How are you? ' });
    s.send({ text: '' });
    expect(await s.transport.closed).toEqual({ code: 1000, reason: 'done' });
    expect(s.jobs.map((j) => [j.kind, j.text, j.recordHistory])).toEqual([
      ['websocket', 'Hello there. How are you?', false],
    ]);
    expect(s.transport.binaries.map(String)).toEqual(['audio:Hello there. How are you?']);
    expect(s.transport.texts).toEqual([{ isFinal: true }]);
    // Charged for what the client got.
    expect(s.charged).toEqual(['Hello there. How are you?'.length]);
  });

  it('handles messages that arrive while the connection opens, in order, once it has', async () => {
    const s = setup();
    s.send({ text: ' ', xi_api_key: KEY });
    s.send({ text: 'Early text. ' });
    s.send({ text: '' });
    await s.open();
    expect(await s.transport.closed).toEqual({ code: 1000, reason: 'done' });
    expect(s.jobs.map((j) => j.text)).toEqual(['Early text.']);
  });

  it('sends JSON audio messages with the worker’s alignment, timed from each message’s audio, when asked (message_format=json)', async () => {
    const align = (characters: string[], starts: number[], ends: number[]) => ({
      characters,
      character_start_times_seconds: starts,
      character_end_times_seconds: ends,
    });
    // Two pieces in one job, timed as the worker times them: seconds from the start of the job's audio.
    const s = setup({
      frames: (input) => [
        { seq: 0, type: 'audio', data: Buffer.from('audio:Hi.') },
        {
          seq: 1,
          type: 'piece',
          index: 0,
          text: 'Hi.',
          durationSeconds: 0.5,
          alignment: align(['H', 'i', '.', ' '], [0.05, 0.15, 0.3, 0.5], [0.15, 0.3, 0.5, 0.5]),
          normalizedAlignment: align(['H', 'i', '.'], [0.05, 0.15, 0.3], [0.15, 0.3, 0.5]),
        },
        { seq: 2, type: 'audio', data: Buffer.from('audio:Yo.') },
        {
          seq: 3,
          type: 'piece',
          index: 1,
          text: 'Yo.',
          durationSeconds: 0.4,
          alignment: align(['Y', 'o', '.'], [0.55, 0.7, 0.8], [0.7, 0.8, 0.9]),
          normalizedAlignment: align([' ', 'Y', 'o', '.'], [0.5, 0.55, 0.7, 0.8], [0.5, 0.7, 0.8, 0.9]),
        },
        {
          seq: 4,
          type: 'end',
          characters: input.text.length,
          durationSeconds: 0.9,
          pieces: 2,
          contentType: 'audio/mpeg',
        },
      ],
    });
    await s.open('message_format=json', RACHEL, KEY);
    s.send({ text: ' ' });
    s.send({ text: 'Hi. Yo. ', flush: true });
    s.send({ text: '' });
    await s.transport.closed;
    // The job asks the worker for its timing (binary sessions do not: see below).
    expect(s.jobs.map((j) => j.timestamps)).toEqual([true]);
    const [first, second, final] = s.transport.texts as [Record<string, unknown>, Record<string, unknown>, unknown];
    expect(Buffer.from(String(first.audio), 'base64').toString()).toBe('audio:Hi.');
    // Each message's characters are its piece's; every message after the first starts with the space
    // before its piece (at 0 ms, for 0 ms), so the messages' characters concatenated are the text as read.
    expect(first).toMatchObject({
      isFinal: null,
      alignment: { chars: ['H', 'i', '.'], charStartTimesMs: [50, 150, 300], charDurationsMs: [100, 150, 200] },
    });
    expect(first.normalizedAlignment).toEqual(first.alignment);
    // The second piece's times count from the start of its own message's audio.
    expect(second).toMatchObject({
      isFinal: null,
      alignment: {
        chars: [' ', 'Y', 'o', '.'],
        charStartTimesMs: [0, 50, 200, 300],
        charDurationsMs: [0, 150, 100, 100],
      },
    });
    expect(second.normalizedAlignment).toEqual(second.alignment);
    expect(final).toEqual({ isFinal: true });
    expect(s.transport.binaries).toEqual([]);
  });

  it("refuses a session when the plan's concurrent requests are all in use, saying which limit and when to retry (1013)", async () => {
    const s = setup({ slotsFull: true });
    await s.open('', RACHEL, KEY);
    expect((await s.transport.closed).code).toBe(1013);
    expect(errorOf(s.transport)).toEqual({
      status: 'too_many_requests',
      message: expect.stringMatching(/^concurrent requests limit: the creator plan's .* retry after 1 s/),
    });
  });

  it('binary frames carry no alignment, so their jobs are not timed (timed synthesis is slower)', async () => {
    const s = setup();
    await s.open('', RACHEL, KEY);
    s.send({ text: ' ' });
    s.send({ text: 'Hi. ', flush: true });
    s.send({ text: '' });
    await s.transport.closed;
    expect(s.jobs.map((j) => j.timestamps)).toEqual([undefined]);
    expect(s.transport.binaries.map(String)).toEqual(['audio:Hi.']);
  });

  it.each([
    [
      'a first message that is not JSON',
      (s: ReturnType<typeof setup>) => s.session.receive('hello'),
      'bad_request',
      1008,
    ],
    ['a first message without a key', (s: ReturnType<typeof setup>) => s.send({ text: ' ' }), 'unauthorized', 1008],
    [
      'a key that is not accepted',
      (s: ReturnType<typeof setup>) => s.send({ text: ' ', xi_api_key: 'sk_bad' }),
      'invalid_api_key',
      1008,
    ],
    ['a binary first message', (s: ReturnType<typeof setup>) => s.session.receive(null), 'bad_request', 1008],
  ])('refuses %s with its speech error and close code', async (_name, act, status, code) => {
    const s = setup();
    await s.open();
    act(s);
    expect((await s.transport.closed).code).toBe(code);
    expect(errorOf(s.transport)).toEqual({ status, message: expect.any(String) });
    expect(s.jobs).toEqual([]);
  });

  it('charges refusals for the key to the client address (no key, a key not accepted)', async () => {
    const none = setup();
    await none.open();
    none.send({ text: ' ' });
    await none.transport.closed;
    const bad = setup();
    await bad.open();
    bad.send({ text: ' ', xi_api_key: 'sk_bad' });
    await bad.transport.closed;
    expect([none.refused, bad.refused]).toEqual([['unauthorized'], ['invalid_api_key']]);
  });

  it('refuses a key without speech:write (403 unauthorized, 1008)', async () => {
    const s = setup({ identity: { ...SPEAKER, scope: 'speech:read' } });
    await s.open();
    s.send({ text: ' ', xi_api_key: KEY });
    expect((await s.transport.closed).code).toBe(1008);
    expect(errorOf(s.transport)).toEqual({ status: 'unauthorized', message: expect.stringContaining('speech:write') });
  });

  it('refuses bad query options before any message (unknown format: bad_request, 1008)', async () => {
    const s = setup();
    await s.open('output_format=wav_99', RACHEL, KEY);
    expect((await s.transport.closed).code).toBe(1008);
    expect(errorOf(s.transport)).toEqual({ status: 'bad_request', message: expect.stringContaining('output_format') });
  });

  it('closes a connection without a key after the auth timeout (unauthorized, 1008)', async () => {
    const s = setup({ authTimeoutMs: 50 });
    await s.open();
    expect((await s.transport.closed).code).toBe(1008);
    expect(errorOf(s.transport)).toEqual({ status: 'unauthorized', message: 'no API key within 0.05 s of connecting' });
  });

  it('closes 1013 when a client sends more messages per second than allowed', async () => {
    const s = setup();
    await s.open('', RACHEL, KEY);
    s.send({ text: ' ' });
    for (let i = 0; i < MESSAGES_PER_SECOND * 3; i++) s.send({ text: 'a' });
    expect((await s.transport.closed).code).toBe(1013);
    expect(errorOf(s.transport)).toEqual({
      status: 'too_many_requests',
      message: `more than ${MESSAGES_PER_SECOND} messages per second (at most ${MESSAGE_BURST} at once)`,
    });
  });

  it('refuses a message longer than the text limit (text_too_long, 1008)', async () => {
    const s = setup({ maxTextChars: 10 });
    await s.open('', RACHEL, KEY);
    s.send({ text: ' ' });
    s.send({ text: 'x'.repeat(11) });
    expect((await s.transport.closed).code).toBe(1008);
    expect(errorOf(s.transport)).toEqual({
      status: 'text_too_long',
      message: 'a message may carry at most 10 characters',
    });
  });

  it('a worker failure is an error and 1011; the segment is not charged', async () => {
    const s = setup({ frames: () => [{ seq: 0, type: 'error', status: 'error', message: 'engine crashed' }] });
    await s.open('', RACHEL, KEY);
    s.send({ text: ' ' });
    s.send({ text: 'Hello. ', flush: true });
    expect((await s.transport.closed).code).toBe(1011);
    expect(errorOf(s.transport)).toEqual({ status: 'error', message: 'synthesis failed: engine crashed' });
    expect(s.charged).toEqual([0]);
  });

  it('a client that takes no audio is told so and closed 1008; its segment is not charged', async () => {
    const s = setup();
    s.transport.bufferedAmount = MAX_BUFFERED_BYTES + 1;
    s.transport.drainOutcome = 'stalled';
    await s.open('', RACHEL, KEY);
    s.send({ text: ' ' });
    s.send({ text: 'Hello. ', flush: true });
    expect((await s.transport.closed).code).toBe(1008);
    expect(errorOf(s.transport)).toEqual({ status: 'bad_request', message: 'the client took no audio for 1 s' });
    // Settled as the relay leaves the cancelled job, just after the close.
    await eventually(() => s.charged.length > 0, 2_000, 5);
    expect(s.charged).toEqual([0]);
  });

  it('stops at a key revoked before a segment (invalid_api_key, 1008)', async () => {
    const revoked = setup();
    await revoked.open('', RACHEL, KEY);
    revoked.send({ text: ' ' });
    revoked.revokeKey();
    revoked.send({ text: 'One. ', flush: true });
    expect((await revoked.transport.closed).code).toBe(1008);
    expect(errorOf(revoked.transport)).toEqual({
      status: 'invalid_api_key',
      message: 'the API key was revoked or its account changed',
    });
    expect(revoked.jobs).toEqual([]);
  });

  it('a speech error keeps its status, anything else is a 503 error', () => {
    const s = setup();
    s.session.fail(new SpeechError(404, 'voice_not_found', 'no such voice'));
    expect(errorOf(s.transport)).toEqual({ status: 'voice_not_found', message: 'no such voice' });
    const t = setup();
    t.session.fail(new Error('redis down'));
    expect(errorOf(t.transport)).toEqual({ status: 'error', message: 'speech synthesis is unavailable; try again' });
  });
});
