import { env, loadConfig } from '@platform/config';
import { DEFAULT_KEY_PREFIX, SYNTHESIS_QUEUE } from '@platform/speech-jobs';
import { z } from 'zod';
import { MESSAGE_BURST, MESSAGES_PER_SECOND } from './stream-input/session';

const optionalString = z.string().default('');

/**
 * The speech edge's settings (docs/configuration.md, docs/speech.md), each default written here
 * once: the gateway's configuration takes them into its own (config.ts), and `createSpeechEdge`
 * reads them as parsed, with nothing to fill in.
 */
export const speechConfigShape = {
  /** BullMQ queue the synthesis jobs go to (the workers' `SYNTHESIS_QUEUE`); tests use unique ones. */
  SYNTHESIS_QUEUE: z.string().min(1).max(100).default(SYNTHESIS_QUEUE),
  /** Finished synthesis jobs kept in the queue for the queue dashboard (docs/gateway.md), newest first. */
  SYNTHESIS_KEEP_COMPLETED_JOBS: z.coerce.number().int().min(0).max(1_000_000).default(1_000),
  SYNTHESIS_KEEP_FAILED_JOBS: z.coerce.number().int().min(0).max(1_000_000).default(5_000),
  /** Prefix of the per-job Redis keys (the workers' `SPEECH_KEY_PREFIX`). */
  SPEECH_KEY_PREFIX: z.string().min(1).max(100).default(DEFAULT_KEY_PREFIX),
  /** No audio frame from a worker for this long: the request fails. */
  SPEECH_FRAME_TIMEOUT_MS: env.positiveInt(15_000),
  /**
   * A synthesis job no worker has started this long after it was queued (every real-time slot
   * taken) is refused: 503 with Retry-After, or WebSocket close 1013; nothing charged. 0 = no bound.
   */
  SPEECH_QUEUE_WAIT_MS: z.coerce.number().int().min(0).max(600_000).default(5_000),
  /** Longest `text` per request, in characters. */
  SPEECH_MAX_TEXT_CHARS: env.positiveInt(5_000),
  /** A WebSocket closes after this long without a client message (as the hosted API). */
  SPEECH_WS_IDLE_TIMEOUT_MS: env.positiveInt(20_000),
  /** A stream-input WebSocket that has not sent a valid API key within this long is closed 1008. */
  SPEECH_WS_AUTH_TIMEOUT_MS: env.positiveInt(10_000),
  /**
   * stream-input sockets per client address still without an accepted API key, across replicas;
   * beyond them the upgrade is answered 429. Once a key is accepted the socket holds one of its
   * plan's concurrency slots instead (docs/speech.md "Plans").
   */
  SPEECH_WS_CONNECTIONS_PER_ADDRESS: env.positiveInt(10),
  /** Messages a stream-input socket may send per second, and at once (token bucket); beyond them, too_many_requests and close 1013. */
  SPEECH_WS_MESSAGES_PER_SECOND: env.positiveInt(MESSAGES_PER_SECOND),
  SPEECH_WS_MESSAGE_BURST: env.positiveInt(MESSAGE_BURST),
  /**
   * A client that takes no bytes for this long (the response's or WebSocket's buffers full) is given up
   * on: its job cancelled, characters refunded. Applies to `/stream`, the whole-file route and stream-input.
   */
  SPEECH_WRITE_STALL_TIMEOUT_MS: env.positiveInt(30_000),
  /** The speech database (the speech API's account features: voices, history, subscriptions). Unset: /v1/voices, /history, /user are not served. */
  MONGO_URL: env.mongoUrl.optional(),
  /** Its database name, shared with the synthesis worker. */
  SPEECH_MONGO_DB: z.string().min(1).default('speech'),
  /** JSON overrides of the speech plan table (docs/speech.md). */
  SPEECH_PLANS: optionalString,
  /**
   * A voice-analysis job (cloning) no synthesis worker has started this long after it was queued is
   * withdrawn and the upload answered 503 with Retry-After (milliseconds). The workers analyse: the
   * gateway runs no analysis of its own.
   */
  VOICE_ANALYSIS_WAIT_MS: env.positiveInt(10_000),
  /** Voice uploads (add or edit) in progress per account on one replica; beyond them, 429. */
  VOICE_ANALYSIS_PER_ACCOUNT: z.coerce.number().int().min(1).max(10).default(1),
  /**
   * The voices directory: Piper voices (scripts/fetch-voices.mjs puts en_US-joe-medium there) and an optional
   * `voices.json` catalogue (`loadVoiceCatalogue`); the neural model is listed in the installed voices' languages.
   */
  PIPER_VOICES_DIR: z.string().default(''),
};

/** The speech edge's settings as parsed, with the gateway's address and Redis it also reads. */
export type SpeechConfig = z.output<z.ZodObject<typeof speechConfigShape>> & { REDIS_URL: string; PUBLIC_URL: string };

/**
 * Settings for a speech edge made outside the gateway process (tests): the given values, the
 * defaults for the rest, checked as the gateway checks its environment.
 */
export function speechConfig(
  values: { REDIS_URL: string; PUBLIC_URL: string } & Record<string, unknown>,
): SpeechConfig {
  return {
    ...loadConfig(speechConfigShape, stringValues(values)),
    REDIS_URL: values.REDIS_URL,
    PUBLIC_URL: values.PUBLIC_URL,
  };
}

function stringValues(values: Record<string, unknown>): NodeJS.ProcessEnv {
  return Object.fromEntries(
    Object.entries(values).flatMap(([name, value]) => (value === undefined ? [] : [[name, String(value)]])),
  );
}
