import type { EngineVoiceParams } from './voice-params';

export interface PremadeVoice {
  voice_id: string;
  name: string;
  description: string;
  labels: { gender: 'male' | 'female'; accent: string; language: string; age?: string; use_case?: string };
  /** Default voice settings shown by `GET /v1/voices/{id}`; requests override them. */
  settings: { stability: number; similarity_boost: number };
  engine: EngineVoiceParams;
  /** Sentence read for the preview that `preview_url` serves. */
  previewText: string;
}

const v = (
  voice_id: string,
  name: string,
  description: string,
  labels: PremadeVoice['labels'],
  engine: EngineVoiceParams,
  previewText: string,
  settings = { stability: 0.5, similarity_boost: 0.75 },
): PremadeVoice => ({ voice_id, name, description, labels, engine, previewText, settings });

const EN = 'Hello! This is a preview of my voice. I hope you like how I sound.';

/**
 * The premade voices. Ids of the hosted API's best-known voices are reused for English voices
 * so client code with those ids hard-coded works; the sound is ours.
 */
export const PREMADE_VOICES: readonly PremadeVoice[] = [
  v(
    '21m00Tcm4TlvDq8ikWAM',
    'Rachel',
    'Calm, clear American female voice.',
    { gender: 'female', accent: 'american', language: 'en', age: 'young', use_case: 'narration' },
    { voice: 'en-us', variant: 'f3', pitch: 55, pitchRange: 50, speed: 165, amplitude: 100, wordGap: 0 },
    EN,
  ),
  v(
    'pNInz6obpgDQGcFmaJgB',
    'Adam',
    'Deep American male voice.',
    { gender: 'male', accent: 'american', language: 'en', age: 'middle aged', use_case: 'narration' },
    { voice: 'en-us', variant: 'm3', pitch: 35, pitchRange: 45, speed: 160, amplitude: 100, wordGap: 0 },
    EN,
  ),
  v(
    'EXAVITQu4vr4xnSDxMaL',
    'Bella',
    'Soft, bright American female voice.',
    { gender: 'female', accent: 'american', language: 'en', age: 'young', use_case: 'conversational' },
    { voice: 'en-us', variant: 'f2', pitch: 65, pitchRange: 60, speed: 175, amplitude: 100, wordGap: 0 },
    EN,
  ),
  v(
    'ErXwobaYiN019PkySvjV',
    'Antoni',
    'Well-rounded British male voice.',
    { gender: 'male', accent: 'british', language: 'en', age: 'young', use_case: 'narration' },
    { voice: 'en-gb', variant: 'm1', pitch: 45, pitchRange: 50, speed: 170, amplitude: 100, wordGap: 0 },
    EN,
  ),
  v(
    'AZnzlk1XvdvUeBnXmlld',
    'Domi',
    'Strong, energetic British female voice.',
    { gender: 'female', accent: 'british', language: 'en', age: 'young', use_case: 'narration' },
    { voice: 'en-gb', variant: 'f4', pitch: 60, pitchRange: 65, speed: 185, amplitude: 110, wordGap: 0 },
    EN,
  ),
  v(
    'TxGEqnHWrfWFTfGW9XjX',
    'Josh',
    'Young Scottish male voice.',
    { gender: 'male', accent: 'scottish', language: 'en', age: 'young', use_case: 'conversational' },
    { voice: 'en-gb-scotland', variant: 'm2', pitch: 50, pitchRange: 55, speed: 175, amplitude: 100, wordGap: 0 },
    EN,
  ),
  v(
    'VR6AewLTigWG4xSOukaG',
    'Arnold',
    'Gravelly, slow American male voice.',
    { gender: 'male', accent: 'american', language: 'en', age: 'old', use_case: 'characters' },
    { voice: 'en-us', variant: 'm7', pitch: 25, pitchRange: 35, speed: 145, amplitude: 105, wordGap: 1 },
    EN,
  ),
  v(
    'MF3mGyEYCl7XYWbV9V6O',
    'Elli',
    'Caribbean-English female voice.',
    { gender: 'female', accent: 'caribbean', language: 'en', age: 'young', use_case: 'conversational' },
    { voice: 'en-029', variant: 'f1', pitch: 58, pitchRange: 55, speed: 170, amplitude: 100, wordGap: 0 },
    EN,
  ),
  v(
    'pl8d5Kq3nT2xWm9zAe4F',
    'Hans',
    'German male voice.',
    { gender: 'male', accent: 'german', language: 'de', age: 'middle aged', use_case: 'narration' },
    { voice: 'de', variant: 'm4', pitch: 40, pitchRange: 45, speed: 165, amplitude: 100, wordGap: 0 },
    'Hallo! Das ist eine Hörprobe meiner Stimme. Ich hoffe, sie gefällt Ihnen.',
  ),
  v(
    'fr7Qm2Lx9Vb4Nc8Zs1Tk',
    'Amélie',
    'French female voice.',
    { gender: 'female', accent: 'french', language: 'fr', age: 'young', use_case: 'narration' },
    { voice: 'fr-fr', variant: 'f5', pitch: 60, pitchRange: 55, speed: 170, amplitude: 100, wordGap: 0 },
    'Bonjour ! Voici un aperçu de ma voix. J’espère qu’elle vous plaît.',
  ),
  v(
    'es3Hw8Rt5Yp2Lk7Jd9Qx',
    'Lucía',
    'Latin American Spanish female voice.',
    { gender: 'female', accent: 'latin american', language: 'es', age: 'young', use_case: 'conversational' },
    { voice: 'es-419', variant: 'f2', pitch: 62, pitchRange: 58, speed: 175, amplitude: 100, wordGap: 0 },
    '¡Hola! Esta es una muestra de mi voz. Espero que te guste.',
  ),
  v(
    'it6Gv1Bn4Mc8Xz3Sa5Wd',
    'Marco',
    'Italian male voice.',
    { gender: 'male', accent: 'italian', language: 'it', age: 'middle aged', use_case: 'narration' },
    { voice: 'it', variant: 'm6', pitch: 42, pitchRange: 60, speed: 170, amplitude: 100, wordGap: 0 },
    'Ciao! Questa è un’anteprima della mia voce. Spero che ti piaccia.',
  ),
  v(
    'pt9Kd2Fh6Jl3Qw8Er4Ty',
    'Thiago',
    'Brazilian Portuguese male voice.',
    { gender: 'male', accent: 'brazilian', language: 'pt', age: 'young', use_case: 'conversational' },
    { voice: 'pt-br', variant: 'm1', pitch: 48, pitchRange: 55, speed: 175, amplitude: 100, wordGap: 0 },
    'Olá! Esta é uma prévia da minha voz. Espero que você goste.',
  ),
  v(
    'ja4Xc7Vb2Nm9As5Df1Gh',
    'Yuki',
    'Japanese female voice.',
    { gender: 'female', accent: 'japanese', language: 'ja', age: 'young', use_case: 'conversational' },
    { voice: 'ja', variant: 'f3', pitch: 66, pitchRange: 50, speed: 165, amplitude: 100, wordGap: 0 },
    'こんにちは。これは私の声のサンプルです。',
  ),
  v(
    'jo5Pq8Nr2Lm7Kv4Ws9Xz',
    'Joe',
    'Warm American male voice; neural with the piper_en_us_v1 model, eSpeak NG otherwise.',
    { gender: 'male', accent: 'american', language: 'en', age: 'middle aged', use_case: 'narration' },
    {
      voice: 'en-us',
      variant: 'm1',
      pitch: 42,
      pitchRange: 50,
      speed: 170,
      amplitude: 100,
      wordGap: 0,
      neural: 'en_US-joe-medium',
    },
    EN,
  ),
];

const BY_ID = new Map(PREMADE_VOICES.map((voice) => [voice.voice_id, voice]));

export function findPremadeVoice(voiceId: string): PremadeVoice | null {
  return BY_ID.get(voiceId) ?? null;
}
