import type { Logger } from '@platform/logger';
import {
  ENGINE_SAMPLE_RATE,
  PIPER_VOICE_FILE,
  loadPiperVoice,
  piperModelAvailable,
  type PiperVoice,
} from '@platform/speech-engine';

/**
 * The neural model as this worker has it: loaded at boot, before the worker takes jobs, so no job
 * waits for the load. A model that is configured but cannot load (a corrupt or truncated file, an
 * unexpected sample rate) leaves the worker serving eSpeak NG only; its readiness says so and its
 * neural jobs fail with `NeuralModelUnavailable` (docs/operations.md, "The neural model").
 */
export type NeuralModel =
  { state: 'not_configured' } | { state: 'loaded'; voice: PiperVoice } | { state: 'failed'; reason: string };

/** Why a neural job cannot run here; its message reaches the client (the job's error frame). */
export class NeuralModelUnavailable extends Error {
  constructor(reason: string) {
    super(`the neural model is not available on this worker (${reason})`);
    this.name = 'NeuralModelUnavailable';
  }
}

export async function preloadNeuralModel(dir: string, threads: number, logger: Logger): Promise<NeuralModel> {
  if (!dir) return { state: 'not_configured' };
  if (!piperModelAvailable(dir)) {
    const reason = `${PIPER_VOICE_FILE}.onnx and its .json are not both in ${dir}`;
    logger.error({ dir }, 'neural model missing; this worker serves eSpeak NG only');
    return { state: 'failed', reason };
  }
  const started = performance.now();
  try {
    const voice = await loadPiperVoice(dir, { threads });
    if (voice.config.audio.sample_rate !== ENGINE_SAMPLE_RATE) {
      throw new Error(`its sample rate is ${voice.config.audio.sample_rate} Hz, not ${ENGINE_SAMPLE_RATE} Hz`);
    }
    const rssMb = Math.round(process.memoryUsage().rss / 2 ** 20);
    logger.info({ ms: Math.round(performance.now() - started), threads, rssMb }, 'neural model loaded');
    return { state: 'loaded', voice };
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    logger.error({ err }, 'neural model failed to load; this worker serves eSpeak NG only');
    return { state: 'failed', reason };
  }
}

/**
 * The model's line in `/readyz`. The worker stays ready either way: it still serves eSpeak NG, and
 * an operator reads here why it does not serve the neural model.
 */
export function neuralReadiness(model: NeuralModel): string {
  if (model.state === 'loaded') return 'ok';
  if (model.state === 'not_configured') return 'not configured (PIPER_VOICES_DIR), serving eSpeak NG only';
  return `failed to load, serving eSpeak NG only: ${model.reason}`;
}

/** The loaded voice for a neural job, or the reason it cannot run here. */
export function neuralVoice(model: NeuralModel): PiperVoice {
  if (model.state === 'loaded') return model.voice;
  throw new NeuralModelUnavailable(model.state === 'failed' ? 'it failed to load' : 'PIPER_VOICES_DIR is not set');
}
