/**
 * Band-limited resampling (windowed sinc, Blackman window, 16 zero crossings), streaming: state
 * carries across chunks so sentence joins stay seamless. Downsampling lowers the cut-off to the
 * new Nyquist frequency, so nothing aliases (no naive decimation).
 */
export class Resampler {
  private readonly step: number;
  private readonly cutoff: number;
  private readonly halfWidth: number;
  /** Input samples not yet fully consumed; `base` is the absolute index of history[0]. */
  private history: Float32Array = new Float32Array(0);
  private base = 0;
  /** Absolute input position of the next output sample. */
  private position = 0;
  private static readonly ZEROS = 16;
  private static readonly TABLE_RES = 512;
  private readonly table: Float32Array;

  constructor(
    readonly fromRate: number,
    readonly toRate: number,
  ) {
    this.step = fromRate / toRate;
    this.cutoff = Math.min(1, toRate / fromRate) * 0.97;
    this.halfWidth = Resampler.ZEROS / this.cutoff;
    // Kernel sampled finely on [0, halfWidth]; linear interpolation between entries.
    const n = Math.ceil(this.halfWidth * Resampler.TABLE_RES) + 2;
    this.table = new Float32Array(n);
    for (let i = 0; i < n; i++) {
      const x = i / Resampler.TABLE_RES;
      const arg = x * this.cutoff;
      const sinc = arg === 0 ? 1 : Math.sin(Math.PI * arg) / (Math.PI * arg);
      const w = x >= this.halfWidth ? 0 : 0.42 + 0.5 * Math.cos((Math.PI * x) / this.halfWidth) + 0.08 * Math.cos((2 * Math.PI * x) / this.halfWidth);
      this.table[i] = this.cutoff * sinc * w;
    }
  }

  private kernel(distance: number): number {
    const x = Math.abs(distance) * Resampler.TABLE_RES;
    const i = Math.floor(x);
    const frac = x - i;
    const a = this.table[i] ?? 0;
    const b = this.table[i + 1] ?? 0;
    return a + (b - a) * frac;
  }

  /** Feeds input samples; returns the output samples that are now fully determined. */
  push(input: Int16Array): Int16Array {
    if (this.fromRate === this.toRate) return input;
    const merged = new Float32Array(this.history.length + input.length);
    merged.set(this.history);
    for (let i = 0; i < input.length; i++) merged[this.history.length + i] = input[i]!;
    this.history = merged;
    return this.drain(false);
  }

  /** Flushes the tail (pads with silence). */
  end(): Int16Array {
    if (this.fromRate === this.toRate) return new Int16Array(0);
    const pad = Math.ceil(this.halfWidth) + 1;
    const merged = new Float32Array(this.history.length + pad);
    merged.set(this.history);
    const endAbs = this.base + this.history.length;
    this.history = merged;
    return this.drain(true, endAbs);
  }

  private drain(final: boolean, endAbs = 0): Int16Array {
    const available = this.base + this.history.length;
    const reach = Math.ceil(this.halfWidth);
    const out: number[] = [];
    for (;;) {
      const t = this.position;
      if (final ? t >= endAbs : t + reach >= available) break;
      const lo = Math.max(this.base, Math.ceil(t - this.halfWidth));
      const hi = Math.min(available - 1, Math.floor(t + this.halfWidth));
      let acc = 0;
      for (let k = lo; k <= hi; k++) acc += this.history[k - this.base]! * this.kernel(t - k);
      out.push(Math.max(-32768, Math.min(32767, Math.round(acc))));
      this.position += this.step;
    }
    // Keep only the samples later outputs still need.
    const keepFrom = Math.max(this.base, Math.floor(this.position - this.halfWidth) - 1);
    if (keepFrom > this.base) {
      this.history = this.history.slice(keepFrom - this.base);
      this.base = keepFrom;
    }
    return Int16Array.from(out);
  }
}
