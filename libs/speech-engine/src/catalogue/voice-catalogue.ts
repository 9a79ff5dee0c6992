import fs from 'node:fs';
import path from 'node:path';
import { languageFamily } from '../languages';
import { modelCatalogue, type Model } from '../model-catalogue';
import { PIPER_VOICE_FILE } from '../piper';
import { PREMADE_VOICES, type PremadeVoice } from '../premade-voices';
import type { EngineVoiceParams } from '../voice-params';
import { CATALOGUE_FILE, catalogueFileSchema, type CatalogueFileVoice } from './catalogue-file';
import { scanInstalledVoices, type InstalledPiperVoice, type SkippedVoice } from './installed-voices';

/** One speaker of an installed Piper voice (id 0 of a single-speaker one). */
export interface InstalledSpeaker {
  voice: InstalledPiperVoice;
  id: number;
}

/**
 * What this deployment speaks with, read once at boot by the gateway and the worker alike from the
 * voices directory (PIPER_VOICES_DIR): the Piper voices installed there, the voices clients choose
 * (the premade ones, replaced or joined by those of the directory's catalogue file) and the models
 * `GET /v1/models` lists.
 */
export interface VoiceCatalogue {
  installed: readonly InstalledPiperVoice[];
  /** Files that look like voices but cannot be served, with why: logged at boot. */
  skipped: readonly SkippedVoice[];
  voices: readonly PremadeVoice[];
  models: readonly Model[];
  findVoice(voiceId: string): PremadeVoice | null;
  /**
   * The installed speaker that speaks a voice in a language (a tag or eSpeak NG voice): the voice's
   * own (`speaker`, else `neural`) when its model speaks that language, else the language's
   * default (the built-in neural voice for English when installed, else the language's first voice
   * by file name, speaker 0); null when no installed voice speaks the language.
   */
  speakerFor(engine: Pick<EngineVoiceParams, 'speaker' | 'neural'>, language: string): InstalledSpeaker | null;
  /** Every installed speaker (of every language), in file then speaker order. */
  speakers(): InstalledSpeaker[];
}

/** A catalogue file that cannot be used: the apps stop at boot with this message. */
export class VoiceCatalogueError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'VoiceCatalogueError';
  }
}

/** Reads the catalogue of `dir` (PIPER_VOICES_DIR; empty: no neural voices, the premade voices only). */
export function loadVoiceCatalogue(dir: string | undefined): VoiceCatalogue {
  const scan = dir ? scanInstalledVoices(dir) : { voices: [], skipped: [] };
  // The built-in voice first: it is English's default speaker whatever else is installed.
  const installed = [...scan.voices].sort(
    (a, b) => Number(b.name === PIPER_VOICE_FILE) - Number(a.name === PIPER_VOICE_FILE),
  );
  const own = dir ? readCatalogueFile(path.join(dir, CATALOGUE_FILE), installed) : [];
  const replaced = new Set(own.map((v) => v.voice_id));
  const voices = [...PREMADE_VOICES.filter((v) => !replaced.has(v.voice_id)), ...own];
  const byId = new Map(voices.map((v) => [v.voice_id, v]));
  const families = [...new Set(installed.map((v) => v.language))];
  const speakers = installed.flatMap((voice) =>
    Array.from({ length: voice.config.num_speakers }, (_, id): InstalledSpeaker => ({ voice, id })),
  );
  return {
    installed,
    skipped: scan.skipped,
    voices,
    models: modelCatalogue({ neural: families }),
    findVoice: (voiceId) => byId.get(voiceId) ?? null,
    speakerFor(engine, language) {
      const family = languageFamily(language);
      const name = engine.speaker?.model ?? engine.neural;
      const ownVoice = installed.find((v) => v.name === name && v.language === family);
      if (ownVoice) return { voice: ownVoice, id: Math.min(engine.speaker?.id ?? 0, ownVoice.config.num_speakers - 1) };
      const fallback = installed.find((v) => v.language === family);
      return fallback ? { voice: fallback, id: 0 } : null;
    },
    speakers: () => [...speakers],
  };
}

function readCatalogueFile(file: string, installed: readonly InstalledPiperVoice[]): PremadeVoice[] {
  if (!fs.existsSync(file)) return [];
  let raw: unknown;
  try {
    raw = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (err) {
    throw new VoiceCatalogueError(`${file} is not JSON: ${err instanceof Error ? err.message : String(err)}`);
  }
  const parsed = catalogueFileSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new VoiceCatalogueError(`${file}: ${issue.path.join('.') || '(root)'}: ${issue.message}`);
  }
  return parsed.data.voices.map((entry, i) => catalogueVoice(entry, installed, `${file}: voices.${i}`));
}

const DEFAULT_PREVIEW = 'Hello! This is a preview of my voice. I hope you like how I sound.';

/** A catalogue file's voice as a premade voice: eSpeak NG parameters for the other model, the speaker for the neural one. */
function catalogueVoice(
  entry: CatalogueFileVoice,
  installed: readonly InstalledPiperVoice[],
  where: string,
): PremadeVoice {
  const voice = installed.find((v) => v.name === entry.model);
  if (!voice) {
    const names = installed.map((v) => v.name).join(', ') || 'none';
    throw new VoiceCatalogueError(
      `${where}.model: ${entry.model} is not an installed Piper voice (installed: ${names})`,
    );
  }
  const id = speakerId(entry, voice, where);
  const female = entry.labels.gender === 'female';
  const engine: EngineVoiceParams = {
    voice: voice.config.espeak.voice,
    // What the voice sounds like on eSpeak NG (a request for that model, or a language its speaker does not speak).
    variant: female ? 'f3' : 'm3',
    pitch: 50,
    pitchRange: 50,
    speed: 175,
    amplitude: 100,
    speaker: { model: voice.name, id },
    ...(entry.colour
      ? { colour: { pitchHz: entry.colour.pitch_hz, formantRatio: entry.colour.formant_ratio } }
      : { neural: voice.name }),
  };
  return {
    voice_id: entry.voice_id,
    name: entry.name,
    description:
      entry.description ??
      `${entry.name}: the Piper voice ${voice.name}${voice.config.num_speakers > 1 ? `, speaker ${id}` : ''}.`,
    labels: {
      gender: entry.labels.gender,
      accent: entry.labels.accent ?? voice.config.language?.code ?? voice.language,
      language: voice.language,
      ...(entry.labels.age ? { age: entry.labels.age } : {}),
      ...(entry.labels.use_case ? { use_case: entry.labels.use_case } : {}),
    },
    settings: { stability: 0.5, similarity_boost: 0.75 },
    engine,
    previewText: entry.preview_text ?? DEFAULT_PREVIEW,
  };
}

function speakerId(entry: CatalogueFileVoice, voice: InstalledPiperVoice, where: string): number {
  const speakers = voice.config.num_speakers;
  if (entry.speaker === undefined) return 0;
  const id = typeof entry.speaker === 'number' ? entry.speaker : voice.config.speaker_id_map[entry.speaker];
  if (id === undefined || id >= speakers) {
    const known = speakers > 1 ? `0-${speakers - 1} or a name of its speaker_id_map` : '0 (it has one speaker)';
    throw new VoiceCatalogueError(
      `${where}.speaker: ${voice.name} has no speaker ${JSON.stringify(entry.speaker)} (${known})`,
    );
  }
  return id;
}
