import type { OutputFormat } from '../formats';

/** The sample rates of the linear codecs (PCM, WAV), the official SDKs' list. */
const LINEAR_RATES = [8000, 16000, 22050, 24000, 32000, 44100, 48000] as const;

/** The hosted API keeps PCM and WAV at 44.1 kHz and above for its Pro tier. */
const PRO_RATE = 44100;

/** A linear codec's formats, one per rate: `<codec>_<rate>`, each with its media type. */
export function linearFormats(codec: 'pcm' | 'wav', contentType: (rate: number) => string): OutputFormat[] {
  return LINEAR_RATES.map((rate) => ({
    id: `${codec}_${rate}`,
    codec,
    sampleRate: rate,
    contentType: contentType(rate),
    ...(rate >= PRO_RATE ? { minimumPlan: 'pro' as const } : {}),
  }));
}
