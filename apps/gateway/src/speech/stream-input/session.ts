import type { FinalMessage } from '@platform/contracts';
import type { IncomingHttpHeaders } from 'node:http';
import { SpeechError } from '@platform/errors';
import type { Identity } from '@platform/identity';
import type { Logger } from '@platform/logger';
import { shortenFirstPiece, streamHeaderBytes, takeSentences, type Model } from '@platform/speech-engine';
import type { SpeechHooks } from '@platform/speech-jobs';
import { messageBucket, type MessageRate } from '../../limits/message-rate';
import { callerOf, type SpeechCaller } from '../caller';
import { badRequest } from '../speech-errors';
import { SERVICE_RESTART } from '../../routing/shutdown-drain';
import type { JobRunner } from '../tts/job-runner';
import { checkFormatPlan, checkSettings, checkVoiceId } from '../tts/parse-request';
import { resolveVoice } from '../tts/resolve-voice';
import { pipelineError, prepareJob } from '../tts/synthesis';
import { AudioRelay } from './audio-relay';
import { chunkSchedule, type ChunkSchedule } from './chunk-schedule';
import { readOpenRequest, upgradeKey, type OpenRequest } from './open-request';
import { CLOSE, closeCodeFor, errorMessage, readInbound, type ClientMessage, type InboundMessage } from './protocol';
import type { SessionTransport } from './transport';

/** Messages per second a client may send, and at once, unless configured (`SPEECH_WS_MESSAGES_PER_SECOND`, `SPEECH_WS_MESSAGE_BURST`); beyond them the socket closes. */
export const MESSAGES_PER_SECOND = 50;
export const MESSAGE_BURST = 100;
/** Text waiting for synthesis; a client far ahead of the audio is told to slow down. */
const MAX_PENDING_CHARS = 20_000;

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
interface Opened extends OpenRequest {
  relay: AudioRelay;
  idleMs: number;
}

/**
 * One `stream-input` connection as a state machine, free of the socket it runs on: opening (the
 * URL read, a header key checked; messages wait), waiting for the first message (the key, the
 * voice settings), streaming text in and audio out (`AudioRelay`), ending. The protocol is in
 * docs/speech.md; failures are sent as a speech error and close the connection (`closeCodeFor`).
 */
export class StreamInputSession {
  private opened: Opened | null = null;
  private caller: SpeechCaller | null = null;
  /** The accepted key, checked again before every segment (a key revoked meanwhile stops the stream). */
  private apiKey: string | null = null;
  private release: ReleaseSlot | null = null;
  private started = false;
  private settings: unknown;
  /** When buffered text is generated: at sentence ends, or the first message's chunk_length_schedule. */
  private schedule: ChunkSchedule | null = null;
  /** Segments sent for synthesis so far: the first one's first piece is cut short. */
  private segments = 0;
  private buffer = '';
  private closing = false;
  private readonly abort = new AbortController();
  private idleTimer: NodeJS.Timeout | null = null;
  /** Runs until the session has a caller; then cleared. */
  private authTimer: NodeJS.Timeout | null;
  private readonly messageRate: MessageRate;
  private readonly takeMessage: () => boolean;
  /** Messages that arrive while the connection opens, handled in order once it has. */
  private early: (string | null)[] | null = [];
  private chain = Promise.resolve();

