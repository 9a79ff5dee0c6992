import { spawn } from 'node:child_process';
import { PITCH_POINTS, VARIANTS } from './espeak-calibration';
import { ENGINE_SAMPLE_RATE } from './espeak';
import { decimate2, yinTrack } from './pitch';
import type { EngineVoiceParams } from './voice-params';

/**
 * A voice's identity on the neural model, which has one speaker of its own: the median pitch it
 * speaks at and how far its formants (timbre) sit from that speaker's (a ratio; 1 leaves them).
 */
export interface VoiceColour {
  pitchHz: number;
  formantRatio: number;
}

/**
 * Median F0 of the neural model's own speaker (Piper `en_US-joe-medium`), about 85–100 Hz
 * depending on the sentence: the fallback for a piece too short to measure (`speakerPitchHz`).
 */
export const NEURAL_SPEAKER_F0_HZ = 90;

/**
 * The median F0 an eSpeak NG voice speaks at: its variant's calibration curve (espeak-calibration.ts)
 * at its pitch setting, interpolated in log-frequency. Null for a variant without calibration.
 */
export function espeakPitchHz(variant: string, pitch: number): number | null {
  const curve = VARIANTS.find((v) => v.variant === variant)?.f0AtPitch;
  if (!curve) return null;
  const p = Math.min(99, Math.max(0, pitch));
  let i = 0;
  while (i < PITCH_POINTS.length - 2 && p > PITCH_POINTS[i + 1]!) i++;
  const t = (p - PITCH_POINTS[i]!) / (PITCH_POINTS[i + 1]! - PITCH_POINTS[i]!);
  return Math.exp(Math.log(curve[i]!) + t * (Math.log(curve[i + 1]!) - Math.log(curve[i]!)));
}

/**
 * Formants follow pitch part of the way: a voice an octave higher has a shorter vocal tract, not
 * one half as long. The square root of the pitch ratio to the model's speaker (×2 pitch → ×1.41
 * formants), bounded. More than anatomy alone would give (about ×1.2 from a man to a woman), for
 * the signal's sake: Rubber Band's formant preservation leaves octave-doubled frames when it must
 * raise the pitch far on its own, and a larger share moved by resampling (`colourFilter`) avoids them.
 */
const FORMANT_EXPONENT = 0.5;
const FORMANT_BOUNDS = [0.85, 1.45] as const;

/**
 * The colour that makes the neural speaker sound like `voice` (its pitch at its settings and a
 * matching formant shift), or null when the voice is the neural speaker itself or its variant has
 * no calibration (then the model speaks as itself).
 */
export function neuralColour(voice: Pick<EngineVoiceParams, 'variant' | 'pitch' | 'neural'>): VoiceColour | null {
  if (voice.neural) return null;
  const pitchHz = espeakPitchHz(voice.variant, voice.pitch);
  if (pitchHz === null) return null;
  const formantRatio = Math.min(FORMANT_BOUNDS[1], Math.max(FORMANT_BOUNDS[0], Math.pow(pitchHz / NEURAL_SPEAKER_F0_HZ, FORMANT_EXPONENT)));
  return { pitchHz, formantRatio };
}

/** Fewer voiced 10 ms frames than this and a piece's median is not worth trusting. */
const MIN_VOICED_FRAMES = 20;

/**
 * The median F0 of one piece of the neural speaker's audio (YIN at a quarter of the engine's rate,
 * on frames within 35 dB of the loudest, octave errors dropped), or the speaker's typical pitch
 * when the piece has too little voiced speech. Milliseconds per second of audio.
 */
