/**
 * YIN fundamental-frequency estimation (de Cheveigné & Kawahara, 2002): difference function,
 * cumulative mean normalisation, absolute threshold, parabolic interpolation. One estimate per
 * frame; `null` for unvoiced frames. Two users: the gateway's analysis of clone samples, and the
 * neural model's voice colour (voice-colour.ts), which measures each piece of the model's speaker.
 */
export interface PitchOptions {
  sampleRate: number;
  minHz?: number;
  maxHz?: number;
  frameSize?: number;
  hop?: number;
  threshold?: number;
  /** Frames (by index) worth estimating; others are reported unvoiced without the work. */
  include?: (frame: number) => boolean;
}

/** Halves the rate (pairwise mean, then every other sample): pitch needs no more than 4 kHz. */
export function decimate2(samples: Float32Array): Float32Array {
  const out = new Float32Array(Math.floor(samples.length / 2));
  for (let i = 0; i < out.length; i++) {
    const a = samples[2 * i]!;
    const b = samples[2 * i + 1]!;
    const prev = samples[2 * i - 1] ?? a;
    out[i] = 0.25 * prev + 0.5 * a + 0.25 * b;
  }
  return out;
}

export function yinTrack(samples: Float32Array, options: PitchOptions): (number | null)[] {
  const { sampleRate } = options;
  const minHz = options.minHz ?? 50;
  const maxHz = options.maxHz ?? 500;
  const frameSize = options.frameSize ?? Math.round(sampleRate * 0.04);
  const hop = options.hop ?? Math.round(sampleRate * 0.01);
  const threshold = options.threshold ?? 0.15;
  const maxLag = Math.min(Math.floor(sampleRate / minHz), frameSize - 1);
  const minLag = Math.max(2, Math.floor(sampleRate / maxHz));
  const window = frameSize - maxLag;
  const track: (number | null)[] = [];
  const d = new Float64Array(maxLag + 1);
  for (let start = 0, frame = 0; start + frameSize <= samples.length; start += hop, frame++) {
    if (options.include && !options.include(frame)) {
      track.push(null);
      continue;
    }
    d[0] = 0;
    for (let lag = 1; lag <= maxLag; lag++) {
      let sum = 0;
      for (let i = 0; i < window; i++) {
        const diff = samples[start + i]! - samples[start + i + lag]!;
        sum += diff * diff;
      }
      d[lag] = sum;
    }
    // Cumulative mean normalised difference.
    let running = 0;
    const cmnd = new Float64Array(maxLag + 1);
    cmnd[0] = 1;
    for (let lag = 1; lag <= maxLag; lag++) {
      running += d[lag]!;
      cmnd[lag] = running > 0 ? (d[lag]! * lag) / running : 1;
    }
    let best = -1;
    for (let lag = minLag; lag <= maxLag; lag++) {
      if (cmnd[lag]! < threshold) {
        while (lag + 1 <= maxLag && cmnd[lag + 1]! < cmnd[lag]!) lag++;
        best = lag;
        break;
      }
    }
    if (best < 0) {
      track.push(null);
      continue;
    }
    const a = cmnd[best - 1] ?? cmnd[best]!;
    const b = cmnd[best]!;
    const c = cmnd[best + 1] ?? cmnd[best]!;
    const denom = a - 2 * b + c;
    const shift = denom !== 0 ? (0.5 * (a - c)) / denom : 0;
    const lag = best + Math.max(-1, Math.min(1, shift));
    track.push(sampleRate / lag);
  }
  return track;
}
