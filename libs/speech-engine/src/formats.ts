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

const BY_ID = new Map(OUTPUT_FORMATS.map((f) => [f.id, f]));

export function resolveOutputFormat(id: string | undefined): OutputFormat | null {
  return BY_ID.get(id ?? DEFAULT_OUTPUT_FORMAT) ?? null;
}
