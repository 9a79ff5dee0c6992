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
  /** When the stream's latest frame was written (Redis's clock, milliseconds; from its entry id). */
  lastFrameAt?: number;
  /** The stream's last frame (end, error or cancelled), when an earlier attempt wrote it. */
  last?: ChunkFrame;
  /**
   * An earlier attempt ended the job (`endJob`): it wrote the last frame and recorded the history,
   * and the gateway may have read and deleted the stream since. Nothing is claimed or read.
   */
  ended?: true;
  /**
   * The gateway refused the job before any attempt claimed it (its wait in the queue passed the
   * bound, `refuseUnstartedJob`): nobody waits for it; it must not run. Set with `ended`.
   */
  refused?: true;
}

type XRangeReply = [Buffer, Buffer[]][];

/** The owner key's value once the job has ended; attempt tokens are `worker#n`, never this. */
const ENDED = 'ended';

/** The owner key's value once the gateway refused the job unstarted (`refuseUnstartedJob`). */
const REFUSED = 'refused';

/** Takes the owner key unless the job has ended or was refused (one atomic step). */
const CLAIM = `
local owner = redis.call('GET', KEYS[1])
if owner == ARGV[2] then return 0 end
if owner == ARGV[4] then return 2 end
redis.call('SET', KEYS[1], ARGV[1], 'EX', ARGV[3])
return 1`;

/** Marks the job ended only while `token` still owns it (one atomic step). */
const END = `
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
return 1`;

/**
 * Makes `token` the job's owner, then reads its stream. From the moment the owner key changes, an
 * earlier attempt (a worker taken for dead) can append nothing more (`FrameWriter`'s `owner`), so
 * what is read here is final and the new attempt continues at `nextSeq`.
 */
export async function claimJob(redis: Redis, prefix: string, jobId: string, token: string): Promise<JobProgress> {
  const claimed = await redis.eval(
    CLAIM,
    1,
    ownerKey(prefix, jobId),
    token,
    ENDED,
    String(JOB_KEY_TTL_SECONDS),
    REFUSED,
  );
  if (claimed === 2) return { nextSeq: 0, audio: Buffer.alloc(0), pieces: 0, ended: true, refused: true };
  if (claimed !== 1) return { nextSeq: 0, audio: Buffer.alloc(0), pieces: 0, ended: true };
  const entries = (await redis.xrangeBuffer(audioStreamKey(prefix, jobId), '-', '+')) as XRangeReply;
  const audio: Buffer[] = [];
  const progress: JobProgress = { nextSeq: 0, audio: Buffer.alloc(0), pieces: 0 };
  for (const [id, fields] of entries) {
    const frame = decodeFrame(fields);
    // Frames are appended with consecutive numbers; anything else is not this job's sequence.
    if (frame.seq !== progress.nextSeq) continue;
    progress.nextSeq++;
    progress.lastFrameAt = Number(id.toString().split('-')[0]);
    if (frame.type === 'audio') audio.push(frame.data);
    else if (frame.type === 'piece') progress.pieces++;
    else if (isLastFrame(frame)) progress.last = frame;
  }
  progress.audio = Buffer.concat(audio);
  return progress;
}

/**
 * Marks the job ended by the attempt holding `token`, once it has written the job's last frame (or
 * dropped it). A job can come off the queue again after that: its worker was taken for dead near
 * the end, and the queue put it back while the attempt still finished. Without the mark, that
 * attempt would find the stream gone (the gateway deletes it once read) and run the job again.
 * The mark lasts until the gateway has given up on the job (`deadlineAt`), and at least the job
 * keys' lifetime. False when another attempt owns the job: this one was taken over, and leaves the
 * job to it.
 */
export async function endJob(
  redis: Redis,
  job: { keyPrefix: string; jobId: string; deadlineAt: number },
  token: string,
): Promise<boolean> {
  const keepMs = Math.max(JOB_KEY_TTL_SECONDS * 1000, job.deadlineAt - Date.now());
  return (await redis.eval(END, 1, ownerKey(job.keyPrefix, job.jobId), token, ENDED, String(Math.ceil(keepMs)))) === 1;
}

/**
 * The gateway's side of the wait bound: marks the job refused unless an attempt has claimed it (one
 * atomic `SET NX` on the owner key `claimJob` sets first). True: no worker has started the job and
 * none will (`claimJob` then answers `refused`), so the client can be refused and charged nothing.
 * False: a worker started it just in time, and the client keeps waiting for its audio.
 */
export async function refuseUnstartedJob(redis: Redis, prefix: string, jobId: string): Promise<boolean> {
  return (await redis.set(ownerKey(prefix, jobId), REFUSED, 'EX', JOB_KEY_TTL_SECONDS, 'NX')) === 'OK';
}
