import fs from 'node:fs';
import path from 'node:path';
import { piperConfigSchema, type PiperConfig } from './catalogue/piper-config';
import { clauseIpa } from './phonemizer';
import { startPiperInference, type PiperInference } from './piper-inference';
import { modelAtPrecision, type NeuralPrecision } from './piper-precision';
import type { SpokenSegment } from './pronunciation/apply';
import type { VoiceSettings } from './settings';
import type { VoiceColour } from './voice-colour';

/**
 * The neural model: a Piper (VITS) voice run with ONNX Runtime's native CPU build
 * (`onnxruntime-node`; its binaries ship inside the npm package, and the repository's `.npmrc`
 * skips the optional CUDA download, so nothing is fetched from outside the registry). eSpeak NG
 * turns text into IPA phonemes, the model turns phoneme ids into 22 050 Hz audio.
 * `scripts/fetch-voices.mjs` puts the voice in PIPER_VOICES_DIR. The model runs on a thread of its
 * own (`piper-inference.ts`): inference never stalls the caller's event loop.
 */
export const PIPER_VOICE_FILE = 'en_US-joe-medium';

export interface PiperVoice {
  config: PiperConfig;
  inference: PiperInference;
  /** The precision of the file loaded: `int8` only when asked for and its variant was there. */
  precision: NeuralPrecision;
  /** The model file loaded (`<name>.onnx` or its `.int8.onnx`); its config is this path's base + `.json`. */
  file: string;
  /** The voice's config file (`<name>.onnx.json`). */
  configFile: string;
}

export function piperModelAvailable(dir: string | undefined): boolean {
  if (!dir) return false;
  const base = path.join(dir, `${PIPER_VOICE_FILE}.onnx`);
  return fs.existsSync(base) && fs.existsSync(`${base}.json`);
}

export interface PiperLoadOptions {
  /**
   * Threads one inference uses (ONNX Runtime's intra-op pool). A process has one inference thread
   * per voice and thread count, which runs one inference at a time, whatever the jobs running;
   * their other steps (phonemes, voice colour, encoding) overlap it.
   */
  threads?: number;
  /** `int8`: the voice's quantised variant when it is there, else the model itself (`piper-precision.ts`). */
  precision?: NeuralPrecision;
  /** The Piper voice file's name without `.onnx` (default: the built-in voice, PIPER_VOICE_FILE). */
  name?: string;
}

const loaded = new Map<string, Promise<PiperVoice>>();

/** Loads (once per process, file and thread count) the voice's model; workers preload it at boot. */
export function loadPiperVoice(dir: string, options: PiperLoadOptions = {}): Promise<PiperVoice> {
  const threads = options.threads ?? 1;
  const base = path.join(dir, `${options.name ?? PIPER_VOICE_FILE}.onnx`);
  const model = modelAtPrecision(base, options.precision ?? 'fp32');
  const key = `${model.path}#${threads}`;
  let voice = loaded.get(key);
  if (!voice) {
    voice = (async () => {
      const config = piperConfigSchema.parse(JSON.parse(await fs.promises.readFile(`${base}.json`, 'utf8')));
      const inference = await startPiperInference({ modelPath: model.path, threads });
      return { config, inference, precision: model.precision, file: model.path, configFile: `${base}.json` };
    })();
    voice.catch(() => loaded.delete(key));
    loaded.set(key, voice);
  }
  return voice;
}

/** One text's IPA: clauses phonemised separately and joined with their punctuation (eSpeak's IPA output drops it). */
async function textIpa(text: string, config: Pick<PiperConfig, 'espeak'>, espeakBinary?: string): Promise<string> {
  const clauses = [...text.matchAll(/([^,.;:!?]+)([,.;:!?]*)/g)].filter((m) => (m[1] ?? '').trim());
  const phonemes = await Promise.all(clauses.map((m) => clauseIpa(m[1]!.trim(), config.espeak.voice, espeakBinary)));
  return phonemes.map((p, i) => `${p}${(clauses[i]![2] ?? '').slice(0, 1)}`).join(' ');
}

