import { Queue } from 'bullmq';
import { eventually } from '@platform/testing';
import { characterCount, recordedHistory } from './support/account-state';
import { followStream, jobStreams, newJobStreamKey } from './support/job-streams';
import { startSpeechStack, type SpeechStack } from './support/speech-stack';

/**
 * A synthesis worker stopped by a rollout or a scale-down (SIGTERM) while it streams a long job: it
 * takes no new job, lets the job run until its drain bound (WORKER_DRAIN_MS, tiny here), then hands
 * it over at a piece boundary; another worker continues after the audio already sent. The listener
 * gets exactly the audio of an uninterrupted run (eSpeak NG is deterministic), charged once, and the
 * job is neither failed nor counted as a stall (docs/operations.md, "Rolling out and scaling down").
 */

const RACHEL = '21m00Tcm4TlvDq8ikWAM';
const TEXT = Array.from({ length: 60 }, (_, i) => `Drain sentence ${i + 1} keeps the worker busy for a while.`).join(
  ' ',
);
const BODY = JSON.stringify({ text: TEXT, output_format: 'mp3_44100_128' });

let stack: SpeechStack;
beforeAll(async () => {
  // One job per worker: the second worker is free to continue the handed-over job. A 1 ms bound:
  // the job in hand is handed over at the first piece boundary after SIGTERM.
  stack = await startSpeechStack({
    workers: 2,
    concurrency: 1,
    accountSpeech: true,
    storeQuota: true,
    workerEnv: { WORKER_DRAIN_MS: '1' },
  });
}, 120_000);
afterAll(async () => {
  await stack?.stop();
}, 60_000);

const stream = () =>
  fetch(`${stack.url}/v1/text-to-speech/${RACHEL}/stream`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'xi-api-key': stack.apiKey },
    body: BODY,
  });

it('SIGTERM mid-stream with a small drain bound: another worker finishes it byte-identical, charged once, the job completed without a stall', async () => {
  const reference = await stream();
  expect(reference.status).toBe(200);
  const expected = Buffer.from(await reference.arrayBuffer());
  const before = await characterCount(stack);

  const existing = await jobStreams(stack);
  const pending = stream();
  const followed = followStream(stack.redis, await newJobStreamKey(stack, existing));
  // A couple of pieces in, far from the job's end: the holder is stopped mid-job.
  await eventually(() => followed.frames.filter((f) => f.frame.type === 'piece').length >= 2, 60_000, 5);
  const holderName = followed.frames[0]!.writer;
  const holder = stack.workers.find((w) => holderName.endsWith(`:${w.process.pid}`));
  if (!holder) throw new Error(`no worker of this stack wrote the job (${holderName})`);
  holder.process.kill('SIGTERM');
  expect(await holder.exited).toBe(0);

  const res = await pending;
  expect(res.status).toBe(200);
  const audio = Buffer.from(await res.arrayBuffer());
  await followed.stop();
  const jobId = res.headers.get('history-item-id')!;
  expect(audio.length).toBe(expected.length);
  expect(audio.equals(expected)).toBe(true);

  // The stream: the stopped worker's frames end before the last one, another worker's follow with the next sequence number.
  const frames = followed.frames;
  const held = frames.filter((f) => f.writer === holderName);
  const continued = frames.filter((f) => f.writer !== holderName);
  expect(held.some((f) => f.frame.type === 'end')).toBe(false);
  expect(continued.some((f) => f.frame.type === 'audio')).toBe(true);
  // The body was read whole, so the response ended on the end frame (an error frame cuts it); the
  // follower may miss that last frame: the gateway deletes the stream once it has relayed it.
  expect(frames.filter((f) => f.frame.type === 'error')).toEqual([]);
  expect(continued[0]!.frame.seq).toBe(held.at(-1)!.frame.seq + 1);
  expect(frames.map((f) => f.frame.seq)).toEqual(frames.map((_, i) => i));
  const pieces = frames.flatMap((f) => (f.frame.type === 'piece' ? [f.frame.index] : []));
  expect(new Set(pieces).size).toBe(pieces.length);

  // Charged once, recorded once as complete.
  expect(await characterCount(stack)).toBe(before + [...TEXT].length);
  // Found by the job's id: the reference generation, with the same text, has an item of its own.
  expect(await recordedHistory(stack, (h) => h.history_item_id === jobId)).toEqual([
    expect.objectContaining({ state: 'complete', character_count_change_to: [...TEXT].length }),
  ]);

  // The queue: completed, never failed, and the hand-over did not spend the resume limit.
  const queue = new Queue(stack.queue, { connection: stack.redis.duplicate({ maxRetriesPerRequest: null }) });
  try {
    const job = await queue.getJob(jobId);
    expect(await job?.getState()).toBe('completed');
    expect(job?.stalledCounter).toBe(0);
    expect(job?.failedReason).toBeFalsy();
  } finally {
    await queue.close();
  }
}, 180_000);
