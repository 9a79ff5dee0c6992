import path from 'node:path';
import { eventually } from '@platform/testing';
import { restampOggSerial } from '@platform/speech-engine';
import { characterCount, recordedHistory } from './support/account-state';
import { followStream, jobStreams, newJobStreamKey, type StoredFrame } from './support/job-streams';
import { startSpeechStack, type SpeechStack, type SpeechWorker } from './support/speech-stack';
import { connectSession } from './support/ws-session';

/**
 * A synthesis worker killed (SIGKILL) in the middle of a job: another worker takes the job over
 * and goes on after the audio already sent, so the client gets exactly the audio of an uncrashed
 * generation, charged once (docs/speech.md, "When a worker dies").
 */

const RACHEL = '21m00Tcm4TlvDq8ikWAM';
const sentences = (label: string, n: number) =>
  Array.from({ length: n }, (_, i) => `${label} sentence ${i + 1} keeps the worker busy for a while.`).join(' ');

function tts(stack: SpeechStack, body: unknown, route: '' | '/stream' | '/with-timestamps' = '') {
  return fetch(`${stack.url}/v1/text-to-speech/${RACHEL}${route}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'xi-api-key': stack.apiKey },
    body: JSON.stringify(body),
  });
}

/**
 * The worker that holds the followed job (the writer of its first frame), killed with SIGKILL once
 * it has finished `pieces` pieces and before its last frame. Returns the worker and the kill's time.
 */
async function killHolder(
  stack: SpeechStack,
  frames: StoredFrame[],
  pieces = 1,
): Promise<{ killed: SpeechWorker; killedAt: number }> {
  await eventually(() => frames.filter((f) => f.frame.type === 'piece').length >= pieces, 60_000, 5);
  const writer = frames[0]!.writer;
  const pid = Number(writer.split(':').at(-1));
  const killed = stack.workers.find((w) => w.process.pid === pid);
  if (!killed) throw new Error(`no worker of this stack wrote the job (${writer})`);
  const killedAt = Date.now();
  killed.process.kill('SIGKILL');
  await killed.exited;
  return { killed, killedAt };
}

/**
 * What the followed stream shows about the takeover: the dead worker's frames stop before the
 * job's last frame, another worker's frames follow with the next sequence number, and the time
 * from the kill to the new worker's first frame is printed (a figure for docs/operations.md, not
 * an assertion: the machine may be loaded).
 */
function checkTakeover(label: string, frames: StoredFrame[], killedAt: number, deadWriter: string): void {
  const dead = frames.filter((f) => f.writer === deadWriter);
  const taken = frames.filter((f) => f.writer !== deadWriter);
  expect(dead.length).toBeGreaterThan(0);
  expect(dead.some((f) => f.frame.type === 'end')).toBe(false);
  expect(taken.length).toBeGreaterThan(0);
  expect(taken[0]!.frame.seq).toBe(dead.at(-1)!.frame.seq + 1);
  expect(frames.map((f) => f.frame.seq)).toEqual(frames.map((_, i) => i));
  // The new worker wrote audio (it resumed the job), after the kill.
  expect(taken.some((f) => f.frame.type === 'audio')).toBe(true);
  expect(taken[0]!.atMs).toBeGreaterThanOrEqual(killedAt - 5);
  // Pieces already marked are not marked again.
  const pieceIndexes = frames.flatMap((f) => (f.frame.type === 'piece' ? [f.frame.index] : []));
  expect(new Set(pieceIndexes).size).toBe(pieceIndexes.length);
  console.log(
    `${label}: kill → first frame of the new worker ${taken[0]!.atMs - killedAt} ms (${dead.length} frames before, ${taken.length} after)`,
  );
}

describe('a worker killed mid-job: another worker resumes it', () => {
  let stack: SpeechStack;
  beforeAll(async () => {
    // The workers' defaults for detection (a 1 s lock, a 0.5 s stalled check), stated here so the
    // test exercises them whatever the harness's own defaults are.
    stack = await startSpeechStack({
      workers: 2,
      concurrency: 1,
      lockMs: 1000,
      workerEnv: { SYNTHESIS_STALLED_INTERVAL_MS: '500', SYNTHESIS_MAX_RESUMES: '2' },
      accountSpeech: true,
      storeQuota: true,
    });
  }, 120_000);
  afterAll(async () => {
    await stack?.stop();
  }, 30_000);

  /** Keeps two live workers: one to hold the next job and one to take it over. */
  async function twoLiveWorkers(): Promise<void> {
    const live = stack.workers.filter((w) => w.process.exitCode === null && w.process.signalCode === null);
    for (let n = live.length; n < 2; n++) await stack.startWorker();
  }

  it('whole file: 200 with exactly the audio of an uncrashed generation, one complete history item, charged once', async () => {
    await twoLiveWorkers();
    const text = sentences('Whole file', 60);
    const body = { text, output_format: 'mp3_44100_128' };
    const reference = await tts(stack, body);
    expect(reference.status).toBe(200);
    const expected = Buffer.from(await reference.arrayBuffer());
    const before = await characterCount(stack);

    const existing = await jobStreams(stack);
    const pending = tts(stack, body);
    const stream = followStream(stack.redis, await newJobStreamKey(stack, existing));
    // A few pieces in: the new worker has audio to repeat silently before it writes.
    const { killed, killedAt } = await killHolder(stack, stream.frames, 5);
    // The reservation stays held while the job changes workers.
    expect(await characterCount(stack)).toBe(before + [...text].length);
    const res = await pending;
    expect(res.status).toBe(200);
    const audio = Buffer.from(await res.arrayBuffer());
    await stream.stop();
    const jobId = res.headers.get('history-item-id')!;

    expect(audio.length).toBe(expected.length);
    expect(audio.equals(expected)).toBe(true);
    checkTakeover('whole file', stream.frames, killedAt, stream.frames[0]!.writer);
    expect(stream.frames[0]!.writer).toBe(`${stream.frames[0]!.writer.split(':')[0]}:${killed.process.pid}`);
    // Charged once, recorded once as complete (the reference generation has its own item).
    expect(await characterCount(stack)).toBe(before + [...text].length);
    // Both items, this job's and the reference's: found by text alone, the reference's could come back first.
    const items = await recordedHistory(stack, (h) => h.text === text, 2);
    expect(items.filter((h) => h.history_item_id === jobId)).toEqual([
      expect.objectContaining({ state: 'complete', character_count_change_to: [...text].length }),
    ]);
    expect(items.map((h) => h.state)).toEqual(['complete', 'complete']);
    const stored = await fetch(`${stack.url}/v1/history/${jobId}/audio`, { headers: { 'xi-api-key': stack.apiKey } });
    expect(Buffer.from(await stored.arrayBuffer()).equals(expected)).toBe(true);
  }, 180_000);

  it('with-timestamps: the same audio and alignment as an uncrashed generation', async () => {
    await twoLiveWorkers();
    const text = sentences('Timed', 40);
    const body = { text, output_format: 'pcm_16000' };
    const reference = await tts(stack, body, '/with-timestamps');
    expect(reference.status).toBe(200);
    const expected = (await reference.json()) as { audio_base64: string; alignment: unknown };

    const existing = await jobStreams(stack);
    const pending = tts(stack, body, '/with-timestamps');
    const stream = followStream(stack.redis, await newJobStreamKey(stack, existing));
    const { killedAt } = await killHolder(stack, stream.frames);
    const res = await pending;
    expect(res.status).toBe(200);
    const got = (await res.json()) as { audio_base64: string; alignment: unknown };
    await stream.stop();
    expect(got.audio_base64 === expected.audio_base64).toBe(true);
    expect(got.alignment).toEqual(expected.alignment);
    checkTakeover('with-timestamps', stream.frames, killedAt, stream.frames[0]!.writer);
  }, 180_000);

  // Ogg Opus too: the new worker's pages get the serial number of the pages already sent.
  for (const format of ['mp3_44100_128', 'opus_48000_64'] as const) {
    it(`/stream (${format}): the chunks go on where they stopped: no repeat, no gap, one complete history item, charged once`, async () => {
      await twoLiveWorkers();
      const text = sentences(`Streamed ${format}`, 60);
      const body = { text, output_format: format };
      const reference = await tts(stack, body);
      const expected = Buffer.from(await reference.arrayBuffer());
      const before = await characterCount(stack);

      const res = await tts(stack, body, '/stream');
      expect(res.status).toBe(200);
      const jobId = res.headers.get('history-item-id')!;
      const stream = followStream(stack.redis, `${stack.prefix}:job:${jobId}:audio`);
      const reader = res.body!.getReader();
      const chunks: Buffer[] = [];
      const reading = (async () => {
        for (let r = await reader.read(); !r.done; r = await reader.read()) chunks.push(Buffer.from(r.value));
      })();
      const { killedAt } = await killHolder(stack, stream.frames, 5);
      // Part of the audio had reached the client before the kill, the rest came after.
      const heardBeforeKill = chunks.length;
      await reading;
      await stream.stop();
      expect(heardBeforeKill).toBeGreaterThan(0);
      // Every Ogg stream has a random serial number (ffmpeg's): the reference's is set to the crashed one's.
      const audio = Buffer.concat(chunks);
      const sameSerial = format.startsWith('opus') ? restampOggSerial(audio.subarray(14, 18))(expected) : expected;
      expect(audio.equals(sameSerial)).toBe(true);
      checkTakeover(`/stream ${format}`, stream.frames, killedAt, stream.frames[0]!.writer);
      expect(await characterCount(stack)).toBe(before + [...text].length);
      const items = await recordedHistory(stack, (h) => h.history_item_id === jobId);
      expect(items).toEqual([
        expect.objectContaining({ state: 'complete', character_count_change_to: [...text].length }),
      ]);
    }, 180_000);
  }

  /** A stream-input session speaking `text` in one message, then the end of input; its audio and charge. */
  async function wsGeneration(framing: 'binary' | 'json', text: string, during?: () => Promise<void>) {
    const query = framing === 'json' ? 'output_format=mp3_22050_32&message_format=json' : 'output_format=pcm_16000';
    const before = await characterCount(stack);
    const s = connectSession(`${stack.wsUrl}/v1/text-to-speech/${RACHEL}/stream-input?${query}`);
    await s.opened;
    s.ws.send(JSON.stringify({ text: ' ', xi_api_key: stack.apiKey }));
    s.ws.send(JSON.stringify({ text: `${text} `, flush: true }));
    s.ws.send(JSON.stringify({ text: '' }));
    await during?.();
    const closed = await s.closed;
    const messages = s.texts.map(
      (t) => JSON.parse(t) as { audio?: string; alignment?: { chars: string[] } | null; isFinal?: boolean | null },
    );
    const audio =
      framing === 'json'
        ? Buffer.concat(messages.map((m) => Buffer.from(m.audio ?? '', 'base64')))
        : Buffer.concat(s.binary);
    const chars = messages.flatMap((m) => m.alignment?.chars ?? []).join('');
    return { closed, audio, chars, final: messages.at(-1), charged: (await characterCount(stack)) - before };
  }

  for (const framing of ['binary', 'json'] as const) {
    it(`WebSocket stream-input (${framing} audio): the generation goes on after the audio already sent, charged once`, async () => {
      await twoLiveWorkers();
      const text = sentences(`Socket ${framing}`, 50);
      const reference = await wsGeneration(framing, text);
      expect(reference.closed.code).toBe(1000);
      let stream: ReturnType<typeof followStream> | undefined;
      let kill: { killedAt: number } | undefined;
      const existing = await jobStreams(stack);
      const crashed = await wsGeneration(framing, text, async () => {
        stream = followStream(stack.redis, await newJobStreamKey(stack, existing));
        kill = await killHolder(stack, stream.frames);
      });
      await stream!.stop();
      expect(crashed.closed.code).toBe(1000);
      expect(crashed.final).toEqual({ isFinal: true });
      expect(crashed.audio.length).toBe(reference.audio.length);
      expect(crashed.audio.equals(reference.audio)).toBe(true);
      expect(crashed.chars).toBe(reference.chars);
      expect(crashed.charged).toBe(reference.charged);
      expect(crashed.charged).toBeGreaterThan(0);
      checkTakeover(`stream-input ${framing}`, stream!.frames, kill!.killedAt, stream!.frames[0]!.writer);
    }, 180_000);
  }

  /** One multi-stream-input context speaking `text` as a voice agent sends an utterance; its audio and charge. */
  async function contextGeneration(text: string, during?: () => Promise<void>) {
    const before = await characterCount(stack);
    const s = connectSession(`${stack.wsUrl}/v1/text-to-speech/${RACHEL}/multi-stream-input?output_format=pcm_16000`, {
      'xi-api-key': stack.apiKey,
    });
    await s.opened;
    s.ws.send(JSON.stringify({ text: ' ', context_id: 'turn' }));
    s.ws.send(JSON.stringify({ text: `${text} `, context_id: 'turn' }));
    s.ws.send(JSON.stringify({ context_id: 'turn', flush: true }));
    s.ws.send(JSON.stringify({ context_id: 'turn', close_context: true }));
    await during?.();
    const messages = () =>
      s.texts.map(
        (t) =>
          JSON.parse(t) as {
            audio?: string;
            alignment?: { chars: string[] } | null;
            isFinal?: boolean;
            contextId?: string;
          },
      );
    await eventually(() => messages().some((m) => m.isFinal === true), 120_000);
    s.ws.send(JSON.stringify({ close_socket: true }));
    const closed = await s.closed;
    const all = messages();
    return {
      closed,
      audio: Buffer.concat(all.map((m) => Buffer.from(m.audio ?? '', 'base64'))),
      chars: all.flatMap((m) => m.alignment?.chars ?? []).join(''),
      final: all.at(-1),
      charged: (await characterCount(stack)) - before,
    };
  }

  it('WebSocket multi-stream-input: a context goes on after the audio already sent, charged once', async () => {
    await twoLiveWorkers();
    const text = sentences('Context', 50);
    const reference = await contextGeneration(text);
    expect(reference.closed.code).toBe(1000);
    let stream: ReturnType<typeof followStream> | undefined;
    let kill: { killedAt: number } | undefined;
    const existing = await jobStreams(stack);
    const crashed = await contextGeneration(text, async () => {
      stream = followStream(stack.redis, await newJobStreamKey(stack, existing));
      kill = await killHolder(stack, stream.frames);
    });
    await stream!.stop();
    expect(crashed.closed.code).toBe(1000);
    expect(crashed.final).toEqual({ isFinal: true, contextId: 'turn' });
    expect(crashed.audio.equals(reference.audio)).toBe(true);
    expect(crashed.chars).toBe(reference.chars);
    expect(crashed.charged).toBe(reference.charged);
    expect(crashed.charged).toBeGreaterThan(0);
    checkTakeover('multi-stream-input', stream!.frames, kill!.killedAt, stream!.frames[0]!.writer);
  }, 180_000);

  it('every worker dead: the documented 503 in the speech shape, a failed history item, nothing charged', async () => {
    await twoLiveWorkers();
    const text = sentences('Nobody left', 60);
    const before = await characterCount(stack);
    const existing = await jobStreams(stack);
    const pending = tts(stack, { text, output_format: 'mp3_44100_128' });
    const stream = followStream(stack.redis, await newJobStreamKey(stack, existing));
    await killHolder(stack, stream.frames);
    // The survivor takes the job over (its first frame); then it dies too.
    const deadWriter = stream.frames[0]!.writer;
    await eventually(() => stream.frames.some((f) => f.writer !== deadWriter), 60_000, 5);
    const takenBy = stream.frames.find((f) => f.writer !== deadWriter)!.writer;
    const survivor = stack.workers.find((w) => takenBy === `${takenBy.split(':')[0]}:${w.process.pid}`)!;
    survivor.process.kill('SIGKILL');
    await survivor.exited;
    const res = await pending;
    await stream.stop();
    expect(res.status).toBe(503);
    expect(await res.json()).toMatchObject({ detail: { status: 'error' } });
    expect(await characterCount(stack)).toBe(before);
    const items = await recordedHistory(stack, (h) => h.text === text);
    expect(items).toEqual([expect.objectContaining({ state: 'failed', character_count_change_to: 0 })]);
  }, 180_000);
});

// Unseeded, and in a voice the worker colours: the model's sampling noise gives different samples each time.
describe('the neural model (unseeded: its sampling noise differs every time)', () => {
  let stack: SpeechStack;
  beforeAll(async () => {
    stack = await startSpeechStack({
      workers: 2,
      concurrency: 1,
      neural: true,
      frameTimeoutMs: 90_000,
      lockMs: 1000,
      workerEnv: { SYNTHESIS_STALLED_INTERVAL_MS: '500' },
      accountSpeech: true,
      storeQuota: true,
    });
  }, 180_000);
  afterAll(async () => {
    await stack?.stop();
  }, 30_000);

  it('whole file: the pieces already rendered are reused, so the audio is one generation with every piece once', async () => {
    const text = sentences('Neural', 12);
    const existing = await jobStreams(stack);
    const pending = tts(stack, { text, model_id: 'piper_en_us_v1', output_format: 'pcm_22050' }).then(async (res) => ({
      res,
      audio: Buffer.from(await res.arrayBuffer()),
    }));
    const stream = followStream(stack.redis, await newJobStreamKey(stack, existing));
    const { killedAt } = await killHolder(stack, stream.frames, 2);
    const { res, audio } = await pending;
    await stream.stop();
    expect(res.status).toBe(200);
    checkTakeover('neural whole file', stream.frames, killedAt, stream.frames[0]!.writer);
    // Every piece once, in order, and the audio is exactly their samples (22 050 Hz is the
    // model's own rate: no resampling), so no piece is repeated or missing.
    const pieces = stream.frames.flatMap((f) => (f.frame.type === 'piece' ? [f.frame] : []));
    expect(pieces.map((p) => p.index)).toEqual(pieces.map((_, i) => i));
    expect(pieces.map((p) => p.text.replace(/\s/g, '')).join('')).toBe(text.replace(/\s/g, ''));
    expect(audio.length / 2).toBe(pieces.reduce((n, p) => n + Math.round(p.durationSeconds * 22050), 0));
    // The worker that finished the job recorded what it produced: the same bytes the client got.
    const jobId = res.headers.get('history-item-id')!;
    const storedAudio = () =>
      fetch(`${stack.url}/v1/history/${jobId}/audio`, { headers: { 'xi-api-key': stack.apiKey } });
    await eventually(async () => (await storedAudio()).status === 200, 30_000);
    expect(Buffer.from(await (await storedAudio()).arrayBuffer()).equals(audio)).toBe(true);
    // The rendered pieces are not kept after the job.
    expect(await stack.redis.exists(`${stack.prefix}:job:${jobId}:pcm`)).toBe(0);
  }, 240_000);
});

describe('a job whose workers die without it moving on more often than SYNTHESIS_MAX_RESUMES allows', () => {
  let stack: SpeechStack;
  beforeAll(async () => {
    // eSpeak slowed down for the texts that ask for it: a resumed attempt takes seconds to repeat the
    // pieces already sent, a window in which it is killed before it writes any new audio.
    const slowEspeak = path.join(__dirname, 'support', 'slow-espeak.sh');
    stack = await startSpeechStack({
      workers: 2,
      concurrency: 1,
      lockMs: 1000,
      workerEnv: { SYNTHESIS_MAX_RESUMES: '0', ESPEAK_BINARY: slowEspeak },
      accountSpeech: true,
      storeQuota: true,
    });
  }, 120_000);
  afterAll(async () => {
    await stack?.stop();
  }, 30_000);

  it('fails at once with the documented 503 (not after the frame timeout), a failed history item, nothing charged', async () => {
    const text = sentences('Take your time, no second chance', 20);
    const before = await characterCount(stack);
    const existing = await jobStreams(stack);
    const pending = tts(stack, { text, output_format: 'mp3_44100_128' });
    const stream = followStream(stack.redis, await newJobStreamKey(stack, existing));
    // The first worker made progress (two pieces): its takeover is resumed.
    await killHolder(stack, stream.frames, 2);
    const replacement = stack.startWorker();
    // The next attempt is killed once it has claimed the job and counted its takeover, while it
    // repeats the pieces already sent: the attempt after it finds no new audio, one takeover too many.
    let token = '';
    await eventually(
      async () => {
        const [key] = await stack.redis.keys(`${stack.prefix}:job:*:resumes`);
        if (!key) return false;
        token = (await stack.redis.get(key.replace(/:resumes$/, ':owner'))) ?? '';
        return (await stack.redis.hget(key, 'takeovers')) === '1' && token.endsWith('#1');
      },
      60_000,
      2,
    );
    const second = stack.workers.find((w) => token.endsWith(`:${w.process.pid}#1`))!;
    second.process.kill('SIGKILL');
    await second.exited;
    await replacement;
    const res = await pending;
    await stream.stop();
    expect(res.status).toBe(503);
    // The surviving worker ended the job (its `unavailable` error frame, whose message only a worker
    // writes), rather than the gateway's frame timeout. The follower may miss that frame itself: the
    // gateway deletes the stream once it has relayed it.
    const body = (await res.json()) as { detail: { status: string; message: string } };
    expect(body.detail.status).toBe('error');
    expect(body.detail.message).toMatch(/could not be finished/);
    expect(stream.frames.filter((f) => f.frame.type === 'end')).toEqual([]);
    expect(await characterCount(stack)).toBe(before);
    expect(await recordedHistory(stack, (h) => h.text === text)).toEqual([
      expect.objectContaining({ state: 'failed', character_count_change_to: 0 }),
    ]);
  }, 120_000);
});
