import type http from 'node:http';
import type stream from 'node:stream';
import { Queue } from 'bullmq';
import express, { Router } from 'express';
import type { Redis } from 'ioredis';
import type { Identity } from '@platform/identity';
import type { Logger } from '@platform/logger';
import { loadVoiceCatalogue, type VoiceCatalogue } from '@platform/speech-engine';
import { createBlockingPool, type SpeechHooks, type SynthesisJobData } from '@platform/speech-jobs';
import { premadeFromCatalogue, type SpeechStore } from '@platform/speech-store';
import type { WebSocketLogins } from '../limits/websocket-logins';
import { createAccountSpeech, type AccountSpeech } from './account-speech';
import { apiKeysRoutes, type ApiKeysRouteDeps } from './api-keys';
import { modelsRoutes } from './models/models-routes';
import { openAiRoutes } from './openai/openai-routes';
import type { SpeechConfig } from './speech-config';
import { speechErrorHandler } from './speech-errors';
import { MULTI_STREAM_INPUT_ROUTE } from './multi-stream-input/multi-stream-session';
import { STREAM_INPUT_ROUTE, type ReleaseSlot } from './stream-input/session';
import { createStreamInput, type StreamInputDeps } from './stream-input/stream-input';
import { createJobRunner } from './tts/job-runner';
import { premadePreviewUrl, previewRoutes } from './tts/preview-routes';
import { withCatalogueVoices } from './tts/resolve-voice';
import { ttsRoutes } from './tts/tts-routes';

export type { ReleaseSlot };

interface SpeechEdgeDeps {
  /** Its settings, parsed (speech-config.ts: the gateway's own, or `speechConfig` in tests). */
  config: SpeechConfig;
  logger: Logger;
  /** The gateway's shared Redis connection (the edge duplicates it for blocking reads and the queue). */
  redis: Redis;
  /** API key → identity (the WebSocket authenticates inside the protocol). null = not accepted. */
  authenticateApiKey(key: string): Promise<Identity | null>;
  /** Plan concurrency for WebSocket sessions (HTTP requests pass the gateway's middleware). */
  limits: { acquire(identity: Identity): Promise<ReleaseSlot | null> };
  /**
   * The gateway's per-IP budget for WebSocket logins refused for their key (docs/gateway.md,
   * "Requests refused for their credentials"); absent: such refusals are not charged.
   */
  logins?: WebSocketLogins;
  /** stream-input sockets per client address until a key is accepted, across replicas (stream-input.ts); absent: not counted. */
  connections?: StreamInputDeps['connections'];
  /**
   * Pipeline hooks in place of the speech database's (tests: a quota of their own). With
   * `recordHistory`, the gateway records the generations whose client did not get the whole audio
   * (failed, cancelled; docs/speech.md, History).
   */
  hooks?: SpeechHooks;
  /** Self-service API keys at `/api-keys`, kept by auth (docs/speech.md "API keys"). */
  apiKeys?: Omit<ApiKeysRouteDeps, 'logger'>;
}

export interface SpeechEdge {
  router: Router;
  /** The hosted API's `/v2` endpoints (`GET /v2/voices`); mounted at `/v2` like `router` at `/v1`. */
  routerV2: Router;
  /** OpenAI's speech API (`POST /speech`, speech/openai), mounted at `/v1/audio` in OpenAI's error shape. */
  routerOpenAi: Router;
  /** Takes `/v1/text-to-speech/{id}/stream-input` upgrades; false for any other path. */
  handleUpgrade(req: http.IncomingMessage, socket: stream.Duplex, head: Buffer): boolean;
  /** The speech database's store; null without `MONGO_URL`. */
  store: SpeechStore | null;
  /** The synthesis queue jobs are added to (the queue dashboard shows it). */
  queue: Queue<SynthesisJobData>;
  /** Readiness checks for the service's (`mongo`, with the speech database). */
  checks: Record<string, () => Promise<unknown>>;
  /** `stream-input` sessions open now: the gateway's shutdown lets them finish, up to its grace. */
  openSessions(): number;
  /**
   * Ends the work still in flight when the shutdown's grace is over: WebSocket sessions are closed
   * (1012) and running jobs cancelled (recorded failed or cancelled and refunded, as any generation
   * whose client did not get the whole audio). Jobs that ended before are not touched.
   */
  stopIntake(): Promise<void>;
  /** Closes the speech database and the analysis queue, once requests have ended. */
  close(): Promise<void>;
}

/** The account features on the speech database, when configured. */
async function accountFeatures(deps: SpeechEdgeDeps, voices: VoiceCatalogue): Promise<AccountSpeech | null> {
  const { config } = deps;
  if (!config.MONGO_URL) return null;
  const voiceAnalysis = {
    redis: deps.redis,
    synthesisQueue: config.SYNTHESIS_QUEUE,
    waitMs: config.VOICE_ANALYSIS_WAIT_MS,
    perAccount: config.VOICE_ANALYSIS_PER_ACCOUNT,
  };
  return createAccountSpeech({
    mongoUrl: config.MONGO_URL,
    mongoDb: config.SPEECH_MONGO_DB,
    publicUrl: config.PUBLIC_URL,
    plansJson: config.SPEECH_PLANS,
    voiceAnalysis,
    premade: premadeVoicesForStore(voices, config.PUBLIC_URL),
    logger: deps.logger,
  });
}

