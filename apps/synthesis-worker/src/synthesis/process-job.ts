import type { Redis } from 'ioredis';
import type { Logger } from '@platform/logger';
import {
  completeAudioFile,
  continueEncoding,
  NEURAL_MODEL_ID,
  neuralColour,
  PIPER_VOICE_FILE,
  renderParams,
  resolveOutputFormat,
  type RenderParams,
  compilePronunciation,
  pronouncePiece,
  synthesizePiperPcm,
  synthesizeToStream,
  type Pronunciation,
} from '@platform/speech-engine';
import {
  audioStreamKey,
  cancelKey,
  claimJob,
  endJob,
  createFrameWriter,
  historyRecord,
  ownerKey,
  pcmCheckpointKey,
  resumesKey,
  SupersededError,
  UNAVAILABLE_STATUS,
  type FrameWriter,
  type JobProgress,
  type RecordHistory,
  type SynthesisJobData,
} from '@platform/speech-jobs';
import { takeoversWithoutProgress } from '../liveness/resume-budget';
import { createAudioBatcher } from './audio-batcher';
import { workerMetrics as metrics, type FailureReason } from './metrics';
import { NeuralModelUnavailable, neuralVoice, type NeuralModel } from './neural-model';
import { checkpointedPcm } from './pcm-checkpoints';
import { pieceFrames } from './piece-timing';
import { ResumeMismatchError, skipSentAudio } from './resume';

export interface ProcessDeps {
  redis: Redis;
  logger: Logger;
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
  /**
   * Aborted when this attempt's job lock is lost (the lock heartbeat could not renew it): another
   * worker may run the job now, so this attempt stops at once, as when its owner token is taken.
   */
  lost?: AbortSignal;
  /**
   * Aborted when this worker is draining and its bound (`WORKER_DRAIN_MS`) is over: the job stops
   * at the next piece, its audio so far stays in the stream, and it ends `handed-over` (neither
   * ended nor recorded) for the caller to put back in the queue, where another worker resumes it
   * after the audio already sent, as it would a lost worker's job (docs/decisions.md).
   */
  handOver?: AbortSignal;
  /**
   * This attempt: the worker process (`host:pid`, stored with every frame it writes) and how often
   * the job was taken over from a lost worker before (BullMQ's stalled counter). Default: a first
   * attempt by an unnamed worker.
   */
  attempt?: { worker: string; takeovers: number };
  /**
   * Takeovers in a row that found no new audio (the job's workers died without it moving on) after
   * which the job fails instead of being resumed again (`SYNTHESIS_MAX_RESUMES`; default: no limit).
   */
  maxResumes?: number;
}

/**
 * The engine parameters of a job: its voice (in the requested language, if any) with the settings
 * applied. A cloned voice arrives with `similarity_boost` already applied by the gateway.
 */
export function jobRenderParams(data: Pick<SynthesisJobData, 'voice' | 'language' | 'settings'>): RenderParams {
  const voice = data.language ? { ...data.voice.engine, voice: data.language.espeak } : data.voice.engine;
  return renderParams(voice, data.settings, { similarityApplied: data.voice.similarityApplied === true });
}

/**
 * `superseded`: another worker took the job over while this one still ran it (this one was taken
 * for dead). `duplicate`: the queue handed out a job an earlier attempt had already ended.
 * `handed-over`: stopped by this worker's drain (`handOver`); the job goes back to the queue.
 */
export type JobOutcome = 'complete' | 'cancelled' | 'failed' | 'expired' | 'superseded' | 'duplicate' | 'handed-over';

/**
 * Runs one synthesis job: synthesise piece by piece, publish audio frames with sequence numbers,
 * finish with an end, error or cancelled frame; stop within one piece when the client went away;
 * hand the result to the history store once.
 */
