import type { IncomingHttpHeaders } from 'node:http';
import { pronunciationLocators, type PronunciationLocators } from '@platform/contracts';
import { SpeechError } from '@platform/errors';
import type { Identity } from '@platform/identity';
import type { Logger } from '@platform/logger';
import { shortenFirstPiece, type Model } from '@platform/speech-engine';
import type { SpeechHooks } from '@platform/speech-jobs';
import { messageBucket, type MessageRate } from '../../limits/message-rate';
import { SERVICE_RESTART } from '../../routing/shutdown-drain';
import { callerOf, type SpeechCaller } from '../caller';
import { readSpeechInput } from '../speech-input';
import type { JobRunner } from '../tts/job-runner';
import { checkFormatPlan } from '../tts/parse-request';
import { pipelineError, prepareJob, pronunciationRules, type PreparedJob } from '../tts/synthesis';
import { readOpenRequest, upgradeKey, type OpenRequest } from './open-request';
import { CLOSE, closeCodeFor, errorMessage } from './protocol';
import type { SessionTransport } from './transport';

/** Messages per second a client may send, and at once, unless configured (`SPEECH_WS_MESSAGES_PER_SECOND`, `SPEECH_WS_MESSAGE_BURST`); beyond them the socket closes. */
export const MESSAGES_PER_SECOND = 50;
export const MESSAGE_BURST = 100;

/** Releases a plan concurrency slot. */
export type ReleaseSlot = () => Promise<void> | void;

/**
 * What a session asks of the gateway about keys. The WebSocket adapter charges refusals to the
 * upgrade's client address (docs/gateway.md, "Requests refused for their credentials").
 */
export interface SessionAuth {
  /** The key's identity; null when it is not accepted. A live key is a hit in the replica's key cache. */
  lookup(key: string): Promise<Identity | null>;
  /** The refusal (429) when the client's address has spent its budget of refused logins; null otherwise. */
  spent(key: string): Promise<SpeechError | null>;
  /** A refusal for the key (none, not accepted) charged to the client's address: `error`, or 429 once the budget is spent. */
  refuse(error: SpeechError): Promise<SpeechError>;
  /** The plan's concurrency slot for the session; null when all are taken. */
  acquire(caller: SpeechCaller): Promise<ReleaseSlot | null>;
}

export interface SessionDeps {
  runner: JobRunner;
  hooks: SpeechHooks;
  catalogue: readonly Model[];
  logger: Logger;
  auth: SessionAuth;
  maxTextChars: number;
  idleTimeoutMs: number;
  /** A connection still without an accepted API key this long after it opened is closed 1008. */
  authTimeoutMs: number;
  /** A client that keeps more than `MAX_BUFFERED_BYTES` waiting for this long is given up on. */
  writeStallTimeoutMs: number;
  /** The socket's inbound message budget (default 50 per second, 100 at once). */
  messageRate?: MessageRate;
}

/** What the connection asked for, once its URL was read. */
export interface Opened extends OpenRequest {
  idleMs: number;
}

/** One segment's text for `segmentJob`. */
export interface Segment {
  text: string;
  pieces: string[];
  /** The voice settings its stream was opened with (checked). */
  settings: unknown;
  /** The first segment of its stream: its first piece is cut short, as a whole request's is. */
  first: boolean;
  /** The dictionaries its stream was opened with (`readLocators`). */
  pronunciationLocators?: PronunciationLocators | undefined;
}

/**
 * The connection of a text-in, audio-out WebSocket (`stream-input`, `multi-stream-input`), free of
 * the socket it runs on: opening (the URL read, a header key checked; messages wait), the key (from
 * the upgrade or a message) and the plan's concurrency slot, the inbound message budget, the
 * inactivity timeout, and how it ends. Each protocol (session.ts, multi-stream-input/) handles the
 * messages; failures are sent as a speech error and close the connection (`closeCodeFor`).
 */
