import type { Redis } from 'ioredis';
import type { Logger } from '@platform/logger';
import {
  completeAudioFile,
  NEURAL_MODEL_ID,
  renderParams,
  resolveOutputFormat,
  type RenderParams,
  synthesizePiperPcm,
  synthesizeToStream,
} from '@platform/speech-engine';
import {
  audioStreamKey,
  cancelKey,
  createFrameWriter,
  historyRecord,
  type RecordHistory,
  type SynthesisJobData,
} from '@platform/speech-jobs';
import { createAudioBatcher } from './audio-batcher';
import type { WorkerMetrics } from './metrics';
import { NeuralModelUnavailable, neuralVoice, type NeuralModel } from './neural-model';
import { pieceFrames } from './piece-timing';

export interface ProcessDeps {
  redis: Redis;
  logger: Logger;
  metrics: WorkerMetrics;
  /** The queue the job came from and when it entered it (BullMQ's `job.timestamp`), for the wait metric. */
  queue: string;
  enqueuedAt: number;
  /** The speech store's history (`createStoreHooks`); called exactly once per job that ran. */
  recordHistory?: RecordHistory;
  espeakBinary?: string;
  /** The neural model as loaded at boot; jobs for it fail when it is not loaded. */
  neural?: NeuralModel;
  /** Aborted on a hard stop: kills the engine processes of the job. */
  signal?: AbortSignal;
}

/**
 * The engine parameters of a job: its voice (in the requested language, if any) with the settings
 * applied. A cloned voice arrives with `similarity_boost` already applied by the gateway.
 */
export function jobRenderParams(data: Pick<SynthesisJobData, 'voice' | 'language' | 'settings'>): RenderParams {
  const voice = data.language ? { ...data.voice.engine, voice: data.language.espeak } : data.voice.engine;
  return renderParams(voice, data.settings, { similarityApplied: data.voice.similarityApplied === true });
}

export type JobOutcome = 'complete' | 'cancelled' | 'failed' | 'expired';

/**
 * Runs one synthesis job: synthesise piece by piece, publish audio frames with sequence numbers,
 * finish with an end, error or cancelled frame; stop within one piece when the client went away;
 * hand the result to the history store once.
 */
export async function processJob(data: SynthesisJobData, deps: ProcessDeps): Promise<JobOutcome> {
  const { redis, logger, metrics } = deps;
  const log = logger.child({ jobId: data.jobId });
  const streamKey = audioStreamKey(data.keyPrefix, data.jobId);
  const cancel = cancelKey(data.keyPrefix, data.jobId);
  if (Date.now() > data.deadlineAt) {
    // The gateway has given up on this job already; nobody would hear it.
    metrics.jobEnded({ model: data.modelId, outcome: 'expired', runSeconds: 0 });
    log.info('synthesis job expired before it started');
    return 'expired';
  }
  metrics.jobStarted({ queue: deps.queue, model: data.modelId, waitedSeconds: (Date.now() - deps.enqueuedAt) / 1000 });
  // One line per job taken, in the order the queue hands them out (plan priority is visible here).
  log.info({ accountId: data.accountId, characters: [...data.text].length, outputFormat: data.outputFormat }, 'synthesis job started');
  const writer = createFrameWriter(redis, streamKey);
  const format = resolveOutputFormat(data.outputFormat);
  const audio: Buffer[] = [];
  const batcher = createAudioBatcher(async (bytes) => {
    audio.push(bytes);
    await writer.append({ type: 'audio', data: bytes });
  });
  const started = performance.now();
  let outcome: JobOutcome = 'failed';
  try {
    if (!format) throw new Error(`unknown output format ${data.outputFormat}`);
    const params = jobRenderParams(data);
    const pcmFor = neuralPcmFor(data, deps);
    const pieceFrame = pieceFrames(data);
    const progress = await synthesizeToStream(
      {
        text: data.text,
        ...(data.pieces ? { pieces: data.pieces } : {}),
        params,
        format,
        shouldStop: async () => (await redis.exists(cancel)) === 1,
        ...(deps.signal ? { signal: deps.signal } : {}),
        ...(deps.espeakBinary ? { espeakBinary: deps.espeakBinary } : {}),
        ...(pcmFor ? { pcmFor } : {}),
        ...(data.timestamps ? { timed: true } : {}),
      },
      (bytes) => batcher.push(bytes),
      (piece) => {
        // Piece markers follow the audio written so far, in order (see frames.ts).
        batcher.then(() => writer.append(pieceFrame(piece)));
      },
    );
    await batcher.done();
    if (progress.stopped) {
      outcome = 'cancelled';
      log.info({ piecesDone: progress.pieces }, 'synthesis job cancelled by its client');
      // Nobody reads this stream any more: remove it rather than finish it.
      await redis.del(streamKey, cancel);
    } else {
      await writer.append({
        type: 'end',
        characters: [...data.text].length,
        durationSeconds: progress.durationSeconds,
        pieces: progress.pieces,
        contentType: format.contentType,
      });
      outcome = 'complete';
      metrics.jobSynthesised({ model: data.modelId, characters: [...data.text].length, audioSeconds: progress.durationSeconds, runSeconds: secondsSince(started) });
    }
  } catch (err) {
    log.error({ err }, 'synthesis job failed');
    // Engine failures stay internal; a missing neural model is the client's to know (it can retry
    // on another model or later, when another worker serves it).
    const message = err instanceof NeuralModelUnavailable ? err.message : 'the speech engine failed';
    await writer.append({ type: 'error', status: 'error', message }).catch(() => undefined);
  } finally {
    metrics.jobEnded({ model: data.modelId, outcome, runSeconds: secondsSince(started) });
  }
  if (data.recordHistory && deps.recordHistory) {
    const record = historyRecord(data, {
      state: outcome === 'complete' ? 'complete' : outcome === 'cancelled' ? 'cancelled' : 'failed',
      contentType: format?.contentType ?? 'application/octet-stream',
      // The history item is a file: a WAV stream's header gets its real sizes.
      audio: format ? completeAudioFile(format, Buffer.concat(audio)) : Buffer.concat(audio),
    });
    await deps.recordHistory(record).catch((err: unknown) => log.error({ err }, 'history record failed'));
  }
  return outcome;
}

/** Where a job for the neural model gets its PCM (the Piper voice); undefined for eSpeak NG's own jobs. */
function neuralPcmFor(data: SynthesisJobData, deps: ProcessDeps): ((piece: string) => Promise<Int16Array>) | undefined {
  if (data.modelId !== NEURAL_MODEL_ID) return undefined;
  const piper = neuralVoice(deps.neural ?? { state: 'not_configured' });
  return (piece) => synthesizePiperPcm(piper, piece, data.settings, deps.espeakBinary, data.seed !== undefined);
}

function secondsSince(startedAt: number): number {
  return (performance.now() - startedAt) / 1000;
}