export async function processJob(data: SynthesisJobData, deps: ProcessDeps): Promise<JobOutcome> {
  const { redis, logger } = deps;
  const log = logger.child({ jobId: data.jobId });
  const streamKey = audioStreamKey(data.keyPrefix, data.jobId);
  const cancel = cancelKey(data.keyPrefix, data.jobId);
  const attempt = deps.attempt ?? { worker: 'synthesis-worker', takeovers: 0 };
  // This attempt owns the stream from here on; what an earlier (dead) attempt wrote is final.
  const token = `${attempt.worker}#${attempt.takeovers}`;
  const sent = await claimJob(redis, data.keyPrefix, data.jobId, token);
  const takenOver = attempt.takeovers > 0 || sent.nextSeq > 0;
  // Every attempt is counted started once here and ended once on each way out below.
  const firstStart = !takenOver && !sent.ended && !sent.refused;
  metrics.jobStarted({
    queue: deps.queue,
    model: data.modelId,
    ...(firstStart ? { waitedSeconds: (Date.now() - deps.enqueuedAt) / 1000 } : {}),
  });
  if (sent.refused) {
    // Its wait in the queue passed the gateway's bound and the client was refused (503 / 1013).
    metrics.jobEnded({ model: data.modelId, outcome: 'expired', runSeconds: 0 });
    log.info('synthesis job refused by the gateway before it started; not run');
    return 'expired';
  }
  if (sent.ended) {
    // Back in the queue after an attempt taken for dead had finished it after all (see endJob).
    log.warn('synthesis job already ended by an earlier attempt; not run again');
    metrics.jobEnded({ model: data.modelId, outcome: 'duplicate', runSeconds: 0 });
    return 'duplicate';
  }
  if (takenOver) {
    const early = await takeOverEarly(data, deps, sent, token);
    if (early) return early;
    const dry = await takeoversWithoutProgress(redis, data, {
      takeovers: attempt.takeovers,
      audioBytes: sent.audio.length,
    });
    if (dry > (deps.maxResumes ?? Infinity)) {
      // Every worker that ran it died before it moved on: it is what kills them. The client is told.
      log.error(
        { takeovers: attempt.takeovers, withoutProgress: dry },
        'synthesis job lost by its workers too often without progress; failing it',
      );
      await failLostJob(redis, data, { token, worker: attempt.worker }, sent);
      await redis
        .del(resumesKey(data.keyPrefix, data.jobId), pcmCheckpointKey(data.keyPrefix, data.jobId))
        .catch(() => undefined);
      metrics.jobEnded({ model: data.modelId, outcome: 'failed', runSeconds: 0, reason: 'lost' });
      return 'failed';
    }
    metrics.takeover({ model: data.modelId });
  } else if (Date.now() > data.deadlineAt) {
    // The gateway has given up on this job already; nobody would hear it.
    metrics.jobEnded({ model: data.modelId, outcome: 'expired', runSeconds: 0 });
    log.info('synthesis job expired before it started');
    return 'expired';
  }
  // One line per job taken, in the order the queue hands them out (plan priority is visible here).
  log.info(
    {
      accountId: data.accountId,
      characters: [...data.text].length,
      outputFormat: data.outputFormat,
      takeovers: attempt.takeovers,
    },
    'synthesis job started',
  );
  if (sent.nextSeq > 0)
    log.info(
      { sentFrames: sent.nextSeq, sentBytes: sent.audio.length, sentPieces: sent.pieces },
      'synthesis job taken over from a lost worker; resuming after the audio already sent',
    );
  const frameWriter = createFrameWriter(redis, streamKey, {
    owner: { key: ownerKey(data.keyPrefix, data.jobId), token },
    firstSeq: sent.nextSeq,
    writer: attempt.worker,
  });
  const lastFrameAt = takenOver ? sent.lastFrameAt : undefined;
  const writer =
    lastFrameAt === undefined
      ? frameWriter
      : onFirstFrame(frameWriter, () =>
          metrics.takeoverStall({ model: data.modelId, seconds: (Date.now() - lastFrameAt) / 1000 }),
        );
  // A superseded attempt (its lock lost, or its owner token taken) stops at once, in the middle of
  // a piece: the engine's processes are killed rather than left to finish audio nobody may write.
  const superseded = new AbortController();
  if (deps.lost) deps.lost.addEventListener('abort', () => superseded.abort(), { once: true });
  const signal = AbortSignal.any([superseded.signal, ...(deps.signal ? [deps.signal] : [])]);
  const format = resolveOutputFormat(data.outputFormat);
  const audio: Buffer[] = [];
  const unsent = skipSentAudio(sent.audio);
  // A second encoding continues the bytes already sent as its codec says (Ogg Opus: the first one's serial).
  const sameStream = format ? continueEncoding(format, sent.audio) : (bytes: Buffer) => bytes;
  // Set when this attempt cannot go on (taken over, or its audio differs): the engine stops at the next piece.
  let halted = false;
  const batcher = createAudioBatcher(async (bytes) => {
    audio.push(bytes);
    try {
      const fresh = unsent(bytes);
      if (fresh.length > 0) await writer.append({ type: 'audio', data: fresh });
    } catch (err) {
      halted = true;
      if (err instanceof SupersededError) superseded.abort();
      throw err;
    }
  });
  const started = performance.now();
  let outcome: JobOutcome = 'failed';
  let reason: FailureReason = 'engine';
  try {
    if (!format) throw new Error(`unknown output format ${data.outputFormat}`);
    const pronunciation = data.pronunciation?.length ? compilePronunciation(data.pronunciation) : undefined;
    const { params, pcmFor } = enginePieces(data, { ...deps, signal }, pronunciation);
    const pieceFrame = pieceFrames(data);
    const progress = await synthesizeToStream(
      {
        text: data.text,
        ...(data.pieces ? { pieces: data.pieces } : {}),
        // A takeover renders the piece lost with the dead worker alongside the ones it repeats.
        ...(sent.pieces > 0 ? { prefetch: sent.pieces } : {}),
        params,
        format,
        shouldStop: async () =>
          halted || superseded.signal.aborted || deps.handOver?.aborted === true || (await redis.exists(cancel)) === 1,
        signal,
        ...(deps.espeakBinary ? { espeakBinary: deps.espeakBinary } : {}),
        ...(pcmFor ? { pcmFor } : {}),
        ...(data.timestamps ? { timed: true } : {}),
        ...(pronunciation ? { pronunciation } : {}),
      },
      (bytes) => batcher.push(sameStream(bytes)),
      (piece) => {
        // Piece markers follow the audio written so far, in order (see frames.ts). Every piece's
        // frame is built (the alignment's offsets add up); the ones already sent are not written again.
        const frame = pieceFrame(piece);
        if (piece.index >= sent.pieces) batcher.then(() => writer.append(frame));
      },
    );
    await batcher.done();
    if (progress.stopped && deps.handOver?.aborted && (await redis.exists(cancel)) === 0) {
      // The stream stays as it is, the job unended and unrecorded: the next attempt continues it.
      outcome = 'handed-over';
      log.info({ piecesDone: progress.pieces }, 'synthesis job handed over: this worker is draining');
    } else if (progress.stopped) {
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
      metrics.jobSynthesised({
        model: data.modelId,
        characters: [...data.text].length,
        audioSeconds: progress.durationSeconds,
        runSeconds: secondsSince(started),
      });
    }
  } catch (err) {
    if (err instanceof SupersededError || superseded.signal.aborted) {
      // Taken for dead (its lock lapsed) while it still ran: the new owner finishes the job and
      // records it; this attempt leaves the stream and the history alone.
      outcome = 'superseded';
      log.warn('another worker took this synthesis job over; stopping');
    } else if (err instanceof ResumeMismatchError) {
      reason = 'resume_mismatch';
      log.error({ err }, 'synthesis job could not be resumed');
      await writer
        .append({ type: 'error', status: UNAVAILABLE_STATUS, message: LOST_JOB_MESSAGE })
        .catch(() => undefined);
    } else {
      log.error({ err }, 'synthesis job failed');
      // Engine failures stay internal; a missing neural model is the client's to know (it can retry
      // on another model or later, when another worker serves it).
      const message = err instanceof NeuralModelUnavailable ? err.message : 'the speech engine failed';
      if (err instanceof NeuralModelUnavailable) reason = 'model_unavailable';
      await writer.append({ type: 'error', status: 'error', message }).catch(() => undefined);
    }
  }
  if (outcome === 'handed-over') {
    metrics.jobEnded({ model: data.modelId, outcome, runSeconds: secondsSince(started) });
    return outcome;
  }
  // Recorded before the job is marked ended: an attempt that finds it ended does nothing more
  // (`sent.ended`), so a worker that died between the two would have lost its history item. Dying
  // before the mark, it leaves the job to a takeover, which records it in turn (the store keeps the
  // first record of a job). Recorded even when another attempt took the job over just after this one
  // wrote its last frame: the listener has every frame, and the new owner may find the stream already
  // read and deleted by the gateway, and then have nothing to record.
  if (outcome !== 'superseded' && data.recordHistory && deps.recordHistory) {
    const record = historyRecord(data, {
      state: outcome === 'complete' ? 'complete' : outcome === 'cancelled' ? 'cancelled' : 'failed',
      contentType: format?.contentType ?? 'application/octet-stream',
      // The history item is a file: a WAV stream's header gets its real sizes.
      audio: format ? completeAudioFile(format, Buffer.concat(audio)) : Buffer.concat(audio),
    });
    await deps.recordHistory(record).catch((err: unknown) => log.error({ err }, 'history record failed'));
  }
  // Taken over at the last moment, after this attempt wrote the last frame: the new owner ends the job.
  const takenAtTheEnd = outcome !== 'superseded' && !(await endJob(redis, data, token).catch(() => true));
  metrics.jobEnded({
    model: data.modelId,
    outcome: takenAtTheEnd ? 'superseded' : outcome,
    runSeconds: secondsSince(started),
    ...(outcome === 'failed' && !takenAtTheEnd ? { reason } : {}),
  });
  if (outcome === 'superseded' || takenAtTheEnd) return 'superseded';
  // The job is over: no later attempt needs its rendered pieces or its takeover record.
  if (takenOver || data.modelId === NEURAL_MODEL_ID)
    await redis
      .del(pcmCheckpointKey(data.keyPrefix, data.jobId), resumesKey(data.keyPrefix, data.jobId))
      .catch(() => undefined);
  return outcome;
}

