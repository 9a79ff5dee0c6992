import { badRequest } from '../speech-errors';

/**
 * The hosted API's synthesis options that the official SDKs send, read and checked. What each
 * does here is in docs/speech.md, "Request options": `latency` shortens the first piece of audio;
 * the rest are accepted and have no effect on our engines (eSpeak NG output is already
 * deterministic, and it always normalises numbers and abbreviations itself).
 */
export interface RequestOptions {
  /** `optimize_streaming_latency`, 0 (none) to 4 (the shortest first piece). */
  latency: number;
  /** `seed`, 0 to 4294967295; null when not given. */
  seed: number | null;
  /** `apply_text_normalization`. */
  textNormalization: 'auto' | 'on' | 'off';
  /** `previous_text` and `next_text`: the text around this request's. */
  previousText: string | null;
  nextText: string | null;
}

const NORMALIZATION = ['auto', 'on', 'off'] as const;
const MAX_SEED = 4_294_967_295;

/** A whole number in [min, max], given as a JSON number or (query string) its digits. */
function integerIn(value: unknown, name: string, min: number, max: number): number | null {
  if (value === undefined || value === null) return null;
  const n = typeof value === 'string' && /^-?\d+$/.test(value.trim()) ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isInteger(n) || n < min || n > max)
    throw badRequest(`${name} must be a whole number from ${min} to ${max}`);
  return n;
}

function optionalText(value: unknown, name: string, maxChars: number): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string') throw badRequest(`${name} must be a string`);
  if ([...value].length > maxChars) throw badRequest(`${name} is longer than ${maxChars} characters`);
  return value;
}

/**
 * Reads the options from the JSON body and the query string (where the hosted API takes
 * `optimize_streaming_latency`, and where a WebSocket has them all); the body wins when both have one.
 */
export function parseRequestOptions(
  body: Record<string, unknown>,
  query: Record<string, unknown>,
  maxChars: number,
): RequestOptions {
  const pick = (name: string) => body[name] ?? query[name];
  const normalization = pick('apply_text_normalization') ?? 'auto';
  if (!NORMALIZATION.includes(normalization as (typeof NORMALIZATION)[number]))
    throw badRequest('apply_text_normalization must be "auto", "on" or "off"');
  return {
    latency: integerIn(pick('optimize_streaming_latency'), 'optimize_streaming_latency', 0, 4) ?? 0,
    seed: integerIn(pick('seed'), 'seed', 0, MAX_SEED),
    textNormalization: normalization as RequestOptions['textNormalization'],
    previousText: optionalText(pick('previous_text'), 'previous_text', maxChars),
    nextText: optionalText(pick('next_text'), 'next_text', maxChars),
  };
}
