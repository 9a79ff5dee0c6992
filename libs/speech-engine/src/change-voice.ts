import { envelopeFilter, inverseFilter, lpcEnvelope } from './lpc-envelope';
import { decimate2, yinTrack } from './pitch';
import { Resampler } from './resample';

/**
 * Moves a piece's median pitch to `pitchHz` and its formants by `formantRatio`, keeping its length
 * and intonation, in process. First the piece is resampled by the formant ratio (formants and pitch
 * move together, the length by the inverse ratio), as Praat's "Change gender" does. Then its pitch
 * is put where the voice's is, and its length given back, by residual-excited (LP-)PSOLA: linear
 * prediction splits the piece into its envelope (the formants, lpc-envelope.ts) and its residual
 * (the glottal pulses); TD-PSOLA moves the residual's pulses, and the envelope filters them again.
 * Grains are two periods long (the shorter of the old and new period), Hann-windowed, cut around
 * pitch marks (one per period, the period from YIN, each where its period is most like the last)
 * and laid down one new period apart, so the intonation keeps its shape around the new median; an
 * unvoiced stretch is copied through with grains at constant spacing. Cut from the residual, a
 * grain shorter than the old period loses little (a pulse is short), where cut from the speech it
 * would cut each formant's ringing short and blur it: a voice raised past twice the speaker's pitch
 * kept about 4 WER points more of its clarity this way (docs/decisions.md, 63). Deterministic:
 * plain arithmetic on the samples, nothing random, so the same piece gives the same samples.
 */
export function changeVoice(
  pcm: Int16Array,
  sampleRate: number,
  formantRatio: number,
  pitchHz: number,
): Int16Array<ArrayBuffer> {
  const y = resampleBy(pcm, sampleRate, formantRatio);
  // The blocks are the LPC envelope's (lpc-envelope.ts): 10 ms each.
  const block = Math.round(sampleRate * HOP_SECONDS);
  const audible = audibleBlocks(y, block);
  const periods = periodTrack(y, sampleRate, (from, to) =>
    audible.slice(Math.floor(from / block), Math.floor((to - 1) / block) + 1).includes(true),
  );
  const voiced = periods.filter((p): p is number => p !== null).sort((a, b) => a - b);
  // A piece with next to no voicing keeps its pitch; its formants and length are still seen to.
  const medianPeriod = voiced.length >= MIN_VOICED_FRAMES ? voiced[voiced.length >> 1]! : null;
  const pitchFactor = medianPeriod === null ? 1 : (pitchHz * medianPeriod) / sampleRate;
  const marks = pitchMarks(y, periods, sampleRate);
  const envelope = lpcEnvelope(y, sampleRate, audible);
  const pulses = overlapAdd(inverseFilter(y, envelope), marks, pcm.length, formantRatio, pitchFactor);
  const coloured = envelopeFilter(pulses, envelope, formantRatio);
  const out = new Int16Array(coloured.length);
  for (let i = 0; i < out.length; i++) out[i] = Math.max(-32768, Math.min(32767, Math.round(coloured[i]!)));
  return out;
}

/**
 * YIN's hop and frame in samples at `rate` (whole samples, so frame f starts at exactly f × hop: a
 * hop of 110.25 samples taken as 110.25 would drift a frame every four seconds).
 */
function yinFrames(rate: number): { hop: number; frameSize: number } {
  return { hop: Math.round(rate * HOP_SECONDS), frameSize: Math.round(rate * FRAME_SECONDS) };
}

/** Fewer voiced frames than this (30 ms) give no median pitch worth moving. */
const MIN_VOICED_FRAMES = 3;
/** YIN's hop: one period estimate every 10 ms (the marks follow the waveform in between). */
const HOP_SECONDS = 0.01;
/** YIN's frame: 40 ms, two periods of the lowest pitch looked for (55 Hz) and a window. */
const FRAME_SECONDS = 0.04;
/**
 * Blocks quieter than this (mean square, relative to the piece's peak sample squared) are silence to
 * the colour: no pitch is looked for and no envelope fitted there (a third of a short first piece is
 * the pause around it, so its first audio waits that much less), the grains pass them through.
 */
const SILENCE_DB = -50;

/** Per block of `block` samples (HOP_SECONDS): whether it is louder than SILENCE_DB below the peak. */
function audibleBlocks(y: Float32Array, block: number): boolean[] {
  let peak = 0;
  for (let i = 0; i < y.length; i++) peak = Math.max(peak, Math.abs(y[i]!));
  const floor = peak * peak * Math.pow(10, SILENCE_DB / 10);
  return Array.from({ length: Math.ceil(y.length / block) }, (_, b) => {
    const end = Math.min(y.length, (b + 1) * block);
    let sum = 0;
    for (let i = b * block; i < end; i++) sum += y[i]! * y[i]!;
    return sum / (end - b * block) >= floor;
  });
}

/** Spacing of the grains of an unvoiced stretch. */
const UNVOICED_SECONDS = 0.005;

/** `pcm` read `ratio` times as fast (band-limited): formants and pitch × ratio, length ÷ ratio. */
function resampleBy(pcm: Int16Array, rate: number, ratio: number): Float32Array {
  if (ratio === 1) return Float32Array.from(pcm);
  const resampler = new Resampler(rate * ratio, rate);
  const head = resampler.push(pcm);
  const tail = resampler.end();
  const out = new Float32Array(head.length + tail.length);
  out.set(head);
  out.set(tail, head.length);
  return out;
}

/**
 * The period in samples of each YIN frame (hop HOP_SECONDS), null where unvoiced. YIN runs at half
 * the rate (pitch needs no more than 5 kHz); a frame an octave off its neighbours' median is put
 * back by the median of five, so a grain is never cut two periods long by one octave error.
 */
