import { requestOptions, type RequestOptionsInput } from '@platform/contracts';
import { readSpeechInput } from '../speech-input';

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

const OPTION_NAMES = ['apply_text_normalization', 'optimize_streaming_latency', 'seed', 'previous_text', 'next_text'];

/**
 * The options from the JSON body and the query string (where the hosted API takes
 * `optimize_streaming_latency`, and where a WebSocket has them all); the body wins when both have one.
 */
export function optionsInput(body: Record<string, unknown>, query: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(OPTION_NAMES.map((name) => [name, body[name] ?? query[name]]));
}

/** The checked options (the contract's `requestOptions`) with their defaults. */
export function requestOptionsOf(checked: RequestOptionsInput): RequestOptions {
  return {
    latency: checked.optimize_streaming_latency ?? 0,
    seed: checked.seed ?? null,
    textNormalization: checked.apply_text_normalization ?? 'auto',
    previousText: checked.previous_text ?? null,
    nextText: checked.next_text ?? null,
  };
}

/** Reads and checks the options (a WebSocket's come in its query string). */
export function parseRequestOptions(
  body: Record<string, unknown>,
  query: Record<string, unknown>,
  maxChars: number,
): RequestOptions {
  return requestOptionsOf(readSpeechInput(requestOptions(maxChars), optionsInput(body, query)));
}
