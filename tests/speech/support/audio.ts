/** Audio checks for the speech tests: an MP3 frame parser, PCM measures, a pitch estimate. */

export interface Mp3Frame {
  offset: number;
  version: 1 | 2 | 2.5;
  sampleRate: number;
  bitrateKbps: number;
  length: number;
  samples: number;
}

const BITRATES_V1_L3 = [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320];
const BITRATES_V2_L3 = [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160];
const RATES: Record<string, number[]> = { '1': [44100, 48000, 32000], '2': [22050, 24000, 16000], '2.5': [11025, 12000, 8000] };

/**
 * Walks an MPEG audio layer III stream frame by frame (after an optional ID3v2 tag). Throws if a
 * byte does not belong to a frame: the whole body must be valid MP3.
 */
export function parseMp3(buf: Buffer): Mp3Frame[] {
  let offset = 0;
  if (buf.length >= 10 && buf.toString('latin1', 0, 3) === 'ID3') {
    const size = ((buf[6]! & 0x7f) << 21) | ((buf[7]! & 0x7f) << 14) | ((buf[8]! & 0x7f) << 7) | (buf[9]! & 0x7f);
    offset = 10 + size;
  }
  const frames: Mp3Frame[] = [];
  while (offset < buf.length) {
    if (offset + 4 > buf.length) throw new Error(`truncated frame header at ${offset}`);
    const b1 = buf[offset + 1]!;
    const b2 = buf[offset + 2]!;
    if (buf[offset] !== 0xff || (b1 & 0xe0) !== 0xe0) throw new Error(`no frame sync at byte ${offset}`);
    const versionBits = (b1 >> 3) & 0x03;
    const layerBits = (b1 >> 1) & 0x03;
    if (versionBits === 1 || layerBits !== 1) throw new Error(`not MPEG layer III at byte ${offset}`);
    const version = versionBits === 3 ? 1 : versionBits === 2 ? 2 : 2.5;
    const bitrateKbps = (version === 1 ? BITRATES_V1_L3 : BITRATES_V2_L3)[(b2 >> 4) & 0x0f];
    const sampleRate = RATES[String(version)]![(b2 >> 2) & 0x03];
    if (!bitrateKbps || !sampleRate) throw new Error(`bad bitrate or sample rate at byte ${offset}`);
    const padding = (b2 >> 1) & 0x01;
    const length = Math.floor(((version === 1 ? 144 : 72) * bitrateKbps * 1000) / sampleRate) + padding;
    if (offset + length > buf.length) throw new Error(`truncated frame at byte ${offset}`);
    frames.push({ offset, version, sampleRate, bitrateKbps, length, samples: version === 1 ? 1152 : 576 });
    offset += length;
  }
  return frames;
}

export function mp3DurationSeconds(frames: Mp3Frame[]): number {
  return frames.reduce((s, f) => s + f.samples / f.sampleRate, 0);
}

export function pcmSamples(buf: Buffer): Int16Array {
  const copy = Buffer.from(buf);
  return new Int16Array(copy.buffer, copy.byteOffset, Math.floor(copy.length / 2));
}

export function rms(samples: Int16Array): number {
  let sum = 0;
  for (const s of samples) sum += s * s;
  return samples.length ? Math.sqrt(sum / samples.length) : 0;
}

/**
 * Fundamental frequency per 40 ms window by autocorrelation (voiced windows only), at `rate` Hz.
 * Returns the estimates; their median is the voice's pitch, their spread its intonation.
 */
export function pitchTrack(samples: Int16Array, rate: number, minHz = 60, maxHz = 450): number[] {
  const win = Math.floor(rate * 0.04);
  const minLag = Math.floor(rate / maxHz);
  const maxLag = Math.ceil(rate / minHz);
  const out: number[] = [];
  for (let start = 0; start + win + maxLag < samples.length; start += win) {
    let energy = 0;
    for (let i = 0; i < win; i++) energy += samples[start + i]! ** 2;
    if (Math.sqrt(energy / win) < 800) continue;
    let best = 0;
    let bestLag = 0;
    for (let lag = minLag; lag <= maxLag; lag++) {
      let acc = 0;
      let e2 = 0;
      for (let i = 0; i < win; i++) {
        acc += samples[start + i]! * samples[start + i + lag]!;
        e2 += samples[start + i + lag]! ** 2;
      }
      const norm = acc / Math.sqrt(energy * e2 + 1);
      if (norm > best) {
        best = norm;
        bestLag = lag;
      }
    }
    if (best > 0.6 && bestLag > 0) out.push(rate / bestLag);
  }
  return out;
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

export function stddev(values: number[]): number {
  const mean = values.reduce((a, b) => a + b, 0) / (values.length || 1);
  return Math.sqrt(values.reduce((a, b) => a + (b - mean) ** 2, 0) / (values.length || 1));
}

export async function readAll(stream: ReadableStream<Uint8Array>): Promise<{ bytes: Buffer; chunks: number; firstChunkMs: number }> {
  const reader = stream.getReader();
  const parts: Buffer[] = [];
  const start = performance.now();
  let firstChunkMs = -1;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (firstChunkMs < 0) firstChunkMs = performance.now() - start;
    parts.push(Buffer.from(value));
  }
  return { bytes: Buffer.concat(parts), chunks: parts.length, firstChunkMs };
}

/** RMS over speech-active samples (pauses excluded): the loudness a listener hears. */
export function activeRms(samples: Int16Array, floor = 300): number {
  let sum = 0;
  let count = 0;
  for (const s of samples) {
    if (Math.abs(s) > floor) {
      sum += s * s;
      count++;
    }
  }
  return count ? Math.sqrt(sum / count) : 0;
}

/** Intonation spread: semitones between the 10th and 90th percentile of the pitch track. */
export function pitchSpreadSemitones(track: number[]): number {
  const s = track.map((x) => 12 * Math.log2(x)).sort((a, b) => a - b);
  if (s.length < 10) return 0;
  return s[Math.floor(s.length * 0.9)]! - s[Math.floor(s.length * 0.1)]!;
}