export abstract class TextSocketSession {
  protected opened: Opened | null = null;
  protected caller: SpeechCaller | null = null;
  /** The accepted key, checked again before every segment (a key revoked meanwhile stops the stream). */
  private apiKey: string | null = null;
  private release: ReleaseSlot | null = null;
  protected closing = false;
  /** Aborted when the session ends: no further segment starts and the ones in hand are cancelled. */
  protected readonly abort = new AbortController();
  private idleTimer: NodeJS.Timeout | null = null;
  /** Runs until the session has a caller; then cleared. */
  private authTimer: NodeJS.Timeout | null;
  private readonly messageRate: MessageRate;
  private readonly takeMessage: () => boolean;
  /** Messages that arrive while the connection opens, handled in order once it has. */
  private early: (string | null)[] | null = [];
  private chain = Promise.resolve();

  constructor(
    protected readonly deps: SessionDeps,
    protected readonly transport: SessionTransport,
  ) {
    this.messageRate = deps.messageRate ?? { perSecond: MESSAGES_PER_SECOND, burst: MESSAGE_BURST };
    this.takeMessage = messageBucket(this.messageRate);
    // The key may come in the first message (the hosted API's protocol), but only this soon: an
    // anonymous connection is not held open for the idle timeout (up to 180 s).
    this.authTimer = setTimeout(() => {
      if (!this.caller)
        this.fail(
          new SpeechError(401, 'unauthorized', `no API key within ${deps.authTimeoutMs / 1000} s of connecting`),
        );
    }, deps.authTimeoutMs);
    this.authTimer.unref();
  }

  /** Handles one client message (`raw` null: binary), in order, once the connection is open. */
  protected abstract handle(raw: string | null): Promise<void>;
  /** True while audio is still on its way: the client is waiting, not idle. */
  protected abstract get busy(): boolean;
  /** The session's streams are over (`shutdown`: the gateway's grace ended them): their listeners are recorded. */
  protected abstract endStreams(shutdown: boolean): void;
  /** Sets up the protocol's streams for the request the URL made. */
  protected abstract openStreams(opened: Opened): void;

  /** Reads the connection's URL and upgrade headers and checks a key sent with the upgrade, then takes the waiting messages. */
  async open(query: URLSearchParams, segment: string, headers: IncomingHttpHeaders = {}): Promise<void> {
    try {
      const request = readOpenRequest(query, segment, this.deps.catalogue, headers, this.deps.maxTextChars);
      this.opened = { ...request, idleMs: request.idleMs ?? this.deps.idleTimeoutMs };
      this.openStreams(this.opened);
      const key = upgradeKey(query, headers['xi-api-key']);
      if (key) await this.authenticate(key);
    } catch (err) {
      this.fail(err);
      return;
    }
    this.armIdle();
    const early = this.early ?? [];
    this.early = null;
    for (const raw of early) this.receive(raw);
  }

  /** A message from the client; `raw` is null for a binary one. Handled one at a time, in order. */
  receive(raw: string | null): void {
    if (this.closing) return;
    // Counted as it arrives, before it waits for the messages ahead of it: a flood is closed at once
    // rather than queued (also while the connection is still opening).
    if (!this.takeMessage()) {
      this.fail(
        new SpeechError(
          429,
          'too_many_requests',
          `more than ${this.messageRate.perSecond} messages per second (at most ${this.messageRate.burst} at once)`,
        ),
      );
      return;
    }
    if (this.early) {
      this.early.push(raw);
      return;
    }
    this.chain = this.chain
      .then(() => {
        if (this.closing) return;
        this.armIdle();
        return this.handle(raw);
      })
      .catch((err: unknown) => this.fail(err));
  }

  /** The connection closed (either side): the jobs in hand are cancelled and the plan's slot released. */
  closed(): void {
    this.closing = true;
    this.abort.abort();
    if (this.opened) this.endStreams(false);
    if (this.idleTimer) clearTimeout(this.idleTimer);
    if (this.authTimer) clearTimeout(this.authTimer);
    void Promise.resolve(this.release?.()).catch(() => undefined);
  }

  /** The gateway is shutting down and its grace is over: the jobs in hand are cancelled, the client told to reconnect. */
  shutdown(): void {
    if (this.opened) this.endStreams(true);
    this.abort.abort();
    this.transport.close(CLOSE.serviceRestart, SERVICE_RESTART.reason);
  }

