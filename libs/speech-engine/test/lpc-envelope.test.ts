import { envelopeFilter, inverseFilter, lpcEnvelope } from '../src/lpc-envelope';

const RATE = 22_050;

/** A vowel-like piece: pulses at 100 Hz through two resonances (700 and 1220 Hz). */
function vowel(): Float32Array {
  const out = new Float32Array(RATE / 2);
  const state = [0, 0, 0, 0];
  for (let i = 0; i < out.length; i++) {
    let v = i % (RATE / 100) === 0 ? 10_000 : 0;
    for (const [k, hz] of [700, 1220].entries()) {
      const r = Math.exp((-Math.PI * 100) / RATE);
      const y = v + 2 * r * Math.cos((2 * Math.PI * hz) / RATE) * state[2 * k]! - r * r * state[2 * k + 1]!;
      state[2 * k + 1] = state[2 * k]!;
      state[2 * k] = y;
      v = y;
    }
    out[i] = v;
  }
  return out;
}

const peakToRms = (x: Float32Array) =>
  Math.max(...x.map(Math.abs)) / Math.sqrt(x.reduce((s, v) => s + v * v, 0) / x.length);

describe('a piece split into its LPC envelope and residual', () => {
  const piece = vowel();
  const envelope = lpcEnvelope(piece, RATE);

  it('is the piece again when the residual goes back through the envelope', () => {
    const back = envelopeFilter(inverseFilter(piece, envelope), envelope, 1);
    const peak = Math.max(...piece.map(Math.abs));
    expect(Math.max(...back.map((v, i) => Math.abs(v - piece[i]!)))).toBeLessThan(peak * 1e-3);
  });

  it('leaves the pulses in the residual: the resonances are taken out', () => {
    // Pulses one period apart are far peakier than the ringing they excite.
    expect(peakToRms(inverseFilter(piece, envelope))).toBeGreaterThan(2 * peakToRms(piece));
  });

  it('passes silence through as silence', () => {
    const silence = new Float32Array(RATE / 10);
    const quiet = lpcEnvelope(silence, RATE);
    expect(quiet.filters.every((a) => a === null)).toBe(true);
    expect(envelopeFilter(inverseFilter(silence, quiet), quiet, 1.2).every((v) => v === 0)).toBe(true);
  });
});
