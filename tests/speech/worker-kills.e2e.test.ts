import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { eventually, scrapeMetrics, sumOf } from '@platform/testing';
import { characterCount, recordedHistory } from './support/account-state';
import { followStream } from './support/job-streams';
import { listener } from './support/listener';
import { startSpeechStack, type SpeechStack, type SpeechWorker } from './support/speech-stack';

/**
 * Worker deaths a listener does not notice (docs/operations.md "A worker dies mid-job",
 * docs/decisions.md): a stream whose worker is SIGKILLed twenty times in a row completes with the
 * audio of an uninterrupted run, charged once, and the resume limit (SYNTHESIS_MAX_RESUMES) fails
 * only a job that makes no progress between the deaths of its workers.
 *
 * The engine is eSpeak NG paced like a loaded neural worker (support/paced-espeak.sh: each new piece
 * takes 0.7 times its audio's length), so the audio arrives about as fast as it plays and a
 * takeover's stall is heard; what the listener hears is measured at the client (support/listener.ts).
 */

const RACHEL = '21m00Tcm4TlvDq8ikWAM';
const FORMAT = 'pcm_22050';
/** 16-bit mono at 22 050 Hz. */
const BYTES_PER_SECOND = 44_100;
const SUPPORT = path.join(__dirname, 'support');
/** Sentences of about 130 characters: more than half a piece's 250, so each is a piece of its own (about 8 s of audio). */
const sentences = (label: string, n: number) =>
  Array.from(
    { length: n },
    (_, i) =>
      `${label} sentence ${i + 1} goes on for quite a while, long enough to be a piece of its own, as a listener hears it in one go, unhurried.`,
  ).join(' ');

async function reference(stack: SpeechStack, text: string): Promise<Buffer> {
  const res = await fetch(`${stack.url}/v1/text-to-speech/${RACHEL}?output_format=${FORMAT}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'xi-api-key': stack.apiKey },
    body: JSON.stringify({ text }),
  });
  expect(res.status).toBe(200);
  return Buffer.from(await res.arrayBuffer());
}

/** A `/stream` request read in the background, every arrival heard by a listener. */
async function startStream(stack: SpeechStack, text: string) {
  const res = await fetch(`${stack.url}/v1/text-to-speech/${RACHEL}/stream?output_format=${FORMAT}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'xi-api-key': stack.apiKey },
    body: JSON.stringify({ text }),
  });
  expect(res.status).toBe(200);
  const jobId = res.headers.get('history-item-id')!;
  const heard = listener(BYTES_PER_SECOND);
  const chunks: Buffer[] = [];
  const done = (async () => {
    const reader = res.body!.getReader();
    let cut = false;
    try {
      for (let r = await reader.read(); !r.done; r = await reader.read()) {
        heard.heard(r.value.length);
        chunks.push(Buffer.from(r.value));
      }
    } catch {
      // Cut by the gateway (the job failed after its first audio): the bytes so far are the answer.
      cut = true;
    }
    return { audio: Buffer.concat(chunks), cut };
  })();
  return { jobId, done, heard, stream: followStream(stack.redis, `${stack.prefix}:job:${jobId}:audio`) };
}

function workerOf(stack: SpeechStack, writer: string): SpeechWorker {
  const worker = stack.workers.find(
    (w) => writer.endsWith(`:${w.process.pid}`) || writer.includes(`:${w.process.pid}#`),
  );
  if (!worker) throw new Error(`no worker of this stack is ${writer}`);
  return worker;
}

/** SIGKILLs `worker` and starts a replacement (not awaited: the others take over meanwhile). */
async function kill(stack: SpeechStack, worker: SpeechWorker, replacements: Promise<unknown>[]): Promise<void> {
  worker.process.kill('SIGKILL');
  await worker.exited;
  replacements.push(stack.startWorker());
}

