import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { PITCH_POINTS, VARIANTS } from './espeak-calibration';
import { ENGINE_SAMPLE_RATE } from './espeak';
import type { EngineVoiceParams } from './voice-params';
import { pcmFromWav, wavHeader } from './wav';

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
 * depending on the sentence: what a voice's pitch is compared with to choose its formant shift.
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
 * one half as long. The fourth root of the pitch ratio to the model's speaker (×2.5 pitch, the
 * highest premade voice, → ×1.26 formants, about what separates a man's vocal tract from a
 * woman's), bounded.
 */
const FORMANT_EXPONENT = 0.25;
const FORMANT_BOUNDS = [0.9, 1.25] as const;

/**
 * The colour that makes the neural speaker sound like `voice` (its pitch at its settings and a
 * matching formant shift), or null when the voice is the neural speaker itself or its variant has
 * no calibration (then the model speaks as itself).
 */
export function neuralColour(voice: Pick<EngineVoiceParams, 'variant' | 'pitch' | 'neural'>): VoiceColour | null {
  if (voice.neural) return null;
  const pitchHz = espeakPitchHz(voice.variant, voice.pitch);
  if (pitchHz === null) return null;
  const formantRatio = Math.min(
    FORMANT_BOUNDS[1],
    Math.max(FORMANT_BOUNDS[0], Math.pow(pitchHz / NEURAL_SPEAKER_F0_HZ, FORMANT_EXPONENT)),
  );
  return { pitchHz, formantRatio };
}

export interface ColourOptions {
  /** The Praat executable: Debian's headless build by default (packagers may point elsewhere). */
  praatBinary?: string;
  /** A cancelled job kills the process. */
  signal?: AbortSignal;
}

/** The Praat script that changes a piece's pitch and formants ("Change gender"). */
const CHANGE_VOICE_SCRIPT = path.resolve(__dirname, '..', 'praat', 'change-voice.praat');

/** Shorter pieces than this are passed through: Praat cannot analyse the pitch of a few milliseconds. */
const MIN_COLOUR_SECONDS = 0.1;

/** The arguments of one Praat run that colours `input` into `output`. */
export function colourArgs(colour: VoiceColour, input: string, output: string): string[] {
  return ['--run', CHANGE_VOICE_SCRIPT, input, output, colour.formantRatio.toFixed(4), colour.pitchHz.toFixed(2)];
}

/**
 * Applies a voice colour to one piece of the neural speaker's 16-bit mono PCM at the engine's rate
 * with Praat's "Change gender": PSOLA (pitch-synchronous overlap-add) moves the piece's own median
 * pitch to the voice's and keeps its intonation and spectral envelope, and resampling moves the
 * formants by the colour's ratio. PSOLA, not a phase vocoder: Rubber Band's formant-preserving
 * shift left a third to half of the frames of a short piece an octave above the target (measured
 * with pYIN and our YIN alike); Praat's output has none. One Praat process per piece, through
 * temporary WAV files (Praat reads and writes files only).
 */
export async function applyVoiceColour(
  pcm: Int16Array,
  colour: VoiceColour,
  options: ColourOptions = {},
): Promise<Int16Array> {
  if (pcm.length < MIN_COLOUR_SECONDS * ENGINE_SAMPLE_RATE) return pcm;
  const dir = await mkdtemp(path.join(os.tmpdir(), 'voice-colour-'));
  try {
    const input = path.join(dir, 'in.wav');
    const output = path.join(dir, 'out.wav');
    const bytes = Buffer.from(pcm.buffer, pcm.byteOffset, pcm.byteLength);
    await writeFile(input, Buffer.concat([wavHeader(ENGINE_SAMPLE_RATE, bytes.length), bytes]));
    await runPraat(options.praatBinary ?? 'praat_nogui', colourArgs(colour, input, output), options.signal);
    return pcmFromWav(await readFile(output), 'Praat (voice colour)');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

function runPraat(binary: string, args: string[], signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(binary, args, { stdio: ['ignore', 'ignore', 'pipe'], ...(signal ? { signal } : {}) });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => {
      if (stderr.length < 2000) stderr += d.toString();
    });
    child.once('error', reject);
    child.once('close', (code, sig) => {
      if (code === 0) resolve();
      else reject(new Error(`praat (voice colour) exited with ${code ?? sig}: ${stderr.trim()}`));
    });
  });
}
