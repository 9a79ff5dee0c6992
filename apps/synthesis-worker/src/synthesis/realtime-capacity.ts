import os from 'node:os';
import type { Logger } from '@platform/logger';
import type { PiperVoice } from '@platform/speech-engine';
import { calibrationRun, type CalibrationRun } from './calibration-run';
import { levelKeptUp, realtimeSlots, type CalibrationLevel } from './capacity-model';
import type { NeuralModel } from './neural-model';

/**
 * How many jobs this worker runs at once: its real-time slots. A stream is real-time when its audio
 * is made at least as fast as it plays; past the slots the CPU is shared so thinly that every
 * stream stutters, so a job that finds no free slot waits in the queue (docs/operations.md,
 * "Real-time capacity"; docs/decisions.md).
 */
interface RealtimeCapacity {
  slots: number;
  /** Where the number came from: set by the operator, measured at boot, or the eSpeak NG cap. */
  source: 'configured' | 'calibrated' | 'espeak';
  /** The calibration's figures, when it ran. */
  calibration?: Calibration;
}

/** What the boot calibration measured and concluded (logged as `real-time capacity calibrated`). */
interface Calibration {
  /** One stream alone: seconds of audio, and wall-clock, process CPU and inference seconds per second of audio. */
  audioSeconds: number;
  wallRtf: number;
  cpuRtf: number;
  inferenceRtf: number;
  /** Slots the contention model gives from that one stream (capacity-model.ts). */
  modelSlots: number;
  /** The most streams run at once that all kept up; the slots are this. */
  checkedSlots: number;
  /** Whether even one stream alone kept up (if not, the worker still takes one job at a time). */
  aloneKeptUp: boolean;
}

/**
 * Longest the calibration may run at boot (seconds, the single stream included; startApp and
 * orchestrators wait for readiness about 30 s). Levels are checked upwards, so a check cut short
 * keeps the largest level that kept up: fewer slots, never more.
 */
const CALIBRATION_BUDGET_SECONDS = 20;

/** Cores available to this process when the operator did not say (cgroup limits included). */
function defaultCores(): number {
  return os.availableParallelism();
}

interface CapacitySettings {
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
 * The worker's slots: the configured number, else (with the neural model loaded) calibrated, else
 * `max` (eSpeak NG alone costs a few hundredths of a core per stream). The calibration synthesises
 * one stream alone, gives the contention model's slots from it, then runs 2, 3, … of those streams
 * at once, up to the model's number and within `budgetSeconds`, and keeps the largest level whose
 * every stream kept up: the model can only lower what one stream suggests, the check only lower the model.
 */
export async function resolveCapacity(
  settings: CapacitySettings,
  /** Only its state and, loaded, its first voice (the one calibrated). */
  neural: NeuralModel | { state: 'loaded'; voice: PiperVoice },
  logger: Logger,
  runFor: (voice: PiperVoice, espeakBinary?: string) => CalibrationRun = calibrationRun,
  budgetSeconds = CALIBRATION_BUDGET_SECONDS,
): Promise<RealtimeCapacity> {
  if (settings.configured > 0) return { slots: settings.configured, source: 'configured' };
  if (neural.state !== 'loaded') return { slots: settings.max, source: 'espeak' };
  const cores = settings.cores > 0 ? settings.cores : defaultCores();
  const run = runFor(neural.voice, settings.espeakBinary);
  const started = performance.now();
  const alone = await run(1);
  const modelSlots = realtimeSlots(alone, { cores, safety: settings.safety, max: settings.max });
  let checkedSlots = 1;
  // N streams at once take about N times one alone (they share one inference thread): a level that
  // would end past the budget is not started.
  const fitsBudget = (streams: number) =>
    (performance.now() - started) / 1000 + streams * alone.wallSeconds <= budgetSeconds;
  for (let streams = 2; streams <= modelSlots && fitsBudget(streams); streams++) {
    if (!levelKeptUp(await run(streams), settings.safety)) break;
    checkedSlots = streams;
  }
  const calibration: Calibration = {
    ...aloneFactors(alone),
    modelSlots,
    checkedSlots,
    aloneKeptUp: levelKeptUp(alone, settings.safety),
  };
  const log = { slots: checkedSlots, cores, safety: settings.safety, ...calibration };
  if (calibration.aloneKeptUp) logger.info(log, 'real-time capacity calibrated');
  else
    logger.warn(
      log,
      'real-time capacity calibrated: even one stream is not real-time on this worker; serving one job at a time',
    );
  return { slots: checkedSlots, source: 'calibrated', calibration };
}

/** One stream's real-time factors (seconds per second of audio), rounded for the log. */
function aloneFactors(
  alone: CalibrationLevel,
): Pick<Calibration, 'audioSeconds' | 'wallRtf' | 'cpuRtf' | 'inferenceRtf'> {
  const pieces = alone.streams[0] ?? [];
  const audioSeconds = Math.max(
    pieces.reduce((sum, p) => sum + p.audioSeconds, 0),
    1e-3,
  );
  const inferenceSeconds = pieces.reduce((sum, p) => sum + p.inferenceSeconds, 0);
  const r = (n: number) => Math.round(n * 1000) / 1000;
  return {
    audioSeconds: r(audioSeconds),
    wallRtf: r(alone.wallSeconds / audioSeconds),
    cpuRtf: r(alone.cpuSeconds / audioSeconds),
    inferenceRtf: r(inferenceSeconds / audioSeconds),
  };
}
