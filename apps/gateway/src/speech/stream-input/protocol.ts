import { streamInputMessage } from '@platform/contracts';
import { speechErrorBody, type SpeechError, type SpeechErrorStatus } from '@platform/errors';
import { SERVICE_RESTART } from '../../routing/shutdown-drain';

/** Close codes (RFC 6455 §7.4.1) per failure, documented in docs/speech.md. */
export const CLOSE = {
  normal: 1000,
  goingAway: 1001,
  policy: 1008,
  tooBig: 1009,
  internal: 1011,
  /** The gateway is restarting (a rollout, a scale-down): reconnect (routing/shutdown-drain.ts). */
  serviceRestart: SERVICE_RESTART.code,
  tryAgainLater: 1013,
} as const;

/**
 * The close code for a failure: try again later for limits and for a job no worker could start in
 * time (the REST answer's `Retry-After`), internal for faults, policy for the rest.
 */
export function closeCodeFor(err: SpeechError): number {
  if (err.status === 'too_many_requests' || err.retryAfterSeconds !== undefined) return CLOSE.tryAgainLater;
  return err.httpStatus >= 500 ? CLOSE.internal : CLOSE.policy;
}

export interface ClientMessage {
  text: string;
  flush: boolean;
  voiceSettings?: unknown;
  apiKey?: string;
  voiceId?: string;
  /** The first message's `generation_config` (`chunk_length_schedule`), read by `chunkSchedule`. */
  generationConfig?: unknown;
  /** The first message's `pronunciation_dictionary_locators`, read by `readLocators`. */
  pronunciationLocators?: unknown;
}

/**
 * Parses one client message with its contract (`streamInputMessage`); null when it is not a JSON object
 * with a string `text`. A field of another type than the protocol's counts as not sent.
 */
export function parseClientMessage(raw: string): ClientMessage | null {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    return null;
  }
  const parsed = streamInputMessage.safeParse(value);
  if (!parsed.success) return null;
  const m = parsed.data;
  return {
    text: m.text,
    flush: m.flush === true || m.try_trigger_generation === true,
    ...(m.voice_settings !== undefined ? { voiceSettings: m.voice_settings } : {}),
    ...(m.xi_api_key !== undefined ? { apiKey: m.xi_api_key } : {}),
    ...(m.voice_id !== undefined ? { voiceId: m.voice_id } : {}),
    ...(m.generation_config !== undefined ? { generationConfig: m.generation_config } : {}),
    ...(m.pronunciation_dictionary_locators !== undefined
      ? { pronunciationLocators: m.pronunciation_dictionary_locators }
      : {}),
  };
}

/**
 * A client message as the session switches on it: `text` to synthesise, `end` (empty text: the
 * input is complete), or `malformed` (binary, or not a JSON object with a string `text`).
 */
export type InboundMessage = { kind: 'text' | 'end'; message: ClientMessage } | { kind: 'malformed' };

/** Reads one WebSocket message; `raw` is null for a binary one. */
export function readInbound(raw: string | null): InboundMessage {
  const message = raw === null ? null : parseClientMessage(raw);
  if (!message) return { kind: 'malformed' };
  return { kind: message.text === '' ? 'end' : 'text', message };
}

export function errorMessage(status: SpeechErrorStatus, message: string): string {
  return JSON.stringify(speechErrorBody(status, message));
}
