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
const RATES: Record<string, number[]> = {
  '1': [44100, 48000, 32000],
  '2': [22050, 24000, 16000],
  '2.5': [11025, 12000, 8000],
};

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

export async function readAll(
  stream: ReadableStream<Uint8Array>,
): Promise<{ bytes: Buffer; chunks: number; firstChunkMs: number }> {
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

export interface OggPage {
  offset: number;
  headerType: number;
  granule: bigint;
  serial: number;
  sequence: number;
  /** Packet bytes of this page (segments concatenated). */
  body: Buffer;
}

const OGG_CRC_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let i = 0; i < 256; i++) {
    let r = i << 24;
    for (let j = 0; j < 8; j++) r = r & 0x80000000 ? (r << 1) ^ 0x04c11db7 : r << 1;
    table[i] = r >>> 0;
  }
  return table;
})();

function oggCrc(bytes: Buffer): number {
  let crc = 0;
  for (const b of bytes) crc = ((crc << 8) ^ OGG_CRC_TABLE[((crc >>> 24) ^ b) & 0xff]!) >>> 0;
  return crc;
}

/**
 * Walks an Ogg stream page by page (RFC 3533), checking capture pattern, version and each page's
 * CRC. Throws if a byte does not belong to a page: the whole body must be valid Ogg.
 */
export function parseOgg(buf: Buffer): OggPage[] {
  const pages: OggPage[] = [];
  let offset = 0;
  while (offset < buf.length) {
    if (offset + 27 > buf.length) throw new Error(`truncated page header at ${offset}`);
    if (buf.toString('latin1', offset, offset + 4) !== 'OggS') throw new Error(`no capture pattern at byte ${offset}`);
    if (buf[offset + 4] !== 0) throw new Error(`unknown Ogg version at byte ${offset}`);
    const segments = buf[offset + 26]!;
    const headerLength = 27 + segments;
    if (offset + headerLength > buf.length) throw new Error(`truncated segment table at ${offset}`);
    let bodyLength = 0;
    for (let i = 0; i < segments; i++) bodyLength += buf[offset + 27 + i]!;
    const end = offset + headerLength + bodyLength;
    if (end > buf.length) throw new Error(`truncated page at byte ${offset}`);
    const page = Buffer.from(buf.subarray(offset, end));
    const declaredCrc = page.readUInt32LE(22);
    page.writeUInt32LE(0, 22);
    if (oggCrc(page) !== declaredCrc) throw new Error(`bad CRC in page at byte ${offset}`);
    pages.push({
      offset,
      headerType: buf[offset + 5]!,
      granule: buf.readBigInt64LE(offset + 6),
      serial: buf.readUInt32LE(offset + 14),
      sequence: buf.readUInt32LE(offset + 18),
      body: buf.subarray(offset + headerLength, end),
    });
    offset = end;
  }
  return pages;
}

export interface OpusHead {
  version: number;
  channels: number;
  preSkip: number;
  inputSampleRate: number;
}

/** The identification header (RFC 7845 §5.1) from the first page of an Ogg Opus stream. */
export function parseOpusHead(page: OggPage): OpusHead {
  const b = page.body;
  if (b.length < 19 || b.toString('latin1', 0, 8) !== 'OpusHead') throw new Error('first page is not an OpusHead');
  return { version: b[8]!, channels: b[9]!, preSkip: b.readUInt16LE(10), inputSampleRate: b.readUInt32LE(12) };
}

/** Playback length of an Ogg Opus stream: last granule position (48 kHz samples) minus pre-skip. */
export function opusDurationSeconds(pages: OggPage[], head: OpusHead): number {
  const last = pages[pages.length - 1];
  return last ? Number(last.granule - BigInt(head.preSkip)) / 48000 : 0;
}
