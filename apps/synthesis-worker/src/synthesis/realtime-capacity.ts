import os from 'node:os';
import type { Logger } from '@platform/logger';
import {
  DEFAULT_OUTPUT_FORMAT,
  DEFAULT_VOICE_SETTINGS,
  PREMADE_VOICES,
  renderParams,
  resolveOutputFormat,
  synthesizePiperPcm,
  synthesizeToStream,
  type PiperVoice,
} from '@platform/speech-engine';
import type { NeuralModel } from './neural-model';

/**
 * How many jobs this worker runs at once: its real-time slots. A stream is real-time when its audio
 * is made at least as fast as it plays; past the slots the CPU is shared so thinly that every
 * stream stutters, so a job that finds no free slot waits in the queue (docs/operations.md,
 * "Real-time capacity"; docs/decisions.md).
 */
export interface RealtimeCapacity {
  slots: number;
  /** Where the number came from: set by the operator, measured at boot, or the eSpeak NG cap. */
  source: 'configured' | 'calibrated' | 'espeak';
  /** The calibration's figures, when it ran. */
  calibration?: Calibration;
}

/** One stream synthesised alone at boot: what it cost per second of audio. */
export interface Calibration {
  /** Seconds of audio made. */
  audioSeconds: number;
  /** Wall-clock seconds per second of audio (the stream's real-time factor). */
  wallRtf: number;
  /** CPU seconds of this process (every thread) per second of audio. */
  cpuRtf: number;
  /** Wall-clock seconds the inference thread was busy per second of audio. */
  inferenceRtf: number;
}

export interface CapacityInputs {
  /** Cores this worker may use: its share of the machine (WORKER_CORES). */
  cores: number;
  /** Fraction of those cores streams may fill (WORKER_REALTIME_SAFETY), the rest is headroom. */
  safety: number;
  /** Core-seconds one stream needs per second of audio: the larger of its wall and CPU real-time factors. */
  streamRtf: number;
  /**
   * Seconds the one inference thread is busy per second of one stream's audio. The thread runs one
   * inference at a time, so however many cores the worker has, it serves at most 1 / this streams.
   */
  inferenceRtf: number;
  /** Never more than this many jobs at once (WORKER_CONCURRENCY). */
  max: number;
}

/**
 * floor(min(cores × safety / streamRtf, safety / inferenceRtf)), between 1 and `max`. One slot at
 * least: a worker that cannot keep even one stream real-time still serves, one job at a time.
 */
export function realtimeSlots(inputs: CapacityInputs): number {
  const { cores, safety, streamRtf, inferenceRtf, max } = inputs;
  const byCores = streamRtf > 0 ? (cores * safety) / streamRtf : Infinity;
  const byThread = inferenceRtf > 0 ? safety / inferenceRtf : Infinity;
  const slots = Math.floor(Math.min(byCores, byThread));
  return Math.max(1, Math.min(max, Number.isFinite(slots) ? slots : max));
}

/** Cores available to this process when the operator did not say (cgroup limits included). */
export function defaultCores(): number {
  return os.availableParallelism();
}

/**
 * About 11 s of audio in two sentences (four pieces): long enough that the pipeline's steady state
 * (one piece's inference overlapping the colouring and encoding of the one before) outweighs its
 * first piece, short enough to add one to four seconds to a boot (idle to busy 2-core machine).
 */
export const CALIBRATION_TEXT =
  'Every morning the baker opens the shop at six, and sells warm bread to the people on their way to work. ' +
  'A stream of audio is real-time when each second of it is ready before the listener needs to hear it.';

/**
 * Synthesises `CALIBRATION_TEXT` as a stream job does (phonemes, inference on the model's thread,
 * the default voice's colour, resampling and MP3 encoding), alone, and measures what it cost.
 */
export async function calibrate(voice: PiperVoice, espeakBinary?: string): Promise<Calibration> {
  const premade = PREMADE_VOICES[0]!;
  const format = resolveOutputFormat(DEFAULT_OUTPUT_FORMAT)!;
  let inferenceMs = 0;
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  const progress = await synthesizeToStream(
    {
      text: CALIBRATION_TEXT,
      params: renderParams(premade.engine, DEFAULT_VOICE_SETTINGS),
      format,
      ...(espeakBinary ? { espeakBinary } : {}),
      pcmFor: async (piece) => {
        const t = performance.now();
        try {
          return await synthesizePiperPcm(voice, piece, DEFAULT_VOICE_SETTINGS, espeakBinary);
        } finally {
          inferenceMs += performance.now() - t;
        }
      },
    },
    () => undefined,
  );
  const wallSeconds = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
  const audioSeconds = Math.max(progress.durationSeconds, 1e-3);
  return {
    audioSeconds,
    wallRtf: wallSeconds / audioSeconds,
    cpuRtf: (cpu.user + cpu.system) / 1e6 / audioSeconds,
    inferenceRtf: inferenceMs / 1000 / audioSeconds,
  };
}

export interface CapacitySettings {
  /** WORKER_REALTIME_STREAMS: 0 = measure. */
  configured: number;
  /** WORKER_CORES: 0 = every core available to the process. */
  cores: number;
  safety: number;
  /** WORKER_CONCURRENCY: the most jobs at once, whatever the measurement says. */
  max: number;
  espeakBinary?: string;
}

/**
 * The worker's slots: the configured number, else (with the neural model loaded) measured by
 * `calibrate`, else `max` (eSpeak NG alone costs a few hundredths of a core per stream).
 */
export async function resolveCapacity(settings: CapacitySettings, neural: NeuralModel, logger: Logger, measure = calibrate): Promise<RealtimeCapacity> {
  if (settings.configured > 0) return { slots: settings.configured, source: 'configured' };
  if (neural.state !== 'loaded') return { slots: settings.max, source: 'espeak' };
  const cores = settings.cores > 0 ? settings.cores : defaultCores();
  const calibration = await measure(neural.voice, settings.espeakBinary);
  const slots = realtimeSlots({
    cores,
    safety: settings.safety,
    streamRtf: Math.max(calibration.wallRtf, calibration.cpuRtf),
    inferenceRtf: calibration.inferenceRtf,
    max: settings.max,
  });
  logger.info({ slots, cores, safety: settings.safety, ...roundAll(calibration) }, 'real-time capacity calibrated');
  return { slots, source: 'calibrated', calibration };
}

function roundAll(c: Calibration): Calibration {
  const r = (n: number) => Math.round(n * 1000) / 1000;
  return { audioSeconds: r(c.audioSeconds), wallRtf: r(c.wallRtf), cpuRtf: r(c.cpuRtf), inferenceRtf: r(c.inferenceRtf) };
}
