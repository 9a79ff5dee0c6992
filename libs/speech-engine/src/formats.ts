import { CODECS } from './codecs';

/** Output formats (`output_format`): `<codec>_<sample rate>[_<bit rate>]`, the official SDKs' list. */
export interface OutputFormat {
  id: string;
  /** The name of its codec's descriptor (codecs/). */
  codec: string;
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

/** Every codec's formats (codecs/), the official SDKs' list. */
export const OUTPUT_FORMATS: readonly OutputFormat[] = CODECS.flatMap((c) => c.formats);

export const DEFAULT_OUTPUT_FORMAT = 'mp3_44100_128';

/**
 * Other names clients send for a format: LiveKit Agents' ElevenLabs plugin lists `mp3_44100`, the
 * hosted API's name for its default MP3 (44.1 kHz, 128 kbit/s).
 */
export const OUTPUT_FORMAT_ALIASES: Readonly<Record<string, string>> = { mp3_44100: 'mp3_44100_128' };

const BY_ID = new Map([
  ...OUTPUT_FORMATS.map((f) => [f.id, f] as const),
  ...Object.entries(OUTPUT_FORMAT_ALIASES).map(
    ([alias, id]) => [alias, OUTPUT_FORMATS.find((f) => f.id === id)!] as const,
  ),
]);

/** The format named `id` (or an alias of it: `OUTPUT_FORMAT_ALIASES`); the default when not given, null when unknown. */
export function resolveOutputFormat(id: string | undefined): OutputFormat | null {
  return BY_ID.get(id ?? DEFAULT_OUTPUT_FORMAT) ?? null;
}
