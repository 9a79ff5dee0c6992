import { z } from 'zod/v4';
import { pronunciationLocators } from './pronunciation-dictionaries';
import { audioMessage, generationConfig, lenient, streamInputQuery } from './stream-input';
import { voiceSettings } from './voice-settings';

/**
 * The WebSocket `/v1/text-to-speech/{voice_id}/multi-stream-input` (docs/speech.md, "WebSocket
 * multi-stream-input"): several independent streams (contexts) on one connection, as voice-agent
 * frameworks use it. Read by the gateway and written into the AsyncAPI document from here.
 */

/** Contexts open at once on one connection (the hosted API's bound). */
export const MAX_CONTEXTS = 5;
/** The longest `context_id`. */
export const MAX_CONTEXT_ID_CHARS = 128;

const CONTEXT_ID_MESSAGE = `context_id must be a string of 1–${MAX_CONTEXT_ID_CHARS} characters`;

const contextId = z
  .string({ error: CONTEXT_ID_MESSAGE })
  .min(1, { error: CONTEXT_ID_MESSAGE })
  .max(MAX_CONTEXT_ID_CHARS, { error: CONTEXT_ID_MESSAGE });

/**
 * Any client message as the gateway reads it: a JSON object. What it does follows from its fields:
 * `close_socket`, else `close_context`, else text and/or `flush` for its context; an empty `text`
 * with neither is a keep-alive. A context's first message's `voice_settings` and
 * `generation_config` are kept as sent and checked when the context opens.
 */
export const multiStreamInputMessage = z.object({
  text: lenient(z.string()),
  context_id: contextId.optional().meta({ description: 'The context; absent: the context named `default`.' }),
  flush: lenient(z.boolean()).meta({ description: "Synthesise the context's buffered text now." }),
  try_trigger_generation: lenient(z.boolean()).meta({ description: 'Read as `flush`.' }),
  close_context: lenient(z.boolean()),
  close_socket: lenient(z.boolean()),
  xi_api_key: lenient(z.string()).meta({ description: 'The API key, when it did not come with the upgrade.' }),
  voice_settings: z.unknown(),
  generation_config: z.unknown(),
  pronunciation_dictionary_locators: z.unknown(),
});

/** A context's first message (the text is usually a single space). */
export const initialiseContextMessage = z.object({
  text: z.string().meta({ description: 'Usually a single space.' }),
  context_id: contextId,
  voice_settings: voiceSettings.nullish(),
  generation_config: generationConfig,
  pronunciation_dictionary_locators: pronunciationLocators,
  xi_api_key: z.string().optional(),
});

/** Text for a context, with `flush` to synthesise what is buffered now. */
export const contextTextMessage = (maxChars: number) =>
  z.object({ text: z.string().max(maxChars), context_id: contextId, flush: z.boolean().optional() });

/** The context's text is complete: synthesise the rest, then `{"isFinal": true, "contextId": …}`. */
export const flushContextMessage = z.object({ context_id: contextId, flush: z.literal(true) });

/** No more text for the context (see docs/speech.md: after an empty flush it finishes, otherwise it is interrupted). */
export const closeContextMessage = z.object({ context_id: contextId, close_context: z.literal(true) });

/** Ends the connection: anything still in hand is cancelled, then close 1000. */
export const closeSocketMessage = z.object({ close_socket: z.literal(true) });

/** Keeps the connection (and the context, when named) from timing out. */
export const keepAliveMessage = z.object({ text: z.literal(''), context_id: contextId.optional() });

/** One piece of a context's audio. */
export const contextAudioMessage = audioMessage.extend({ contextId: z.string() });

/** The context is over: after its last audio (finished) or at once (interrupted). */
export const contextFinalMessage = z.looseObject({ isFinal: z.literal(true), contextId: z.string() });
export type ContextFinalMessage = z.output<typeof contextFinalMessage>;

/**
 * The upgrade's query string: `stream-input`'s (the framing is always JSON) plus the voice-agent
 * frameworks' parameters, accepted and documented (docs/speech.md).
 */
export const multiStreamInputQuery = (maxChars: number) =>
  streamInputQuery(maxChars)
    .omit({ shape: true, message_format: true })
    .extend({
      auto_mode: z
        .enum(['true', 'false'])
        .optional()
        .meta({ description: 'Accepted; text is always generated at each sentence end or flush.' }),
      enable_ssml_parsing: z
        .enum(['true', 'false'])
        .optional()
        .meta({ description: 'Accepted; SSML is read as text.' }),
      enable_logging: z
        .enum(['true', 'false'])
        .optional()
        .meta({ description: 'Accepted; history is kept as for every request.' }),
    });