/** The attempt that writes a lost job's last frame: its owner token and its worker process. */
interface LostJobOwner {
  token: string;
  worker: string;
}

/** What the client is told when no worker could finish its job (an `unavailable` error frame). */
const LOST_JOB_MESSAGE = 'the synthesis worker stopped and the generation could not be finished';

/**
 * A job taken over from a lost worker, before any synthesis: the outcome when there is nothing to
 * synthesise (the client left meanwhile, the stream is already finished, or the gateway has given
 * up), else undefined: resume.
 */
async function takeOverEarly(
  data: SynthesisJobData,
  deps: ProcessDeps,
  sent: JobProgress,
  token: string,
): Promise<JobOutcome | undefined> {
  const { redis } = deps;
  const log = deps.logger.child({ jobId: data.jobId });
  const end = (outcome: JobOutcome) => {
    metrics.jobEnded({ model: data.modelId, outcome, runSeconds: 0 });
    return outcome;
  };
  if ((await redis.exists(cancelKey(data.keyPrefix, data.jobId))) === 1) {
    // The gateway has given up or its client left: it has already recorded the generation.
    log.info('synthesis job taken over after its client went away; dropping it');
    await redis.del(audioStreamKey(data.keyPrefix, data.jobId));
    return end((await endJob(redis, data, token)) ? 'cancelled' : 'superseded');
  }
  if (sent.last) {
    // The lost worker finished the stream and died before the queue heard of it.
    if (!(await endJob(redis, data, token))) return end('superseded');
    if (sent.last.type !== 'end') return end('failed');
    if (data.recordHistory && deps.recordHistory) {
      const format = resolveOutputFormat(data.outputFormat);
      const contentType = format?.contentType ?? 'application/octet-stream';
      const audio = format ? completeAudioFile(format, sent.audio) : sent.audio;
      await deps
        .recordHistory(historyRecord(data, { state: 'complete', contentType, audio }))
        .catch((err: unknown) => log.error({ err }, 'history record failed'));
    }
    return end('complete');
  }
  if (sent.nextSeq === 0 && Date.now() > data.deadlineAt) {
    log.info('synthesis job taken over after its gateway gave up; dropping it');
    return end('expired');
  }
  return undefined;
}

