/**
 * Band-limited resampling (windowed sinc, Blackman window, 16 zero crossings), streaming: state
 * carries across chunks so sentence joins stay seamless. Downsampling lowers the cut-off to the
 * new Nyquist frequency, so nothing aliases (no naive decimation). The filter is precomputed for
 * 256 sub-sample phases (polyphase), so each output sample is one short dot product.
 */
export class Resampler {
  private static readonly ZEROS = 16;
  private static readonly PHASES = 256;
  private readonly step: number;
  private readonly taps: number;
  private readonly half: number;
  /** Coefficients per phase: phases × taps, for input samples floor(t)-half+1 … floor(t)+half. */
  private readonly bank: Float32Array;
  /** Input samples not yet fully consumed; `base` is the absolute index of history[0]. */
  private history: Float32Array = new Float32Array(0);
  private base = 0;
  /** Absolute input position of the next output sample. */
  private position = 0;

  constructor(
    readonly fromRate: number,
    readonly toRate: number,
  ) {
    this.step = fromRate / toRate;
    const cutoff = Math.min(1, toRate / fromRate) * 0.97;
    const halfWidth = Resampler.ZEROS / cutoff;
    this.half = Math.ceil(halfWidth);
    this.taps = 2 * this.half;
    this.bank = filterBank(cutoff, halfWidth, this.half, this.taps, Resampler.PHASES);
  }

  /** Feeds input samples; returns the output samples that are now fully determined. */
  push(input: Int16Array): Int16Array {
    if (this.fromRate === this.toRate) return input;
    const merged = new Float32Array(this.history.length + input.length);
    merged.set(this.history);
    for (let i = 0; i < input.length; i++) merged[this.history.length + i] = input[i]!;
    this.history = merged;
    return this.drain(this.base + this.history.length - this.half);
  }

  /** Flushes the tail (the filter sees silence after the last sample). */
  end(): Int16Array {
    if (this.fromRate === this.toRate) return new Int16Array(0);
    const endAbs = this.base + this.history.length;
    const merged = new Float32Array(this.history.length + this.taps + 1);
    merged.set(this.history);
    this.history = merged;
    return this.drain(endAbs);
  }

  /** Produces outputs for every position below `limit`. */
  private drain(limit: number): Int16Array {
    const count = Math.max(0, Math.ceil((limit - this.position) / this.step));
    const out = new Int16Array(count);
    const { bank, taps, half, history } = this;
    for (let n = 0; n < count; n++) {
      const t = this.position;
      const i = Math.floor(t);
      const phase = Math.min(Resampler.PHASES - 1, Math.round((t - i) * Resampler.PHASES));
      const first = i - half + 1 - this.base;
      const row = phase * taps;
      let acc = 0;
      if (first >= 0 && first + taps <= history.length) {
        // All taps inside the history: the plain dot product, most samples' case.
        for (let j = 0; j < taps; j++) acc += history[first + j]! * bank[row + j]!;
      } else {
        for (let j = 0; j < taps; j++) {
          const k = first + j;
          if (k >= 0) acc += (history[k] ?? 0) * bank[row + j]!;
        }
      }
      out[n] = acc > 32767 ? 32767 : acc < -32768 ? -32768 : Math.round(acc);
      this.position += this.step;
    }
    const keepFrom = Math.floor(this.position) - half - 1;
    if (keepFrom > this.base) {
      this.history = this.history.slice(keepFrom - this.base);
      this.base = keepFrom;
    }
    return out;
  }
}

/**
 * The polyphase coefficients for a cut-off, `phases` × `taps`, kept for the BANKS_KEPT cut-offs
 * used last: a job's encoder and every coloured piece make a resampler, and a bank is some 30 000
 * sines and cosines (half a millisecond, in the wait for a coloured voice's first audio). Bounded,
 * as every clone's formant ratio gives a cut-off of its own (a bank is about 40 kB).
 */
const banks = new Map<string, Float32Array>();
const BANKS_KEPT = 64;

function filterBank(cutoff: number, halfWidth: number, half: number, taps: number, phases: number): Float32Array {
  const key = `${cutoff}:${phases}`;
  const cached = banks.get(key);
  if (cached) {
    // Most recently used last: the first key is the one to drop.
    banks.delete(key);
    banks.set(key, cached);
    return cached;
  }
  const bank = new Float32Array(phases * taps);
  for (let p = 0; p < phases; p++) {
    const frac = p / phases;
    let sum = 0;
    for (let j = 0; j < taps; j++) {
      // Distance from output time t = n + frac to input sample n - half + 1 + j.
      const x = frac - (j - half + 1);
      const ax = Math.abs(x);
      const arg = x * cutoff;
      const sinc = arg === 0 ? 1 : Math.sin(Math.PI * arg) / (Math.PI * arg);
      const w =
        ax >= halfWidth
          ? 0
          : 0.42 + 0.5 * Math.cos((Math.PI * ax) / halfWidth) + 0.08 * Math.cos((2 * Math.PI * ax) / halfWidth);
      const c = cutoff * sinc * w;
      bank[p * taps + j] = c;
      sum += c;
    }
    // Unity gain at DC for every phase: no ripple in loudness.
    for (let j = 0; j < taps; j++) bank[p * taps + j]! /= sum;
  }
  banks.set(key, bank);
  if (banks.size > BANKS_KEPT) banks.delete(banks.keys().next().value!);
  return bank;
}
