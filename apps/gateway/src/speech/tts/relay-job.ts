import type { ChunkFrame } from '@platform/speech-jobs';
import { recordFirstAudio, type AudioTransport } from '../../metrics/gateway-metrics';
import { countRefusal } from '../../metrics/stream-metrics';
import { QueueWaitExceeded, type JobRunner } from './job-runner';
import { frameCutReason, pipelineCutReason, type StreamListening } from './stream-listening';
import { frameError, type PreparedJob } from './synthesis';

/**
 * Where a job's audio goes: an HTTP response (whole file or chunked) or a WebSocket. The pipeline
 * is the same for all three; only the hand-over differs.
 */
export interface AudioSink {
  /** One frame for the client, in order. False: the client cannot take more (stalled or gone). */
  frame(frame: ChunkFrame): boolean | Promise<boolean>;
  /** After the job's last frame: true once the client has been handed every byte. */
  finish(): Promise<boolean>;
}

const TRANSPORT: Record<PreparedJob['input']['kind'], AudioTransport> = {
  convert: 'rest',
  stream: 'stream',
  websocket: 'websocket',
};

/**
 * How a generation ended for its client: only a delivered one is charged. `refused`: no worker
 * started it within the wait bound (`QueueWaitExceeded`); nothing ran, so history keeps nothing.
 */
type Delivery = 'delivered' | 'cancelled' | 'failed' | 'refused';

/**
 * Runs a prepared job and relays its frames to `sink` at the client's pace, then settles: the
 * characters are charged when the client got the whole audio; otherwise the reservation is
 * released and the generation recorded as cancelled (the client left, stalled, or `signal`
 * aborted) or failed (`PreparedJob.giveUp`), before the caller tells the client. A failure frame
 * or a pipeline error is thrown after that. Stopping early cancels the job (`JobRunner.run`).
 * `listening`, for a stream played as it arrives: each frame once handed to the client, and why it
 * failed (the caller ends it).
 */
export async function relayJob(
  runner: JobRunner,
  job: PreparedJob,
  signal: AbortSignal,
  sink: AudioSink,
  listening?: StreamListening,
): Promise<Delivery> {
  let delivery: Delivery = 'failed';
  const heardFrame = listening?.job();
  try {
    let completed = false;
    let stopped = false;
    let heard = false;
    for await (const frame of runner.run(job.jobId, job.input, {
      priority: job.priority,
      signal,
      createdAt: job.createdAt,
    })) {
      const failure = frameError(frame);
      if (failure) {
        listening?.failed(frameCutReason(frame) ?? 'pipeline');
        throw failure;
      }
      if (!(await sink.frame(frame))) {
        stopped = true;
        break;
      }
      heardFrame?.(frame);
      if (frame.type === 'audio' && !heard) {
        heard = true;
        recordFirstAudio(job.input.modelId, TRANSPORT[job.input.kind], (Date.now() - job.createdAt) / 1000);
      }
      if (frame.type === 'end') completed = true;
    }
    if (signal.aborted || stopped) delivery = 'cancelled';
    else if (completed) delivery = (await sink.finish()) ? 'delivered' : 'cancelled';
    // Frames that stop short with no failure and no client gone: the gateway's shutdown cancelled the job.
    else listening?.failed('shutdown');
    return delivery;
  } catch (err) {
    delivery = signal.aborted ? 'cancelled' : err instanceof QueueWaitExceeded ? 'refused' : 'failed';
    if (delivery === 'refused') countRefusal('queue_wait');
    else if (delivery === 'failed') listening?.failed(pipelineCutReason(err));
    throw err;
  } finally {
    if (delivery === 'delivered') await job.settle(job.characters);
    else if (delivery === 'refused') await job.settle(0);
    else await job.giveUp(delivery);
  }
}
