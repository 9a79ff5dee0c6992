/**
 * G.711 A-law encoding of 16-bit PCM (what telephony's `alaw_8000` means outside North America and
 * Japan): 13-bit magnitude, eight segments of 16 steps, even bits inverted (XOR 0x55) as the
 * standard transmits them.
 */
export function encodeAlaw(pcm: Int16Array): Buffer {
  const out = Buffer.alloc(pcm.length);
  for (let i = 0; i < pcm.length; i++) out[i] = alawByte(pcm[i]!);
  return out;
}

/** Upper bound of each segment, in 13-bit magnitude. */
const SEGMENT_ENDS = [0x1f, 0x3f, 0x7f, 0xff, 0x1ff, 0x3ff, 0x7ff, 0xfff];

function alawByte(sample: number): number {
  let magnitude = sample >> 3;
  let mask = 0xd5; // sign bit set for positive values, then the even-bit inversion
  if (magnitude < 0) {
    mask = 0x55;
    magnitude = -magnitude - 1;
  }
  let segment = 0;
  while (segment < 8 && magnitude > SEGMENT_ENDS[segment]!) segment++;
  if (segment === 8) return 0x7f ^ mask; // clipped to the largest code
  const step = segment < 2 ? (magnitude >> 1) & 0x0f : (magnitude >> segment) & 0x0f;
  return ((segment << 4) | step) ^ mask;
}

/** Inverse, for tests and tools. */
export function decodeAlaw(byte: number): number {
  const a = byte ^ 0x55;
  const segment = (a & 0x70) >> 4;
  let magnitude = (a & 0x0f) << 4;
  if (segment === 0) magnitude += 8;
  else magnitude = (magnitude + 0x108) << (segment - 1);
  return a & 0x80 ? magnitude : -magnitude;
}