  constructor(
    private readonly deps: SessionDeps,
    private readonly transport: SessionTransport,
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

  /** Reads the connection's URL and upgrade headers and checks a key sent with the upgrade, then takes the waiting messages. */
  async open(query: URLSearchParams, segment: string, headers: IncomingHttpHeaders = {}): Promise<void> {
    try {
      const request = readOpenRequest(query, segment, this.deps.catalogue, headers, this.deps.maxTextChars);
      const relay = new AudioRelay(this.deps, this.transport, {
        json: request.json,
        alignment: request.alignment,
        headerBytes: streamHeaderBytes(request.request.format),
        format: request.request.format,
        abort: this.abort,
        prepare: (text, pieces) => this.prepareSegment(text, pieces),
        fail: (err) => this.fail(err),
      });
      this.opened = { ...request, relay, idleMs: request.idleMs ?? this.deps.idleTimeoutMs };
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
    this.chain = this.chain.then(() => this.handle(readInbound(raw))).catch((err: unknown) => this.fail(err));
  }

  /** The connection closed (either side): the job in hand is cancelled and the plan's slot released. */
  closed(): void {
    this.closing = true;
    this.abort.abort();
    this.opened?.relay.ended();
    if (this.idleTimer) clearTimeout(this.idleTimer);
    if (this.authTimer) clearTimeout(this.authTimer);
    void Promise.resolve(this.release?.()).catch(() => undefined);
  }

  /** The gateway is shutting down and its grace is over: the job in hand is cancelled, the client told to reconnect. */
  shutdown(): void {
    this.opened?.relay.ended(true);
    this.abort.abort();
    this.transport.close(CLOSE.serviceRestart, SERVICE_RESTART.reason);
  }

  /** Tells the client what went wrong and closes the connection. */
  fail(err: unknown): void {
    const error = pipelineError(err);
    if (error.httpStatus >= 500) this.deps.logger.warn({ err }, 'stream-input failed');
    this.closing = true;
    if (!this.transport.open) return;
    this.transport.sendText(errorMessage(error.status, error.message));
    this.transport.close(closeCodeFor(error), error.message.slice(0, 120));
  }

  private async handle(inbound: InboundMessage): Promise<void> {
    const opened = this.opened!;
    if (this.closing) return;
    this.armIdle();
    if (!this.started) {
      if (inbound.kind === 'malformed')
        throw badRequest('the first message must be JSON {"text": " ", "voice_settings": {...}, "xi_api_key": "..."}');
      await this.begin(opened, inbound.message);
      if (inbound.message.text.trim().length > 0) this.addText(opened, inbound.message);
      return;
    }
    switch (inbound.kind) {
      case 'malformed':
        throw badRequest('messages must be JSON {"text": "...", "flush": false}');
      case 'text':
        this.addText(opened, inbound.message);
        return;
      case 'end':
        await this.end(opened);
        return;
    }
  }

  /** The first message: the key (unless the upgrade had one), the voice, the settings. */
  private async begin(opened: Opened, first: ClientMessage): Promise<void> {
    if (!this.caller) {
      if (!first.apiKey)
        throw await this.deps.auth.refuse(
          new SpeechError(
            401,
            'unauthorized',
            'send the API key as xi_api_key in the first message or the xi-api-key header',
          ),
        );
      await this.authenticate(first.apiKey);
    }
    // A format the plan does not include is refused before any text is taken (each segment checks again).
    checkFormatPlan(opened.request.format, this.caller!.plan);
    if (first.voiceId && opened.voiceId === null) opened.voiceId = first.voiceId;
    if (!opened.voiceId)
      throw badRequest('choose a voice: put its id in the path, the voice_id query parameter, or the first message');
    checkVoiceId(opened.voiceId);
    // Validate settings now, and the voice, so the client learns of mistakes before sending text.
    checkSettings(first.voiceSettings, {});
    this.settings = first.voiceSettings;
    this.schedule = chunkSchedule(first.generationConfig);
    await resolveVoice(this.deps.hooks, this.caller!.sub, opened.voiceId);
    this.started = true;
  }

  private addText(opened: Opened, message: ClientMessage): void {
    if ([...message.text].length > this.deps.maxTextChars)
      throw new SpeechError(400, 'text_too_long', `a message may carry at most ${this.deps.maxTextChars} characters`);
    this.buffer += message.text;
    if (opened.relay.pendingChars + this.buffer.length > MAX_PENDING_CHARS) {
      throw new SpeechError(
        429,
        'too_many_requests',
        `more than ${MAX_PENDING_CHARS} characters are waiting for synthesis`,
      );
    }
    const { ready, rest } = this.schedule!.take(this.buffer, message.flush);
    this.buffer = rest;
    opened.relay.enqueue(ready);
  }

  /** End of input: synthesise what is left, then finish. */
  private async end(opened: Opened): Promise<void> {
    opened.relay.enqueue(takeSentences(this.buffer, true).ready);
    this.buffer = '';
    this.closing = true;
    await opened.relay.idle();
    if (!this.transport.open) return;
    this.transport.sendText(JSON.stringify({ isFinal: true } satisfies FinalMessage));
    this.transport.close(CLOSE.normal, 'done');
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
    if (!release) throw new SpeechError(429, 'too_many_requests', 'too many concurrent requests for your plan');
    if (this.closing) {
      await release();
      return;
    }
    this.release = release;
  }

  /**
   * The key again, before each segment: revoking it, or a change of the account's rights (auth then
   * announces the account's keys as revoked), takes effect at the open socket's next generation, as it
   * does at the next HTTP request. A live key is a hit in this replica's key cache (no call to auth).
   */
  private async prepareSegment(text: string, pieces: string[]) {
    const opened = this.opened!;
    const identity = await this.deps.auth.lookup(this.apiKey!);
    if (!identity) throw new SpeechError(401, 'invalid_api_key', 'the API key was revoked or its account changed');
    this.caller = callerOf(identity, 'speech:write');
    const request = { ...opened.request, text, rawSettings: this.settings };
    // The session's first audio waits for the first piece: it is cut as a whole request's is.
    const planned = this.segments++ === 0 ? shortenFirstPiece(pieces) : pieces;
    const job = await prepareJob(this.deps, this.caller, opened.voiceId!, request, 'websocket', planned);
    // Timed synthesis costs the worker about 45 ms a piece: only JSON messages carry an alignment
    // (binary frames have none), so only their sessions ask for it.
    return opened.json && opened.alignment ? { ...job, input: { ...job.input, timestamps: true } } : job;
  }

  private armIdle(): void {
    const opened = this.opened!;
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => {
      if (opened.relay.busy) {
        this.armIdle(); // audio still flowing: the client is waiting, not idle
        return;
      }
      this.fail(new SpeechError(408, 'bad_request', `no message within ${opened.idleMs / 1000} s`));
    }, opened.idleMs);
    this.idleTimer.unref();
  }
}
