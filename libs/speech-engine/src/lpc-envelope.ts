import { lpc } from './lpc';

/**
 * A piece's spectral envelope over time, as linear prediction filters: one every BLOCK_SECONDS,
 * fitted on a Hann-windowed LPC_FRAME_SECONDS around the block. The voice colour (change-voice.ts)
 * splits the piece into this envelope (its formants) and the residual (its pitch pulses), moves
 * the pulses, and filters them with the envelope again.
 */
export interface LpcEnvelope {
  /** Samples per block. */
  block: number;
  order: number;
  /** Per block, A(z)'s coefficients (`lpc`); null where the block is silent (passed through). */
  filters: (Float64Array | null)[];
}

const BLOCK_SECONDS = 0.01;
const LPC_FRAME_SECONDS = 0.025;
/** Conditioning of the fit (`lpc`'s `whiteNoise`): a resampled piece is band-limited below Nyquist. */
const WHITE_NOISE = 1e-6;

/**
 * `audible`: per block, whether it holds sound (change-voice.ts); a block whose frame (it and its
 * two neighbours) holds none gets no filter and is passed through, as a silent one is.
 */
export function lpcEnvelope(y: Float32Array, rate: number, audible?: readonly boolean[]): LpcEnvelope {
  const block = Math.round(rate * BLOCK_SECONDS);
  const length = Math.round(rate * LPC_FRAME_SECONDS);
  // Two coefficients per kHz of bandwidth (a formant each) and two for the glottal and radiation tilt.
  const order = Math.round(2 + rate / 1000);
  const frame = new Float64Array(length);
  const hann = Float64Array.from({ length }, (_, i) => 0.5 - 0.5 * Math.cos((2 * Math.PI * i) / (length - 1)));
  const filters: (Float64Array | null)[] = [];
  for (let start = 0, b = 0; start < y.length; start += block, b++) {
    if (audible && !audible[b - 1] && !audible[b] && !audible[b + 1]) {
      filters.push(null);
      continue;
    }
    const from = Math.round(start + block / 2 - length / 2);
    for (let i = 0; i < length; i++) {
      const n = from + i;
      frame[i] = (n >= 0 && n < y.length ? y[n]! : 0) * hann[i]!;
    }
    filters.push(lpc(frame, order, WHITE_NOISE));
  }
  return { block, order, filters };
}

/** The residual: `y` through each block's A(z) (what is left is the source: pulses and noise). */
export function inverseFilter(y: Float32Array, envelope: LpcEnvelope): Float32Array {
  const e = new Float32Array(y.length);
  const { block, order } = envelope;
  for (let b = 0; b * block < y.length; b++) {
    const a = envelope.filters[b];
    const end = Math.min(y.length, (b + 1) * block);
    for (let n = b * block; n < end; n++) {
      let v = y[n]!;
      if (a) for (let j = 1, top = Math.min(order, n); j <= top; j++) v += a[j]! * y[n - j]!;
      e[n] = v;
    }
  }
  return e;
}

/**
 * `x` through 1/A(z), the filter at output sample t being the envelope's at source sample t ÷
 * `stretch` (the envelope was taken from a piece `stretch` times shorter than `x`).
 */
export function envelopeFilter(x: Float32Array, envelope: LpcEnvelope, stretch: number): Float32Array {
  const s = new Float32Array(x.length);
  const { block, order, filters } = envelope;
  const last = filters.length - 1;
  for (let t = 0; t < x.length; t++) {
    const a = filters[Math.min(last, Math.floor(t / stretch / block))];
    let v = x[t]!;
    if (a) for (let j = 1, top = Math.min(order, t); j <= top; j++) v -= a[j]! * s[t - j]!;
    s[t] = v;
  }
  return s;
}