export function speakerPitchHz(pcm: Int16Array, sampleRate = ENGINE_SAMPLE_RATE): number {
  const x = new Float32Array(pcm.length);
  for (let i = 0; i < pcm.length; i++) x[i] = pcm[i]! / 32768;
  const rate = sampleRate / 4;
  const low = decimate2(decimate2(x));
  const hop = Math.round(rate / 100);
  const frameSize = Math.round(rate * 0.04);
  const level: number[] = [];
  for (let start = 0; start + frameSize <= low.length; start += hop) {
    let sum = 0;
    for (let i = start; i < start + frameSize; i++) sum += low[i]! * low[i]!;
    level.push(Math.sqrt(sum / frameSize));
  }
  const floor = Math.max(Math.max(0, ...level) * Math.pow(10, -35 / 20), Math.pow(10, -55 / 20));
  const track = yinTrack(low, { sampleRate: rate, hop, frameSize, minHz: 50, maxHz: 500, include: (f) => (level[f] ?? 0) >= floor });
  const voiced = track.filter((hz): hz is number => hz !== null);
  if (voiced.length < MIN_VOICED_FRAMES) return NEURAL_SPEAKER_F0_HZ;
  const rough = middle(voiced);
  return middle(voiced.filter((hz) => hz > rough / 2 && hz < rough * 2));
}

function middle(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = (sorted.length - 1) / 2;
  return (sorted[Math.floor(mid)]! + sorted[Math.ceil(mid)]!) / 2;
}

export interface ColourOptions {
  ffmpegBinary?: string;
  /** A cancelled job kills the process. */
  signal?: AbortSignal;
}

/**
 * The ffmpeg filter chain that moves a piece's median pitch by `pitchRatio` and its formants by
 * `formantRatio`: `asetrate` + `aresample` play the audio faster by the formant ratio (every
 * frequency, formants included, moves by it; the audio gets shorter), then Rubber Band
 * (librubberband, ffmpeg's `rubberband` filter) restores the length and moves the pitch the rest of
 * the way, keeping the already-shifted formants (`formant=preserved`).
 */
export function colourFilter(pitchRatio: number, formantRatio: number, sampleRate = ENGINE_SAMPLE_RATE): string {
  const f = formantRatio;
  const chain = f === 1 ? [] : [`asetrate=${Math.round(sampleRate * f)}`, `aresample=${sampleRate}`];
  const r = (x: number) => x.toFixed(5);
  chain.push(`rubberband=tempo=${r(1 / f)}:pitch=${r(pitchRatio / f)}:formant=preserved:pitchq=quality`);
  return chain.join(',');
}

/**
 * Applies a voice colour to one piece of the neural speaker's 16-bit mono PCM at the engine's rate:
 * the piece's own median pitch is measured, so every piece lands on the voice's pitch whatever the
 * speaker did in it. The signal processing runs in an ffmpeg process, one per piece.
 */
export function applyVoiceColour(pcm: Int16Array, colour: VoiceColour, options: ColourOptions = {}): Promise<Int16Array> {
  const pitchRatio = colour.pitchHz / speakerPitchHz(pcm);
  const args = [
    '-hide_banner', '-loglevel', 'error', '-nostdin',
    '-f', 's16le', '-ar', String(ENGINE_SAMPLE_RATE), '-ac', '1', '-i', 'pipe:0',
    '-af', colourFilter(pitchRatio, colour.formantRatio),
    '-f', 's16le', '-ar', String(ENGINE_SAMPLE_RATE), '-ac', '1', 'pipe:1',
  ];
  return new Promise((resolve, reject) => {
    const child = spawn(options.ffmpegBinary ?? 'ffmpeg', args, { stdio: ['pipe', 'pipe', 'pipe'], ...(options.signal ? { signal: options.signal } : {}) });
    const out: Buffer[] = [];
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => out.push(d));
    child.stderr.on('data', (d: Buffer) => {
      if (stderr.length < 2000) stderr += d.toString();
    });
    child.stdin.on('error', () => undefined);
    child.once('error', reject);
    child.once('close', (code, signal) => {
      if (code !== 0) {
        reject(new Error(`ffmpeg (voice colour) exited with ${code ?? signal}: ${stderr.trim()}`));
        return;
      }
      const bytes = Buffer.concat(out);
      const copy = Buffer.from(bytes.subarray(0, bytes.length & ~1));
      resolve(new Int16Array(copy.buffer, copy.byteOffset, copy.length / 2));
    });
    child.stdin.end(Buffer.from(pcm.buffer, pcm.byteOffset, pcm.byteLength));
  });
}
