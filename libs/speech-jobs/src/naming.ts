import { randomBytes } from 'node:crypto';

/**
 * Where a synthesis job lives in Redis. Gateway and worker agree on these names; tests pass their
 * own queue name and key prefix so concurrent runs never meet.
 */
export const SYNTHESIS_QUEUE = 'synthesis';
export const DEFAULT_KEY_PREFIX = 'speech';

/** The job's audio: a Redis stream of chunk frames, read from id 0 so nothing is missed. */
export function audioStreamKey(prefix: string, jobId: string): string {
  return `${prefix}:job:${jobId}:audio`;
}

/** Set by the gateway when the client went away; the worker checks it before every piece. */
export function cancelKey(prefix: string, jobId: string): string {
  return `${prefix}:job:${jobId}:cancel`;
}

/**
 * The attempt that may write the job's stream (a token per attempt). A worker that takes a job
 * over from a dead one sets it first; the dead (or merely stalled) attempt's writes then fail
 * (`createFrameWriter`'s `owner`), so only one attempt ever appends to the stream.
 */
export function ownerKey(prefix: string, jobId: string): string {
  return `${prefix}:job:${jobId}:owner`;
}

/**
 * The neural model's output per piece of a running job (a hash: piece index → 16-bit PCM), so a
 * worker that takes the job over repeats the pieces already rendered exactly (the model samples
 * noise that cannot be seeded). Removed when the job ends.
 */
export function pcmCheckpointKey(prefix: string, jobId: string): string {
  return `${prefix}:job:${jobId}:pcm`;
}

/**
 * How a job's takeovers went (a hash: the takeovers and audio bytes seen at the last attempt's
 * claim, and the takeovers in a row after which the job had no new audio), for the resume limit.
 */
export function resumesKey(prefix: string, jobId: string): string {
  return `${prefix}:job:${jobId}:resumes`;
}

/** Lifetime of a job's keys after their last write: a crashed party cannot leave them behind. */
export const JOB_KEY_TTL_SECONDS = 120;

const JOB_ID = /^[A-Za-z0-9_-]{8,64}$/;
export function isJobId(value: string): boolean {
  return JOB_ID.test(value);
}

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** A job id: 20 random alphanumerics, the shape of the hosted API's history item ids (it becomes one). */
export function newJobId(): string {
  let id = '';
  while (id.length < 20) {
    for (const byte of randomBytes(32)) {
      // Rejection sampling keeps every character equally likely (62 does not divide 256).
      if (byte < 248 && id.length < 20) id += ALPHABET[byte % 62];
    }
  }
  return id;
}