  /** Tells the client what went wrong and closes the connection. */
  fail(err: unknown): void {
    const error = pipelineError(err);
    if (error.httpStatus >= 500) this.deps.logger.warn({ err }, 'speech WebSocket failed');
    this.closing = true;
    if (!this.transport.open) return;
    this.transport.sendText(errorMessage(error.status, error.message));
    this.transport.close(closeCodeFor(error), error.message.slice(0, 120));
  }

  /** The caller, authenticated by the upgrade or now by `apiKey` (a message's `xi_api_key`); refused when neither. */
  protected async requireCaller(apiKey: string | undefined): Promise<SpeechCaller> {
    if (!this.caller) {
      if (!apiKey)
        throw await this.deps.auth.refuse(
          new SpeechError(
            401,
            'unauthorized',
            'send the API key as xi_api_key in the first message or the xi-api-key header',
          ),
        );
      await this.authenticate(apiKey);
    }
    // A format the plan does not include is refused before any text is taken (each segment checks again).
    checkFormatPlan(this.opened!.request.format, this.caller!.plan);
    return this.caller!;
  }

  private async authenticate(key: string): Promise<void> {
    const { auth } = this.deps;
    const spent = await auth.spent(key);
    if (spent) throw spent;
    const identity = key.length > 512 ? null : await auth.lookup(key);
    if (!identity) throw await auth.refuse(new SpeechError(401, 'invalid_api_key', 'invalid API key'));
    const caller = callerOf(identity, 'speech:write');
    this.caller = caller;
    this.apiKey = key;
    if (this.authTimer) clearTimeout(this.authTimer);
    this.authTimer = null;
    const release = await auth.acquire(caller);
    if (!release)
      throw new SpeechError(
        429,
        'too_many_requests',
        `concurrent requests limit: the ${caller.plan ?? 'free'} plan's requests at once are all in use (an open speech WebSocket holds one); retry after 1 s, or when one of yours finishes`,
        { retryAfterSeconds: 1 },
      );
    if (this.closing) {
      await release();
      return;
    }
    this.release = release;
  }

  /**
   * One segment's job. The key is checked again first: revoking it, or a change of the account's
   * rights (auth then announces the account's keys as revoked), takes effect at the open socket's
   * next generation, as it does at the next HTTP request. A live key is a hit in this replica's key
   * cache (no call to auth).
   */
  protected async segmentJob(voiceId: string, segment: Segment): Promise<PreparedJob> {
    const opened = this.opened!;
    const identity = await this.deps.auth.lookup(this.apiKey!);
    if (!identity) throw new SpeechError(401, 'invalid_api_key', 'the API key was revoked or its account changed');
    this.caller = callerOf(identity, 'speech:write');
    const request = {
      ...opened.request,
      text: segment.text,
      rawSettings: segment.settings,
      ...(segment.pronunciationLocators ? { pronunciationLocators: segment.pronunciationLocators } : {}),
    };
    const planned = segment.first ? shortenFirstPiece(segment.pieces) : segment.pieces;
    const job = await prepareJob(this.deps, this.caller, voiceId, request, 'websocket', planned);
    // Timed synthesis costs the worker about 45 ms a piece: only JSON messages carry an alignment
    // (binary frames have none), so only their sessions ask for it.
    return opened.json && opened.alignment ? { ...job, input: { ...job.input, timestamps: true } } : job;
  }

  /**
   * A stream's `pronunciation_dictionary_locators`, checked and resolved once when it opens, so that a
   * malformed list or an unknown or foreign dictionary is refused before any text is taken (each
   * segment's job resolves them again, as a request's does).
   */
  protected async readLocators(raw: unknown): Promise<PronunciationLocators | undefined> {
    const locators = readSpeechInput(pronunciationLocators, raw) ?? undefined;
    if (!locators?.length) return undefined;
    await pronunciationRules(this.deps.hooks, this.caller!.sub, locators);
    return locators;
  }

  private armIdle(): void {
    const opened = this.opened!;
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => {
      if (this.busy) {
        this.armIdle(); // audio still flowing: the client is waiting, not idle
        return;
      }
      this.fail(new SpeechError(408, 'bad_request', `no message within ${opened.idleMs / 1000} s`));
    }, opened.idleMs);
    this.idleTimer.unref();
  }
}
