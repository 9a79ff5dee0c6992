/** Output formats (`output_format`): `<codec>_<sample rate>[_<bit rate>]`. */
export interface OutputFormat {
  id: string;
  codec: 'mp3' | 'pcm' | 'ulaw' | 'opus';
  sampleRate: number;
  /** kbit/s, MP3 and Opus only. */
  bitrate?: number;
  contentType: string;
}

const mp3 = (rate: number, kbps: number): OutputFormat => ({
  id: `mp3_${rate}_${kbps}`,
  codec: 'mp3',
  sampleRate: rate,
  bitrate: kbps,
  contentType: 'audio/mpeg',
});
const pcm = (rate: number): OutputFormat => ({
  id: `pcm_${rate}`,
  codec: 'pcm',
  sampleRate: rate,
  // Raw signed 16-bit little-endian mono; the rate rides along as a media type parameter.
  contentType: `audio/pcm;rate=${rate}`,
});

// Opus in Ogg (RFC 7845), mono at 48 kHz; `codecs` tells players which codec the Ogg holds.
const opus = (kbps: number): OutputFormat => ({
  id: `opus_48000_${kbps}`,
  codec: 'opus',
  sampleRate: 48000,
  bitrate: kbps,
  contentType: 'audio/ogg;codecs=opus',
});

export const OUTPUT_FORMATS: readonly OutputFormat[] = [
  mp3(22050, 32),
  mp3(44100, 32),
  mp3(44100, 64),
  mp3(44100, 96),
  mp3(44100, 128),
  mp3(44100, 192),
  pcm(8000),
  pcm(16000),
  pcm(22050),
  pcm(24000),
  pcm(44100),
  { id: 'ulaw_8000', codec: 'ulaw', sampleRate: 8000, contentType: 'audio/basic' },
  opus(32),
  opus(64),
  opus(96),
  opus(128),
  opus(192),
];

export const DEFAULT_OUTPUT_FORMAT = 'mp3_44100_128';

const BY_ID = new Map(OUTPUT_FORMATS.map((f) => [f.id, f]));

export function resolveOutputFormat(id: string | undefined): OutputFormat | null {
  return BY_ID.get(id ?? DEFAULT_OUTPUT_FORMAT) ?? null;
}
