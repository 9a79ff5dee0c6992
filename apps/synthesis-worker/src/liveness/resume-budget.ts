import type { Redis } from 'ioredis';
import { resumesKey } from '@platform/speech-jobs';

/**
 * The record outlives any generation (a 5 000-character text is about 5 minutes of audio); it is
 * removed when the job ends. Were it to lapse mid-job, earlier takeovers would count as dry ones.
 */
const RECORD_TTL_SECONDS = 3600;

/**
 * The resume limit counts only the takeovers that found the job where the previous one left it: a
 * job that kills every worker that runs it makes no progress between deaths and fails after
 * `SYNTHESIS_MAX_RESUMES` of them, while a job whose workers die for other reasons (a node lost, a
 * scale-down, an out-of-memory kill of a neighbour) moves on between deaths and is resumed as
 * often as that happens (docs/decisions.md).
 *
 * Called by an attempt that resumes a job (taken over or handed over), after it claimed the job:
 * `takeovers` is the queue's count of lost attempts (BullMQ's stalled counter), `audioBytes` the
 * audio the stream held at the claim (a piece marker written after its audio is no progress).
 * Returns the takeovers in a row that found no new audio.
 */
export async function takeoversWithoutProgress(
  redis: Redis,
  job: { keyPrefix: string; jobId: string },
  now: { takeovers: number; audioBytes: number },
): Promise<number> {
  const key = resumesKey(job.keyPrefix, job.jobId);
  const seen = await redis.hgetall(key);
  // A first attempt leaves no record: no takeover yet, no audio.
  const before = {
    takeovers: Number(seen.takeovers ?? 0),
    audioBytes: Number(seen.audioBytes ?? 0),
    dry: Number(seen.dry ?? 0),
  };
  const deaths = Math.max(0, now.takeovers - before.takeovers);
  // New audio was written by the attempt claimed last; it is the first of the deaths since (a hand-over is none).
  // Any later death was of an attempt that died before writing anything.
  const dry = now.audioBytes > before.audioBytes ? Math.max(0, deaths - 1) : before.dry + deaths;
  await redis
    .multi()
    .hset(key, { takeovers: now.takeovers, audioBytes: now.audioBytes, dry })
    .expire(key, RECORD_TTL_SECONDS)
    .exec();
  return dry;
}