function periodTrack(y: Float32Array, rate: number, audible: (from: number, to: number) => boolean): (number | null)[] {
  const half = rate / 2;
  const { hop, frameSize } = yinFrames(half);
  // A frame is looked at when any of the samples of `y` it spans is in an audible block.
  const include = (frame: number) => audible(2 * frame * hop, 2 * (frame * hop + frameSize));
  const hz = yinTrack(decimate2(y), { sampleRate: half, minHz: 55, maxHz: 500, hop, frameSize, include });
  return hz.map((f, i) => {
    if (f === null) return null;
    const near = hz.slice(Math.max(0, i - 2), i + 3).filter((v): v is number => v !== null);
    const median = near.sort((a, b) => a - b)[near.length >> 1]!;
    return rate / (Math.abs(Math.log2(f / median)) > 0.5 ? median : f);
  });
}

interface Mark {
  at: number;
  /** Half the grain: the local period (voiced) or the unvoiced spacing. */
  period: number;
  voiced: boolean;
}

/**
 * One mark per period through voiced stretches: the first on its first period's largest sample,
 * each next one within a fifth of a period of where the last period says it falls, where the
 * waveform is most like the last mark's (`mostLike`); constant spacing through unvoiced ones.
 */
function pitchMarks(y: Float32Array, periods: readonly (number | null)[], rate: number): Mark[] {
  // YIN ran at half the rate (periodTrack): its frame f spans y's samples from 2·f·hop for 2·frameSize, and its
  // estimate belongs to the frame's middle.
  const { hop, frameSize } = yinFrames(rate / 2);
  const periodAt = (n: number): number | null => periods[Math.max(0, Math.round((n - frameSize) / (2 * hop)))] ?? null;
  const unvoiced = Math.round(rate * UNVOICED_SECONDS);
  const marks: Mark[] = [];
  let n = 0;
  while (n < y.length) {
    const period = periodAt(n);
    if (period === null) {
      marks.push({ at: n, period: unvoiced, voiced: false });
      n += unvoiced;
      continue;
    }
    // The first mark of a voiced stretch: the peak of its first period.
    let at = peakIn(y, n, n + period);
    for (;;) {
      const p = periodAt(at);
      if (p === null) break;
      marks.push({ at, period: p, voiced: true });
      const next = at + p;
      if (next + 0.2 * p >= y.length) {
        at = y.length;
        break;
      }
      at = mostLike(y, at, next, p);
    }
    n = Math.max(at, n + 1);
  }
  return marks;
}

/**
 * The sample within a fifth of a period of `expected` where the waveform is most like the one
 * around `last` (cross-correlation over one period): marks at the same point of every period, so
 * grains laid down one new period apart add up in phase.
 */
function mostLike(y: Float32Array, last: number, expected: number, period: number): number {
  const half = Math.round(period / 2);
  const reach = Math.round(0.2 * period);
  const centre = Math.round(expected);
  let best = centre;
  let bestScore = -Infinity;
  for (let d = centre - reach; d <= centre + reach; d++) {
    if (d - half < 0 || d + half >= y.length || last - half < 0) continue;
    let score = 0;
    for (let k = -half; k < half; k++) score += y[last + k]! * y[d + k]!;
    if (score > bestScore) {
      bestScore = score;
      best = d;
    }
  }
  return best;
}

function peakIn(y: Float32Array, from: number, to: number): number {
  const start = Math.max(0, Math.round(from));
  const end = Math.min(y.length, Math.round(to));
  let best = start;
  for (let i = start; i < end; i++) if (y[i]! > y[best]!) best = i;
  return best;
}

/**
 * Lays grains of `y` down at the new pitch over `length` samples: an output instant t takes the
 * grain of the mark nearest t ÷ ratio (the resampled piece is ratio times shorter), and the next
 * instant follows one new period later (the grain's period ÷ pitchFactor) or, unvoiced, one spacing
 * later.
 */
function overlapAdd(
  y: Float32Array,
  marks: readonly Mark[],
  length: number,
  ratio: number,
  pitchFactor: number,
): Float32Array {
  const out = new Float32Array(length);
  let m = 0;
  for (let t = 0; t < length && marks.length > 0;) {
    const source = t / ratio;
    while (m + 1 < marks.length && Math.abs(marks[m + 1]!.at - source) <= Math.abs(marks[m]!.at - source)) m++;
    const mark = marks[m]!;
    const step = mark.voiced ? mark.period / pitchFactor : mark.period;
    // A grain no longer than two new periods: raising the pitch, a grain two old periods long would
    // carry its neighbours' pulses between the new ones (docs/decisions.md, 62).
    addGrain(out, y, Math.round(t), mark.at, Math.round(Math.min(mark.period, step)));
    t += step;
  }
  return out;
}

/** y around `from`, Hann-windowed over two `half`s, added into out around `to`. */
function addGrain(out: Float32Array, y: Float32Array, to: number, from: number, half: number): void {
  const window = hannOf(half);
  for (let k = -half + 1; k < half; k++) {
    const i = from + k;
    const o = to + k;
    if (i < 0 || i >= y.length || o < 0 || o >= out.length) continue;
    out[o]! += y[i]! * window[k + half]!;
  }
}

/** Hann windows by half-length, kept per thread: a piece's grains come in a few hundred lengths at most. */
const hannWindows = new Map<number, Float64Array>();

/** The Hann window of two `half`s, index k + half for offset k: 0.5 (1 + cos(π k / half)). */
function hannOf(half: number): Float64Array {
  let window = hannWindows.get(half);
  if (!window) {
    window = Float64Array.from({ length: 2 * half }, (_, i) => 0.5 * (1 + Math.cos((Math.PI * (i - half)) / half)));
    hannWindows.set(half, window);
  }
  return window;
}
