import { multiStreamInputMessage } from '@platform/contracts';

/** The context a message without `context_id` is for. */
export const DEFAULT_CONTEXT = 'default';

/** A context's text and/or flush; the first one for a context opens it with its settings. */
export interface ContextText {
  kind: 'text';
  contextId: string;
  text: string;
  flush: boolean;
  voiceSettings?: unknown;
  generationConfig?: unknown;
  pronunciationLocators?: unknown;
  apiKey?: string;
}

/**
 * A `multi-stream-input` client message as the session switches on it (the contract:
 * `multiStreamInputMessage`): `close_socket` wins over `close_context`, which wins over text; an
 * empty text with no flush is a keep-alive (Pipecat sends `{"text": ""}` every 10 s, with or without
 * a context). `malformed`: binary, not JSON, or not an object of the protocol's fields.
 */
export type ContextMessage =
  | ContextText
  | { kind: 'close_context'; contextId: string; apiKey?: string }
  | { kind: 'close_socket' }
  | { kind: 'keep_alive'; contextId: string | null; apiKey?: string }
  | { kind: 'malformed'; reason: string };

const MALFORMED = 'messages must be JSON objects such as {"text": "Hello. ", "context_id": "c1", "flush": false}';

/** Reads one WebSocket message; `raw` is null for a binary one. */
export function readContextMessage(raw: string | null): ContextMessage {
  if (raw === null) return { kind: 'malformed', reason: MALFORMED };
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    return { kind: 'malformed', reason: MALFORMED };
  }
  const parsed = multiStreamInputMessage.safeParse(value);
  if (!parsed.success) return { kind: 'malformed', reason: parsed.error.issues[0]?.message ?? MALFORMED };
  const m = parsed.data;
  const key = m.xi_api_key !== undefined ? { apiKey: m.xi_api_key } : {};
  if (m.close_socket === true) return { kind: 'close_socket' };
  const contextId = m.context_id ?? DEFAULT_CONTEXT;
  if (m.close_context === true) return { kind: 'close_context', contextId, ...key };
  const text = m.text ?? '';
  const flush = m.flush === true || m.try_trigger_generation === true;
  if (text === '' && !flush) return { kind: 'keep_alive', contextId: m.context_id ?? null, ...key };
  return {
    kind: 'text',
    contextId,
    text,
    flush,
    ...key,
    ...(m.voice_settings !== undefined ? { voiceSettings: m.voice_settings } : {}),
    ...(m.generation_config !== undefined ? { generationConfig: m.generation_config } : {}),
    ...(m.pronunciation_dictionary_locators !== undefined
      ? { pronunciationLocators: m.pronunciation_dictionary_locators }
      : {}),
  };
}