/**
 * Ends a job no worker can finish with an `unavailable` error frame (the gateway answers 503 and
 * records it as failed), unless the stream already ended or the client left. Called when the
 * queue fails a job lost more often than `SYNTHESIS_MAX_RESUMES` allows.
 */
export async function failLostJob(
  redis: Redis,
  data: Pick<SynthesisJobData, 'keyPrefix' | 'jobId' | 'deadlineAt'>,
  owner: LostJobOwner,
  claimed?: JobProgress,
): Promise<void> {
  const { token, worker } = owner;
  const sent = claimed ?? (await claimJob(redis, data.keyPrefix, data.jobId, token));
  if (sent.ended || sent.last || (await redis.exists(cancelKey(data.keyPrefix, data.jobId))) === 1) return;
  const writer = createFrameWriter(redis, audioStreamKey(data.keyPrefix, data.jobId), {
    owner: { key: ownerKey(data.keyPrefix, data.jobId), token },
    firstSeq: sent.nextSeq,
    writer: worker,
  });
  await writer.append({ type: 'error', status: UNAVAILABLE_STATUS, message: LOST_JOB_MESSAGE });
  await endJob(redis, data, token);
}

/**
 * The engine parameters of a job and, for the neural model, where its pieces' PCM comes from: the
 * Piper voice, coloured to the job's voice on the inference thread right after the inference
 * (`synthesizePiperPcm`'s `colour`, an in-process PSOLA that gives the same samples for the same
 * speaker's audio, which is noiseless for a coloured voice; the speaker's own voice is random unless
 * the job is seeded), so the PCM kept for
 * a worker that may take the job over (pcm-checkpoints.ts) is the coloured one; the engine is then
 * told the voice is the model's own speaker (`neural`).
 */
