/**
 * Speaker boost: brings a sentence to a fixed loudness (RMS −16 dBFS of speech-active samples,
 * peaks held under −1 dBFS), so every voice, setting and sentence plays at the same level.
 */
const TARGET_RMS = 32768 * Math.pow(10, -16 / 20);
const PEAK_LIMIT = 32768 * Math.pow(10, -1 / 20);
const MAX_GAIN = 8;

export function normalizeLoudness(pcm: Int16Array): Int16Array {
  let sum = 0;
  let count = 0;
  let peak = 0;
  for (const s of pcm) {
    const a = Math.abs(s);
    if (a > peak) peak = a;
    // Pauses would drag the mean down and make loud sentences louder still; count speech only.
    if (a > 300) {
      sum += s * s;
      count++;
    }
  }
  if (count === 0 || peak === 0) return pcm;
  const rms = Math.sqrt(sum / count);
  const gain = Math.min(TARGET_RMS / rms, PEAK_LIMIT / peak, MAX_GAIN);
  const out = new Int16Array(pcm.length);
  for (let i = 0; i < pcm.length; i++) out[i] = Math.max(-32768, Math.min(32767, Math.round(pcm[i]! * gain)));
  return out;
}

/** Short fades at both ends of a piece so joins between separately synthesised pieces never click. */
export function fadeEdges(pcm: Int16Array, samples = 64): Int16Array {
  const n = Math.min(samples, Math.floor(pcm.length / 2));
  for (let i = 0; i < n; i++) {
    const g = i / n;
    pcm[i] = Math.round(pcm[i]! * g);
    pcm[pcm.length - 1 - i] = Math.round(pcm[pcm.length - 1 - i]! * g);
  }
  return pcm;
}
