import type { Logger } from '@platform/logger';
import {
  loadPiperVoice,
  loadVoiceCatalogue,
  type EngineVoiceParams,
  type NeuralPrecision,
  type PiperVoice,
  type VoiceCatalogue,
} from '@platform/speech-engine';

/**
 * The neural model as this worker has it: every Piper voice of the catalogue (PIPER_VOICES_DIR)
 * loaded at boot, before the worker takes jobs, so no job waits for a load. Voices that cannot load
 * (a corrupt or truncated file) are left out and logged; when none loads the worker serves
 * eSpeak NG only, its readiness says so and its neural jobs fail with `NeuralModelUnavailable`
 * (docs/operations.md, "The neural model"). `voice`: the first (the built-in one when installed),
 * which calibrates the worker's capacity.
 */
export type NeuralModel =
  | { state: 'not_configured' }
  | { state: 'loaded'; voice: PiperVoice; voices: ReadonlyMap<string, PiperVoice>; catalogue: VoiceCatalogue }
  | { state: 'failed'; reason: string };

/** Why a neural job cannot run here; its message reaches the client (the job's error frame). */
export class NeuralModelUnavailable extends Error {
  constructor(reason: string) {
    super(`the neural model is not available on this worker (${reason})`);
    this.name = 'NeuralModelUnavailable';
  }
}

export async function preloadNeuralModel(
  dir: string,
  threads: number,
  logger: Logger,
  catalogue: VoiceCatalogue = loadVoiceCatalogue(dir),
  precision: NeuralPrecision = 'fp32',
): Promise<NeuralModel> {
  if (!dir) return { state: 'not_configured' };
  for (const skipped of catalogue.skipped) logger.error({ dir, ...skipped }, 'Piper voice skipped');
  if (catalogue.installed.length === 0) {
    logger.error({ dir }, 'no Piper voice installed; this worker serves eSpeak NG only');
    return { state: 'failed', reason: `no Piper voice (a <name>.onnx with its <name>.onnx.json) in ${dir}` };
  }
  const started = performance.now();
  const voices = new Map<string, PiperVoice>();
  let reason = '';
  for (const installed of catalogue.installed) {
    try {
      const voice = await loadPiperVoice(dir, { threads, name: installed.name, precision });
      if (voice.precision !== precision)
        logger.warn({ voice: installed.name, precision }, `no ${installed.name}.int8.onnx: this voice serves fp32`);
      voices.set(installed.name, voice);
    } catch (err) {
      reason ||= `${installed.name}: ${err instanceof Error ? err.message : String(err)}`;
      logger.error({ err, voice: installed.name }, 'Piper voice failed to load; the others serve');
    }
  }
  const first = voices.values().next().value;
  if (!first) {
    logger.error({ reason }, 'neural model failed to load; this worker serves eSpeak NG only');
    return { state: 'failed', reason };
  }
  const rssMb = Math.round(process.memoryUsage().rss / 2 ** 20);
  logger.info(
    { ms: Math.round(performance.now() - started), threads, precision, rssMb, voices: [...voices.keys()] },
    'neural model loaded',
  );
  return { state: 'loaded', voice: first, voices, catalogue };
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

/**
 * The loaded voice and speaker a neural job speaks with (the catalogue's choice for its voice and
 * language, `speakerFor`), or the reason it cannot run here.
 */
export function neuralVoice(
  model: NeuralModel,
  engine: Pick<EngineVoiceParams, 'speaker' | 'neural'> = {},
  language = 'en',
): { voice: PiperVoice; speaker: number } {
  if (model.state !== 'loaded')
    throw new NeuralModelUnavailable(model.state === 'failed' ? 'it failed to load' : 'PIPER_VOICES_DIR is not set');
  const chosen = model.catalogue.speakerFor(engine, language);
  const voice = chosen ? model.voices.get(chosen.voice.name) : undefined;
  if (!chosen || !voice) throw new NeuralModelUnavailable(`no loaded Piper voice speaks ${language}`);
  return { voice, speaker: chosen.id };
}

/**
 * Ends every voice's inference thread once its running inference returns (`PiperInference.close`).
 * Called before the process exits: exiting under a native inference aborts the process (SIGABRT,
 * exit code 134) instead of the clean exit a rollout expects.
 */
export async function closeNeuralModel(model: NeuralModel): Promise<void> {
  if (model.state !== 'loaded') return;
  await Promise.allSettled([...model.voices.values()].map((voice) => voice.inference.close()));
}