/**
 * Phoneme ids as Piper expects them: BOS, each phoneme followed by the pad id, EOS. Clauses are
 * phonemised separately and joined with their punctuation, which the model uses for pauses and
 * intonation. A piece a pronunciation dictionary changed comes as segments: a phoneme rule's IPA
 * goes to the model as it is (it takes IPA, so nothing is lost on the way), the rest through eSpeak NG.
 */
export async function phonemeIds(
  input: string | readonly SpokenSegment[],
  config: Pick<PiperConfig, 'espeak' | 'phoneme_id_map'>,
  espeakBinary?: string,
): Promise<number[]> {
  const map = config.phoneme_id_map;
  const pad = map._ ?? [0];
  const segments: readonly SpokenSegment[] =
    typeof input === 'string' ? [{ from: 0, to: 0, kind: 'text', text: input }] : input;
  const parts = await Promise.all(
    segments.map((s) =>
      s.kind === 'phonemes' ? s.phonemes.ipa.replace(/[/[\]]/g, '') : textIpa(s.text, config, espeakBinary),
    ),
  );
  const ids: number[] = [...(map['^'] ?? [1])];
  for (const symbol of [
    ...parts
      .filter((p) => p.trim())
      .join(' ')
      .normalize('NFD'),
  ]) {
    const id = map[symbol];
    if (id) ids.push(...id, ...pad);
  }
  ids.push(...(map.$ ?? [2]));
  return ids;
}

/**
 * Voice settings on the neural model: `stability` scales the sampling noise (less stable → more
 * varied delivery), `speed` and `style` the phoneme durations (style also widens duration noise).
 * `similarity_boost` has nothing to scale on a single-speaker model; speaker boost is applied after.
 * `deterministic`: no sampling noise at all. The model draws its noise inside the ONNX graph, which
 * ONNX Runtime's JavaScript API offers no way to seed, so the only repeatable output is the
 * noiseless one (the hosted API's `seed`; docs/speech.md, "Request options").
 */
export function piperScales(
  config: Pick<PiperConfig, 'inference'>,
  settings: VoiceSettings,
  deterministic = false,
): Float32Array {
  const { noise_scale, length_scale, noise_w } = config.inference;
  const noise = deterministic ? 0 : noise_scale * (1.5 - settings.stability);
  const length = length_scale / (settings.speed * (1 + 0.2 * settings.style));
  const durationNoise = deterministic ? 0 : noise_w * (1 + 0.5 * settings.style);
  return Float32Array.from([noise, length, durationNoise]);
}

/**
 * One piece of text to 16-bit PCM at the voice's rate (22 050 Hz for the shipped voice). `speaker`:
 * the speaker id of a multi-speaker voice (`num_speakers` > 1; default 0), which then goes to the
 * model as its `sid` input; a single-speaker model has no such input. `colour`: the voice colour
 * the inference thread applies right after the inference (none: the speaker as he is). A coloured
 * piece is always rendered without the model's sampling noise, as a seeded one is: the colour
 * keeps the words of a noiseless rendering (the high voices within 0–3 WER points of the speaker),
 * not of a sampled one (6–7 points over it, with either noise alone still 4–7; docs/decisions.md, 64).
 */
export async function synthesizePiperPcm(
  voice: PiperVoice,
  text: string | readonly SpokenSegment[],
  settings: VoiceSettings,
  espeakBinary?: string,
  deterministic = false,
  speaker = 0,
  colour: VoiceColour | null = null,
): Promise<Int16Array> {
  const ids = await phonemeIds(text, voice.config, espeakBinary);
  return voice.inference.run(
    BigInt64Array.from(ids, (id) => BigInt(id)),
    piperScales(voice.config, settings, deterministic || colour !== null),
    voice.config.num_speakers > 1 ? speaker : undefined,
    colour ? { ...colour, sampleRate: voice.config.audio.sample_rate } : undefined,
  );
}
