/**
 * Speaker boost: brings a sentence to a fixed loudness — RMS −14 dBFS over speech-active samples —
 * and keeps peaks under full scale with a soft limiter, so every voice, setting and sentence plays
 * at the same, broadcast-like level. Without it the engine's raw level is passed through.
 */
const FULL = 32767;
const TARGET_RMS = FULL * Math.pow(10, -14 / 20);
const KNEE = 0.6 * FULL;
const MAX_GAIN = 8;

function limit(x: number): number {
  const a = Math.abs(x);
  if (a <= KNEE) return x;
  const over = (a - KNEE) / (FULL - KNEE);
  const y = KNEE + (FULL - KNEE) * Math.tanh(over);
  return x < 0 ? -y : y;
}

export function normalizeLoudness(pcm: Int16Array): Int16Array {
  let sum = 0;
  let count = 0;
  for (const s of pcm) {
    // Pauses would drag the mean down and make loud sentences louder still; count speech only.
    if (Math.abs(s) > 300) {
      sum += s * s;
      count++;
    }
  }
  if (count === 0) return pcm;
  const gain = Math.min(TARGET_RMS / Math.sqrt(sum / count), MAX_GAIN);
  const out = new Int16Array(pcm.length);
  for (let i = 0; i < pcm.length; i++) out[i] = Math.round(limit(pcm[i]! * gain));
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
