import { yinTrack, type PitchOptions } from '../src';

/**
 * YIN as the paper writes it, each frame's difference function summed anew: what `yinTrack`'s
 * running sums (one pass per lag along a run of frames) must agree with.
 */
function textbookYin(
  samples: Float32Array,
  options: Required<Omit<PitchOptions, 'include'>> & Pick<PitchOptions, 'include'>,
): (number | null)[] {
  const { sampleRate, minHz, maxHz, frameSize, hop, threshold } = options;
  const maxLag = Math.min(Math.floor(sampleRate / minHz), frameSize - 1);
  const minLag = Math.max(2, Math.floor(sampleRate / maxHz));
  const window = frameSize - maxLag;
  const track: (number | null)[] = [];
  for (let start = 0, frame = 0; start + frameSize <= samples.length; start += hop, frame++) {
    if (options.include && !options.include(frame)) {
      track.push(null);
      continue;
    }
    const d = new Float64Array(maxLag + 1);
    for (let lag = 1; lag <= maxLag; lag++)
      for (let i = 0; i < window; i++) d[lag]! += (samples[start + i]! - samples[start + i + lag]!) ** 2;
    const cmnd = new Float64Array(maxLag + 1);
    cmnd[0] = 1;
    let running = 0;
    for (let lag = 1; lag <= maxLag; lag++) {
      running += d[lag]!;
      cmnd[lag] = running > 0 ? (d[lag]! * lag) / running : 1;
    }
    let best = -1;
    for (let lag = minLag; lag <= maxLag; lag++)
      if (cmnd[lag]! < threshold) {
        while (lag + 1 <= maxLag && cmnd[lag + 1]! < cmnd[lag]!) lag++;
        best = lag;
        break;
      }
    if (best < 0) {
      track.push(null);
      continue;
    }
    const a = cmnd[best - 1]!;
    const b = cmnd[best]!;
    const c = cmnd[best + 1] ?? b;
    const denom = a - 2 * b + c;
    const shift = denom !== 0 ? (0.5 * (a - c)) / denom : 0;
    track.push(sampleRate / (best + Math.max(-1, Math.min(1, shift))));
  }
  return track;
}

/** A gliding voiced tone with noise, a digital-silence gap and a quiet stretch: every YIN branch. */
function testSignal(rate: number): Float32Array {
  let seed = 7;
  const noise = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31 - 0.5) * 0.02;
  let phase = 0;
  return Float32Array.from({ length: rate }, (_, i) => {
    if (i > 0.4 * rate && i < 0.5 * rate) return 0;
    const hz = 90 + 60 * (i / rate);
    phase += (2 * Math.PI * hz) / rate;
    const level = i > 0.7 * rate && i < 0.8 * rate ? 1e-4 : 0.5;
    return level * (Math.sin(phase) + 0.5 * Math.sin(2 * phase) + 0.25 * Math.sin(3 * phase)) + noise() * level;
  });
}

describe('yinTrack', () => {
  const sampleRate = 11025;
  const base = { sampleRate, minHz: 55, maxHz: 500, frameSize: 441, hop: 110, threshold: 0.15 };
  const samples = testSignal(sampleRate);

  it.each([
    ['every frame', undefined],
    ['every third frame left out', (f: number) => f % 3 !== 0],
    ['runs of frames', (f: number) => Math.floor(f / 7) % 2 === 0],
  ])('gives the textbook YIN track (%s)', (_, include) => {
    const options = { ...base, include };
    const expected = textbookYin(samples, options);
    const track = yinTrack(samples, options);
    expect(track).toHaveLength(expected.length);
    // The gliding tone is found, silence and the left-out frames are not.
    expect(expected.filter((hz) => hz !== null).length).toBeGreaterThan(expected.length / 3);
    track.forEach((hz, i) => {
      if (expected[i] === null) expect(hz).toBeNull();
      // The same up to rounding: the sums are taken in another order (a 1e-5 relative bound, 0.001 Hz at 100 Hz).
      else expect(Math.abs(hz! - expected[i]!) / expected[i]!).toBeLessThan(1e-5);
    });
  });

  it('finds the glide where it is', () => {
    const track = yinTrack(samples, base);
    // Frame 20 starts at 0.2 s: 90 + 60 × 0.22 Hz at its middle.
    expect(track[20]).toBeCloseTo(90 + 60 * ((20 * 110 + 220) / sampleRate), 0);
    // The digital silence (0.4–0.5 s) is unvoiced.
    expect(track[42]).toBeNull();
  });
});
