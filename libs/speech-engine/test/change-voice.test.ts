import { applyVoiceColour, ENGINE_SAMPLE_RATE, yinTrack } from '../src';
import { changeVoice } from '../src/change-voice';

const RATE = ENGINE_SAMPLE_RATE;

/** One second of a vowel (/a/: formants 700, 1220 and 2600 Hz) on a pulse train at `f0`, peaking at `peak`. */
function syntheticVowel(f0: number, rate = RATE, peak = 16000): Int16Array {
  const pulses = new Float64Array(rate);
  for (let t = 0; t < rate; t += rate / f0) pulses[Math.round(t)] = 1;
  let signal = pulses;
  for (const [hz, bandwidth] of [
    [700, 110],
    [1220, 120],
    [2600, 160],
  ] as const) {
    const r = Math.exp((-Math.PI * bandwidth) / rate);
    const a1 = 2 * r * Math.cos((2 * Math.PI * hz) / rate);
    const a2 = -r * r;
    const out = new Float64Array(rate);
    for (let i = 0; i < rate; i++) out[i] = signal[i]! + a1 * (out[i - 1] ?? 0) + a2 * (out[i - 2] ?? 0);
    signal = out;
  }
  const top = Math.max(...signal.map(Math.abs));
  return Int16Array.from(signal, (v, i) => Math.round((v / top) * peak * Math.min(1, i / 2000, (rate - i) / 2000)));
}

function medianF0(pcm: Int16Array): { hz: number; frames: number[] } {
  const frames = yinTrack(
    Float32Array.from(pcm, (v) => v / 32768),
    { sampleRate: RATE, minHz: 60, maxHz: 600 },
  ).filter((hz): hz is number => hz !== null);
  return { hz: [...frames].sort((a, b) => a - b)[frames.length >> 1]!, frames };
}

/** Power-weighted mean frequency over the middle of the piece (1024-point DFTs every 2048 samples). */
function spectralCentroid(pcm: Int16Array): number {
  const n = 1024;
  const cos = Float64Array.from({ length: n }, (_, i) => Math.cos((2 * Math.PI * i) / n));
  const sin = Float64Array.from({ length: n }, (_, i) => Math.sin((2 * Math.PI * i) / n));
  const hann = Float64Array.from({ length: n }, (_, i) => 0.5 - 0.5 * cos[i]!);
  let weighted = 0;
  let total = 0;
  for (let start = 4096; start + n <= pcm.length - 4096; start += 2048) {
    for (let k = 1; k < n / 2; k++) {
      let re = 0;
      let im = 0;
      for (let i = 0; i < n; i++) {
        const w = pcm[start + i]! * hann[i]!;
        re += w * cos[(k * i) % n]!;
        im -= w * sin[(k * i) % n]!;
      }
      const power = re * re + im * im;
      weighted += power * ((k * RATE) / n);
      total += power;
    }
  }
  return weighted / total;
}

describe('voice colour in process (resampling and TD-PSOLA)', () => {
  const vowel = syntheticVowel(100);

  it("moves a voiced piece's median pitch to the target, up and down, at exactly its length, without octave errors", () => {
    for (const [target, ratio] of [
      [220, 1.2],
      [80, 0.95],
    ] as const) {
      const coloured = applyVoiceColour(vowel, { pitchHz: target, formantRatio: ratio });
      expect(coloured).toBeInstanceOf(Int16Array);
      expect(coloured.length).toBe(vowel.length);
      const { hz, frames } = medianF0(coloured);
      expect(frames.length).toBeGreaterThan(50);
      expect(Math.abs(hz / target - 1)).toBeLessThan(0.03);
      // Every voiced frame within a fifth of the target.
      expect(frames.filter((f) => f > target * 1.5 || f < target / 1.5)).toEqual([]);
    }
  });

  it('moves the spectral envelope with the formant ratio, at the same pitch', () => {
    const at = (ratio: number) => spectralCentroid(changeVoice(vowel, RATE, ratio, 150));
    const [low, same, high] = [at(0.9), at(1), at(1.2)];
    expect(high / same).toBeGreaterThan(1.08);
    expect(low / same).toBeLessThan(0.96);
  });

  it('gives the same samples for the same piece (a job taken over replays them from its checkpoint)', () => {
    const colour = { pitchHz: 210, formantRatio: 1.15 };
    expect(Buffer.from(applyVoiceColour(vowel, colour).buffer)).toEqual(
      Buffer.from(applyVoiceColour(Int16Array.from(vowel), colour).buffer),
    );
  });

  it('passes a piece of a few milliseconds through, and keeps silence silent', () => {
    const colour = { pitchHz: 220, formantRatio: 1.2 };
    const tiny = new Int16Array(200).fill(1000);
    expect(applyVoiceColour(tiny, colour)).toBe(tiny);
    const silence = applyVoiceColour(new Int16Array(RATE), colour);
    expect(silence.length).toBe(RATE);
    expect(silence.every((v) => v === 0)).toBe(true);
  });

  it('neither clips nor produces NaN on a loud piece', () => {
    const loud = syntheticVowel(120, RATE, 30000);
    for (const colour of [
      { pitchHz: 250, formantRatio: 1.25 },
      { pitchHz: 85, formantRatio: 0.9 },
    ]) {
      const coloured = applyVoiceColour(loud, colour);
      expect(coloured.every((v) => Number.isFinite(v) && v > -32768 && v < 32767)).toBe(true);
      expect(Math.max(...coloured.map(Math.abs))).toBeGreaterThan(10000);
    }
  });
});