/**
 * The speech synthesis edge of the gateway: text-to-speech over HTTP and WebSocket, models, voice
 * previews, and, on the speech database (`MONGO_URL`), the account's voices, history and user
 * data. The gateway mounts `router` at `/v1` after its authentication and rate-limit middleware
 * (which set `req.identity`), and hands WebSocket upgrades to `handleUpgrade` (WebSocket requests
 * authenticate inside the protocol, see docs/speech.md).
 */
export async function createSpeechEdge(deps: SpeechEdgeDeps): Promise<SpeechEdge> {
  const { config } = deps;
  // The voices directory's catalogue, as the workers read it (a bad catalogue file stops the boot here).
  const voices = loadVoiceCatalogue(config.PIPER_VOICES_DIR);
  for (const skipped of voices.skipped) deps.logger.error({ ...skipped }, 'Piper voice skipped');
  const account = await accountFeatures(deps, voices);
  const queueConnection = deps.redis.duplicate({ maxRetriesPerRequest: null });
  queueConnection.on('error', () => undefined); // surfaced by the commands that fail
  const queue = new Queue<SynthesisJobData>(config.SYNTHESIS_QUEUE, { connection: queueConnection });
  queue.on('error', (err) => deps.logger.warn({ err: err.message }, 'synthesis queue error'));
  const pool = createBlockingPool(deps.redis);
  const settings = {
    frameTimeoutMs: config.SPEECH_FRAME_TIMEOUT_MS,
    queueWaitMs: config.SPEECH_QUEUE_WAIT_MS,
    maxTextChars: config.SPEECH_MAX_TEXT_CHARS,
    wsIdleTimeoutMs: config.SPEECH_WS_IDLE_TIMEOUT_MS,
    wsAuthTimeoutMs: config.SPEECH_WS_AUTH_TIMEOUT_MS,
    writeStallTimeoutMs: config.SPEECH_WRITE_STALL_TIMEOUT_MS,
    keyPrefix: config.SPEECH_KEY_PREFIX,
    keep: {
      completed: config.SYNTHESIS_KEEP_COMPLETED_JOBS,
      failed: config.SYNTHESIS_KEEP_FAILED_JOBS,
    },
  };
  const runner = createJobRunner({
    queue,
    pool,
    redis: deps.redis,
    logger: deps.logger,
    keyPrefix: settings.keyPrefix,
    frameTimeoutMs: settings.frameTimeoutMs,
    queueWaitMs: settings.queueWaitMs,
    keep: settings.keep,
  });
  // Cloned voices, character reservations and the gateway's history records from the speech database;
  // a voice no account has is then the catalogue's (an operator's voices with the premade ones).
  const hooks: SpeechHooks = withCatalogueVoices({ ...account?.hooks, ...deps.hooks }, voices);
  const catalogue = voices.models;

  const router = Router();
  if (deps.apiKeys) router.use(apiKeysRoutes({ ...deps.apiKeys, logger: deps.logger }));
  // Bounded body: 5 000 characters of text are < 30 kB even in 4-byte UTF-8 plus JSON overhead.
  router.use('/text-to-speech', express.json({ limit: '64kb', type: () => true }));
  router.use(modelsRoutes(catalogue, deps.logger));
  const tts = {
    runner,
    hooks,
    catalogue,
    maxTextChars: settings.maxTextChars,
    writeStallTimeoutMs: settings.writeStallTimeoutMs,
    logger: deps.logger,
  };
  router.use(ttsRoutes(tts));
  router.use(
    previewRoutes({
      runner,
      catalogue,
      voices,
      redis: deps.redis,
      keyPrefix: settings.keyPrefix,
      logger: deps.logger,
    }),
  );
  router.use('/text-to-speech', speechErrorHandler(deps.logger));
  if (account) router.use(account.router);

  const streamInput = createStreamInput(
    {
      runner,
      hooks,
      catalogue,
      logger: deps.logger,
      authenticateApiKey: deps.authenticateApiKey,
      limits: deps.limits,
      ...(deps.logins ? { logins: deps.logins } : {}),
      ...(deps.connections ? { connections: deps.connections } : {}),
      messageRate: {
        perSecond: config.SPEECH_WS_MESSAGES_PER_SECOND,
        burst: config.SPEECH_WS_MESSAGE_BURST,
      },
      maxTextChars: settings.maxTextChars,
      idleTimeoutMs: settings.wsIdleTimeoutMs,
      authTimeoutMs: settings.wsAuthTimeoutMs,
      writeStallTimeoutMs: settings.writeStallTimeoutMs,
    },
    [STREAM_INPUT_ROUTE, MULTI_STREAM_INPUT_ROUTE],
  );

  return {
    router,
    routerV2: account?.routerV2 ?? Router(),
    routerOpenAi: openAiRoutes(tts),
    handleUpgrade: (req, socket, head) => streamInput.handleUpgrade(req, socket, head),
    openSessions: () => streamInput.openSessions(),
    queue,
    store: account?.store ?? null,
    checks: account ? { mongo: () => account.ready() } : {},
    async stopIntake() {
      await streamInput.close();
      await runner.close();
      await Promise.allSettled([queue.close(), pool.close()]);
      queueConnection.disconnect();
    },
    async close() {
      await account?.close();
    },
  };
}

export { premadePreviewUrl };

/**
 * The premade catalogue as the speech database's store takes it (`createAccountSpeech({ premade })`), with each
 * voice's `preview_url` pointing at the preview this edge serves.
 */
function premadeVoicesForStore(voices: VoiceCatalogue, publicUrl: string) {
  return premadeFromCatalogue(voices.voices, (voiceId) => premadePreviewUrl(publicUrl, voiceId));
}