describe('a stream whose worker is killed twenty times in a row', () => {
  let stack: SpeechStack;
  const paceDir = fs.mkdtempSync(path.join(os.tmpdir(), 'paced-espeak-'));
  beforeAll(async () => {
    stack = await startSpeechStack({
      workers: 2,
      concurrency: 1,
      lockMs: 1000,
      frameTimeoutMs: 30_000,
      workerEnv: {
        SYNTHESIS_MAX_RESUMES: '2',
        ESPEAK_BINARY: path.join(SUPPORT, 'paced-espeak.sh'),
        PACED_ESPEAK_DIR: paceDir,
      },
      accountSpeech: true,
      storeQuota: true,
    });
  }, 120_000);
  afterAll(async () => {
    await stack?.stop();
    fs.rmSync(paceDir, { recursive: true, force: true });
  }, 60_000);

  it('completes byte-identical, charged once, with every listener silence reported', async () => {
    const text = sentences('Twenty', 36);
    const other = sentences('Alongside', 20);
    const expected = await reference(stack, text);
    const expectedOther = await reference(stack, other);
    fs.writeFileSync(path.join(paceDir, 'on'), '');
    const before = await characterCount(stack);
    // Two streams, one per worker's only regular slot: a takeover finds every slot busy where it can.
    const victim = await startStream(stack, text);
    await eventually(() => victim.stream.frames.some((f) => f.frame.type === 'audio'), 60_000, 5);
    const alongside = await startStream(stack, other);
    const frames = victim.stream.frames;

    const killed = new Set<string>();
    /** When the first kill came (`performance.now()`): the silences after it are the takeovers'. */
    let firstKillAt = Infinity;
    const stalls: number[] = [];
    const replacements: Promise<unknown>[] = [];
    for (let k = 0; k < 20; k++) {
      // Mid-stream: the job's current worker has just written audio (progress since the last kill).
      await eventually(
        () => {
          const last = frames.at(-1);
          if (last?.frame.type === 'end' || last?.frame.type === 'error')
            throw new Error(
              `the stream ended after ${k} kills: ${JSON.stringify({ ...last.frame, data: undefined })} by ${last.writer}`,
            );
          return last !== undefined && last.frame.type === 'audio' && !killed.has(last.writer);
        },
        60_000,
        2,
      );
      const writer = frames.at(-1)!.writer;
      killed.add(writer);
      const lastOfDead = frames.at(-1)!.atMs;
      if (k === 0) firstKillAt = performance.now();
      await kill(stack, workerOf(stack, writer), replacements);
      await eventually(() => frames.some((f) => f.atMs >= lastOfDead && !killed.has(f.writer)), 60_000, 5);
      stalls.push(frames.find((f) => f.atMs >= lastOfDead && !killed.has(f.writer))!.atMs - lastOfDead);
    }

    await Promise.all(replacements);
    const { audio, cut } = await victim.done;
    const { audio: audioOther, cut: cutOther } = await alongside.done;
    await victim.stream.stop();
    await alongside.stream.stop();
    console.log(
      `twenty kills: listener's longest silence ${victim.heard.longestSilenceSeconds.toFixed(2)} s (the stream killed), ${alongside.heard.longestSilenceSeconds.toFixed(2)} s (alongside); ` +
        `from the first kill on ${victim.heard.longestSilenceEndingAfter(firstKillAt).toFixed(2)} s and ${alongside.heard.longestSilenceEndingAfter(firstKillAt).toFixed(2)} s; ` +
        `dead worker's last frame → next worker's first: ${stalls.join(', ')} ms`,
    );
    expect(frames.map((f) => f.frame.seq)).toEqual(frames.map((_, i) => i));
    // The gateway ends a response cleanly only on the job's end frame (an error frame cuts it). The
    // follower may miss that last frame: the gateway deletes the stream once it has relayed it.
    expect([cut, cutOther]).toEqual([false, false]);
    expect(
      frames.filter((f) => f.frame.type !== 'audio' && f.frame.type !== 'piece' && f.frame.type !== 'end'),
    ).toEqual([]);
    expect(new Set(frames.map((f) => f.writer)).size).toBe(21);
    expect(audio.equals(expected)).toBe(true);
    expect(audioOther.equals(expectedOther)).toBe(true);
    // Charged once each (the references too), one complete history item each.
    expect(await characterCount(stack)).toBe(before + [...text].length + [...other].length);
    for (const [jobId, t] of [
      [victim.jobId, text],
      [alongside.jobId, other],
    ] as const) {
      expect(await recordedHistory(stack, (h) => h.history_item_id === jobId)).toEqual([
        expect.objectContaining({ state: 'complete', character_count_change_to: [...t].length }),
      ]);
    }
  }, 600_000);

  it('fails a job whose workers die without it moving on, after SYNTHESIS_MAX_RESUMES such takeovers', async () => {
    const text = sentences('Doomed', 8);
    const before = await characterCount(stack);
    const doomed = await startStream(stack, text);
    const frames = doomed.stream.frames;
    // Its first piece done (its audio and marker written): the first worker made progress.
    await eventually(() => frames.some((f) => f.frame.type === 'piece'), 60_000, 5);
    const owner = `${stack.prefix}:job:${doomed.jobId}:owner`;
    const resumes = `${stack.prefix}:job:${doomed.jobId}:resumes`;
    // Each worker after the first is killed once it has claimed the job and
    // counted its takeover (the resumes record holds its takeover count), before it writes anything
    // new (its next piece takes seconds).
    /** Jobs failed as lost by the live workers (the one that fails this job is alive: nobody kills it). */
    const lostFailures = async () => {
      const counts = await Promise.all(
        stack.workers
          .filter((w) => w.process.exitCode === null && w.process.signalCode === null)
          .map(async (w) =>
            sumOf(await scrapeMetrics(w.metricsUrl), 'synthesis_job_failures_total', { reason: 'lost' }),
          ),
      );
      return counts.reduce((a, b) => a + b, 0);
    };
    const lostBefore = await lostFailures();
    // Failed for the client: the worker's error frame (which the follower may miss, as the gateway
    // deletes the stream once it relayed it) and the job counted failed as lost.
    const failed = async () => frames.at(-1)?.frame.type === 'error' || (await lostFailures()) > lostBefore;
    let token = await stack.redis.get(owner);
    const replacements: Promise<unknown>[] = [];
    await kill(stack, workerOf(stack, frames.at(-1)!.writer), replacements);
    let kills = 1;
    while (kills < 10) {
      let next: string | null = null;
      let dry = 0;
      await eventually(
        async () => {
          next = await stack.redis.get(owner);
          const record = await stack.redis.hgetall(resumes);
          dry = Number(record.dry);
          const counted =
            next !== null && next !== token && next.includes('#') && record.takeovers === next.split('#')[1];
          return counted || (await failed());
        },
        60_000,
        2,
      );
      // Past the limit: this attempt fails the job (its error frame follows); no one to kill.
      if ((await failed()) || dry > 2) break;
      token = next;
      await kill(stack, workerOf(stack, token!), replacements);
      kills++;
    }
    await Promise.all(replacements);
    const { cut } = await doomed.done;
    await eventually(async () => (await lostFailures()) === lostBefore + 1, 30_000, 50);
    await doomed.stream.stop();
    // Two dry takeovers are allowed (SYNTHESIS_MAX_RESUMES=2): the first worker and three more die
    // (the first takeover found new audio, the next two none), the fifth attempt fails it.
    expect(kills).toBe(4);
    expect(cut).toBe(true);
    expect(frames.some((f) => f.frame.type === 'end')).toBe(false);
    // Nothing charged for a failed generation.
    await eventually(async () => (await characterCount(stack)) === before, 30_000, 50);
  }, 300_000);
});