function enginePieces(
  data: SynthesisJobData,
  deps: ProcessDeps,
  pronunciation?: Pronunciation,
): { params: RenderParams; pcmFor?: (piece: string, index: number) => Promise<Int16Array> } {
  const params = jobRenderParams(data);
  if (data.modelId !== NEURAL_MODEL_ID) return { params };
  // The job's language decides the Piper voice (its own speaker's when that speaks it).
  const language = data.language?.id ?? data.voice.engine.voice;
  const { voice: piper, speaker: sid } = neuralVoice(deps.neural ?? { state: 'not_configured' }, params, language);
  const colour = params.colour ?? neuralColour(params);
  const render = async (piece: string) => {
    // The model takes IPA: a dictionary's phoneme rules reach it as they are (`phonemeIds`).
    const said = pronunciation ? pronouncePiece(piece, pronunciation) : piece;
    return synthesizePiperPcm(piper, said, data.settings, deps.espeakBinary, data.seed !== undefined, sid, colour);
  };
  return {
    params: { ...params, neural: params.neural ?? PIPER_VOICE_FILE },
    pcmFor: checkpointedPcm(deps.redis, pcmCheckpointKey(data.keyPrefix, data.jobId), render),
  };
}

/** `writer`, calling `first` once, after its first frame is written. */
function onFirstFrame(writer: FrameWriter, first: () => void): FrameWriter {
  let written = false;
  return {
    async append(body) {
      await writer.append(body);
      if (!written) {
        written = true;
        first();
      }
    },
    get written() {
      return writer.written;
    },
  };
}

function secondsSince(startedAt: number): number {
  return (performance.now() - startedAt) / 1000;
}
