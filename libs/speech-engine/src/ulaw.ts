/** G.711 μ-law encoding of 16-bit PCM (what telephony's `ulaw_8000` means). */
export function encodeUlaw(pcm: Int16Array): Buffer {
  const out = Buffer.alloc(pcm.length);
  for (let i = 0; i < pcm.length; i++) out[i] = ulawByte(pcm[i]!);
  return out;
}

const BIAS = 0x84;
const CLIP = 32635;

function ulawByte(sample: number): number {
  const sign = sample < 0 ? 0x80 : 0;
  let magnitude = Math.min(CLIP, Math.abs(sample)) + BIAS;
  let exponent = 7;
  for (let mask = 0x4000; (magnitude & mask) === 0 && exponent > 0; mask >>= 1) exponent--;
  const mantissa = (magnitude >> (exponent + 3)) & 0x0f;
  magnitude = ~(sign | (exponent << 4) | mantissa);
  return magnitude & 0xff;
}

/** Inverse, for tests and tools. */
export function decodeUlaw(byte: number): number {
  const u = ~byte & 0xff;
  const sign = u & 0x80;
  const exponent = (u >> 4) & 0x07;
  const mantissa = u & 0x0f;
  const magnitude = (((mantissa << 3) + BIAS) << exponent) - BIAS;
  return sign ? -magnitude : magnitude;
}
