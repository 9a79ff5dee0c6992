import fs from 'node:fs';
import path from 'node:path';
import { ENGINE_SAMPLE_RATE } from '../espeak';
import { languageFamily } from '../languages';
import { isPrecisionVariant } from '../piper-precision';
import { piperConfigSchema, piperLanguage, type PiperConfig } from './piper-config';

/** A Piper voice found in the voices directory: `<name>.onnx` beside a valid `<name>.onnx.json`. */
export interface InstalledPiperVoice {
  /** The file name without `.onnx`: how the catalogue and the engine parameters name the voice. */
  name: string;
  modelPath: string;
  config: PiperConfig;
  /** `languageFamily` of its language (`en`, `de`, …). */
  language: string;
}

/** A file of the directory that looks like a voice but cannot be served, and why. */
export interface SkippedVoice {
  name: string;
  reason: string;
}

/**
 * Every Piper voice in `dir`. A model without its `.onnx.json`, with an unreadable one, or at a
 * sample rate other than the engine's (Piper's `x_low` and `low` voices are 16 kHz) is skipped
 * with its reason, which the apps log: the other voices still serve.
 */
export function scanInstalledVoices(dir: string): { voices: InstalledPiperVoice[]; skipped: SkippedVoice[] } {
  const voices: InstalledPiperVoice[] = [];
  const skipped: SkippedVoice[] = [];
  const files = fs.existsSync(dir) ? fs.readdirSync(dir).sort() : [];
  // A voice's int8 variant (`<voice>.int8.onnx`) is that voice at another precision, not a voice.
  for (const file of files.filter((f) => f.endsWith('.onnx') && !isPrecisionVariant(f))) {
    const name = file.slice(0, -'.onnx'.length);
    const modelPath = path.join(dir, file);
    const configPath = `${modelPath}.json`;
    if (!fs.existsSync(configPath)) {
      skipped.push({ name, reason: `${file}.json is missing` });
      continue;
    }
    let raw: unknown;
    try {
      raw = JSON.parse(fs.readFileSync(configPath, 'utf8'));
    } catch (err) {
      skipped.push({ name, reason: `${file}.json is not JSON (${err instanceof Error ? err.message : String(err)})` });
      continue;
    }
    const parsed = piperConfigSchema.safeParse(raw);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      skipped.push({ name, reason: `${file}.json: ${issue.path.join('.') || '(root)'}: ${issue.message}` });
      continue;
    }
    const config = parsed.data;
    if (config.audio.sample_rate !== ENGINE_SAMPLE_RATE) {
      skipped.push({ name, reason: `its sample rate is ${config.audio.sample_rate} Hz, not ${ENGINE_SAMPLE_RATE} Hz` });
      continue;
    }
    voices.push({ name, modelPath, config, language: languageFamily(piperLanguage(config)) });
  }
  return { voices, skipped };
}
