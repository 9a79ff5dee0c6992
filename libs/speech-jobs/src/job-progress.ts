import type { Redis } from 'ioredis';
import { decodeFrame, isLastFrame, type ChunkFrame } from './frames';
import { audioStreamKey, JOB_KEY_TTL_SECONDS, ownerKey } from './naming';

/** What a job's stream already holds when an attempt takes the job: where that attempt goes on from. */
export interface JobProgress {
  /** The sequence number of the next frame (0: nothing was written). */
  nextSeq: number;
  /** The audio bytes written so far, in order (what the gateway has relayed or will relay). */
  audio: Buffer;
  /** Piece frames written so far: pieces 0 … pieces-1 are marked done. */
  pieces: number;
  /** The stream's last frame (end, error or cancelled), when an earlier attempt wrote it. */
  last?: ChunkFrame;
}

type XRangeReply = [Buffer, Buffer[]][];

/**
 * Makes `token` the job's owner, then reads its stream. From the moment the owner key changes, an
 * earlier attempt (a worker taken for dead) can append nothing more (`FrameWriter`'s `owner`), so
 * what is read here is final and the new attempt continues at `nextSeq`.
 */
export async function claimJob(redis: Redis, prefix: string, jobId: string, token: string): Promise<JobProgress> {
  await redis.set(ownerKey(prefix, jobId), token, 'EX', JOB_KEY_TTL_SECONDS);
  const entries = (await redis.xrangeBuffer(audioStreamKey(prefix, jobId), '-', '+')) as XRangeReply;
  const audio: Buffer[] = [];
  const progress: JobProgress = { nextSeq: 0, audio: Buffer.alloc(0), pieces: 0 };
  for (const [, fields] of entries) {
    const frame = decodeFrame(fields);
    // Frames are appended with consecutive numbers; anything else is not this job's sequence.
    if (frame.seq !== progress.nextSeq) continue;
    progress.nextSeq++;
    if (frame.type === 'audio') audio.push(frame.data);
    else if (frame.type === 'piece') progress.pieces++;
    else if (isLastFrame(frame)) progress.last = frame;
  }
  progress.audio = Buffer.concat(audio);
  return progress;
}
