/** Output formats (`output_format`): `<codec>_<sample rate>[_<bit rate>]`, the official SDKs' list. */
export interface OutputFormat {
  id: string;
  codec: 'mp3' | 'pcm' | 'wav' | 'ulaw' | 'alaw' | 'opus';
  sampleRate: number;
  /** kbit/s, MP3 and Opus only. */
  bitrate?: number;
  contentType: string;
  /**
   * The cheapest plan that may ask for this format (a name of the speech store's plan list), as the
   * hosted API keeps it for paid tiers; absent: every plan.
   */
  minimumPlan?: 'creator' | 'pro';
}

/** The hosted API keeps PCM and WAV at 44.1 kHz and above for its Pro tier. */
const PRO_RATE = 44100;

const mp3 = (rate: number, kbps: number): OutputFormat => ({
  id: `mp3_${rate}_${kbps}`,
  codec: 'mp3',
  sampleRate: rate,
  bitrate: kbps,
  contentType: 'audio/mpeg',
  // The hosted API: "MP3 with 192kbps bitrate requires you to be subscribed to Creator tier or above".
  ...(kbps >= 192 ? { minimumPlan: 'creator' as const } : {}),
});

const linear = (codec: 'pcm' | 'wav', rate: number, contentType: string): OutputFormat => ({
  id: `${codec}_${rate}`,
  codec,
  sampleRate: rate,
  contentType,
  ...(rate >= PRO_RATE ? { minimumPlan: 'pro' as const } : {}),
});
// Raw signed 16-bit little-endian mono; the rate rides along as a media type parameter.
const pcm = (rate: number) => linear('pcm', rate, `audio/pcm;rate=${rate}`);
// The same samples behind a RIFF/WAVE header (wav.ts), which carries the rate itself.
const wav = (rate: number) => linear('wav', rate, 'audio/wav');

// Opus in Ogg (RFC 7845), mono at 48 kHz; `codecs` tells players which codec the Ogg holds.
const opus = (kbps: number): OutputFormat => ({
  id: `opus_48000_${kbps}`,
  codec: 'opus',
  sampleRate: 48000,
  bitrate: kbps,
  contentType: 'audio/ogg;codecs=opus',
});

const LINEAR_RATES = [8000, 16000, 22050, 24000, 32000, 44100, 48000];

export const OUTPUT_FORMATS: readonly OutputFormat[] = [
  mp3(22050, 32),
  mp3(24000, 48),
  mp3(44100, 32),
  mp3(44100, 64),
  mp3(44100, 96),
  mp3(44100, 128),
  mp3(44100, 192),
  ...LINEAR_RATES.map(pcm),
  ...LINEAR_RATES.map(wav),
  // G.711 (telephony): one byte per sample, no header. `audio/basic` is μ-law by definition (RFC
  // 2046); A-law has no registered file type, `audio/x-alaw-basic` is the name in common use.
  { id: 'ulaw_8000', codec: 'ulaw', sampleRate: 8000, contentType: 'audio/basic' },
  { id: 'alaw_8000', codec: 'alaw', sampleRate: 8000, contentType: 'audio/x-alaw-basic' },
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
