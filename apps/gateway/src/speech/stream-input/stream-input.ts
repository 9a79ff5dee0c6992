import type http from 'node:http';
import type stream from 'node:stream';
import { WebSocketServer, type RawData, type WebSocket } from 'ws';
import { SpeechError } from '@platform/errors';
import type { Identity } from '@platform/identity';
import type { Logger } from '@platform/logger';
import { resolveModel, takeSentences, type Model } from '@platform/speech-engine';
import type { SpeechHooks } from '@platform/speech-jobs';
import { addressSpentMessage } from '../../limits/failed-credentials';
import type { RateDecision } from '../../limits/rate-limiter';
import type { WebSocketLogins } from '../../limits/websocket-logins';
import { drained } from '../tts/backpressure';
import type { JobRunner } from '../tts/job-runner';
import { checkFormat, checkLanguage, checkSettings, checkVoiceId, type TtsRequest } from '../tts/parse-request';
import { resolveVoice } from '../tts/resolve-voice';
import { frameError, pipelineError, prepareJob, requireSpeaker } from '../tts/synthesis';
import { CLOSE, errorMessage, estimateAlignment, parseClientMessage, type ClientMessage } from './protocol';

export interface StreamInputDeps {
  runner: JobRunner;
  hooks: SpeechHooks;
  catalogue: readonly Model[];
  logger: Logger;
  authenticateApiKey(key: string): Promise<Identity | null>;
  limits: { acquire(identity: Identity): Promise<(() => Promise<void> | void) | null> };
  /**
   * The gateway's per-IP budget for logins refused for their key (no key, a key not accepted): each
   * refusal is charged; once spent, a key is refused 429 without asking auth. Absent: not charged.
   */
  logins?: WebSocketLogins;
  maxTextChars: number;
  idleTimeoutMs: number;
  /** A connection still without an accepted API key this long after it opened is closed 1008. */
  authTimeoutMs: number;
  /** A client that keeps more than `MAX_BUFFERED_BYTES` waiting for this long is given up on. */
  writeStallTimeoutMs: number;
}

const PATH = /^\/v1\/text-to-speech\/([^/]{1,64})\/stream-input\/?$/;
/** Largest single message; text beyond this per message is a client bug or an attack. */
const MAX_MESSAGE_BYTES = 64 * 1024;
/** Messages per second a client may send (burst of twice that); beyond it the socket closes. */
const MESSAGES_PER_SECOND = 50;
/** Text waiting for synthesis; a client far ahead of the audio is told to slow down. */
const MAX_PENDING_CHARS = 20_000;
/**
 * Audio waiting for the client (`ws.bufferedAmount`) above which no more is sent until the socket
 * drains: the bound on what a slow or stalled reader makes the gateway hold (plus one message).
 */
const MAX_BUFFERED_BYTES = 256 * 1024;

interface Session {
  ws: WebSocket;
  /** The upgrade request: its client IP pays for refused keys. */
  upgrade: http.IncomingMessage;
  /** The upgraded connection under `ws`: its 'drain' says the client took what was buffered. */
  socket: stream.Duplex;
  identity: (Identity & { sub: string }) | null;
  /** The accepted key, checked again before every segment (a key revoked meanwhile stops the stream). */
  apiKey: string | null;
  release: (() => Promise<void> | void) | null;
  model: Model;
  voiceId: string | null;
  request: Omit<TtsRequest, 'text' | 'rawSettings'>;
  settings: unknown;
  json: boolean;
  alignment: boolean;
  started: boolean;
  buffer: string;
  pending: string[][];
  pendingChars: number;
  relaying: boolean;
  closing: boolean;
  abort: AbortController;
  idleTimer: NodeJS.Timeout | null;
  /** Runs until the session has an identity; then cleared. */
  authTimer: NodeJS.Timeout | null;
  idleMs: number;
  tokens: number;
  lastRefill: number;
  audioMs: number;
}

/**
 * `wss://…/v1/text-to-speech/{voice_id | model_id}/stream-input`: text in, audio out (seed 000's
 * protocol plus the hosted API's JSON messages on request). See docs/speech.md for the protocol.
 */
export function createStreamInput(deps: StreamInputDeps) {
  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_MESSAGE_BYTES });
  const sessions = new Set<Session>();

  function handleUpgrade(req: http.IncomingMessage, socket: stream.Duplex, head: Buffer): boolean {
    let url: URL;
    try {
      url = new URL(req.url ?? '/', 'http://gateway');
    } catch {
      return false;
    }
    const match = PATH.exec(url.pathname);
    if (!match?.[1]) return false;
    let segment: string;
    try {
      segment = decodeURIComponent(match[1]);
    } catch {
      // Malformed percent-encoding: answer the upgrade request plainly instead of throwing.
      socket.end('HTTP/1.1 400 Bad Request\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n{"detail":{"status":"bad_request","message":"malformed path"}}');
      return true;
    }
    wss.handleUpgrade(req, socket, head, (ws) => {
      void open(ws, socket, req, url, segment).catch((err: unknown) => {
        deps.logger.error({ err }, 'stream-input session failed');
        fail(null, ws, new SpeechError(500, 'error', 'internal error'), CLOSE.internal);
      });
    });
    return true;
  }

  function fail(session: Session | null, ws: WebSocket, err: SpeechError, code: number): void {
    if (session) session.closing = true;
    if (ws.readyState === ws.OPEN) {
      ws.send(errorMessage(err.status, err.message));
      ws.close(code, err.message.slice(0, 120));
    }
  }

  async function open(ws: WebSocket, socket: stream.Duplex, req: http.IncomingMessage, url: URL, segment: string): Promise<void> {
    const q = url.searchParams;
    const bySegment = resolveModel(segment, deps.catalogue);
    const session: Session = {
      ws,
      upgrade: req,
      socket,
      identity: null,
      apiKey: null,
      release: null,
      model: bySegment ?? resolveModel(undefined)!,
      voiceId: bySegment ? q.get('voice_id') : segment,
      request: { model: resolveModel(undefined)!, format: checkFormatSafe(q.get('output_format')), language: null },
      settings: undefined,
      json: q.get('message_format') === 'json',
      alignment: q.get('sync_alignment') === 'true' || q.get('message_format') === 'json',
      started: false,
      buffer: '',
      pending: [],
      pendingChars: 0,
      relaying: false,
      closing: false,
      abort: new AbortController(),
      idleTimer: null,
      authTimer: null,
      idleMs: deps.idleTimeoutMs,
      tokens: MESSAGES_PER_SECOND * 2,
      lastRefill: Date.now(),
      audioMs: 0,
    };
    sessions.add(session);
    ws.on('close', () => {
      sessions.delete(session);
      session.closing = true;
      session.abort.abort(); // cancels the job being synthesised, if any
      if (session.idleTimer) clearTimeout(session.idleTimer);
      if (session.authTimer) clearTimeout(session.authTimer);
      void Promise.resolve(session.release?.()).catch(() => undefined);
    });
    ws.on('error', () => undefined);
    // The key may come in the first message (the hosted API's protocol), but only this soon: an
    // anonymous connection is not held open for the idle timeout (up to 180 s).
    session.authTimer = setTimeout(() => {
      if (session.identity) return;
      fail(session, ws, new SpeechError(401, 'unauthorized', `no API key within ${deps.authTimeoutMs / 1000} s of connecting`), CLOSE.policy);
    }, deps.authTimeoutMs);
    session.authTimer.unref();

    // Queue messages that arrive while the connection is being set up, then handle them in order.
    const early: RawData[] = [];
    let ready = false;
    let chain = Promise.resolve();
    ws.on('message', (data: RawData, isBinary: boolean) => {
      if (!ready) {
        early.push(data);
        return;
      }
      chain = chain.then(() => onMessage(session, data, isBinary)).catch((err: unknown) => onFailure(session, err));
    });

    try {
      // Query options that can be checked before anything else.
      session.request.format = checkFormat(q.get('output_format') ?? undefined);
      session.request.language = checkLanguage(q.get('language_code') ?? undefined);
      if (bySegment === null) {
        checkVoiceId(segment);
        session.model = checkModelQuery(q.get('model_id'));
      }
      session.request.model = session.model;
      const timeout = Number(q.get('inactivity_timeout'));
      if (q.has('inactivity_timeout')) {
        if (!Number.isInteger(timeout) || timeout < 1 || timeout > 180) throw new SpeechError(400, 'bad_request', 'inactivity_timeout must be 1–180 seconds');
        session.idleMs = timeout * 1000;
      }
      const headerKey = req.headers['xi-api-key'];
      const key = typeof headerKey === 'string' ? headerKey : q.get('xi_api_key') ?? q.get('authorization');
      if (key) await authenticate(session, key);
    } catch (err) {
      onFailure(session, err);
      return;
    }
    armIdle(session);
    ready = true;
    for (const data of early) chain = chain.then(() => onMessage(session, data, false)).catch((err: unknown) => onFailure(session, err));
  }

  function checkFormatSafe(value: string | null) {
    try {
      return checkFormat(value ?? undefined);
    } catch {
      return checkFormat(undefined);
    }
  }

  function addressSpent(decision: RateDecision): SpeechError {
    return new SpeechError(429, 'too_many_requests', addressSpentMessage(decision));
  }

  function checkModelQuery(value: string | null): Model {
    const model = resolveModel(value ?? undefined, deps.catalogue);
    if (!model) throw new SpeechError(400, 'model_not_found', `model ${JSON.stringify(value)} does not exist; see GET /v1/models`);
    return model;
  }

  /** A refusal for the key (none, not accepted): charged to the client IP; a 429 once its budget is spent. */
  async function refuseKey(session: Session, error: SpeechError): Promise<SpeechError> {
    const over = await deps.logins?.chargeRefusal(session.upgrade);
    return over ? addressSpent(over) : error;
  }

  async function authenticate(session: Session, key: string): Promise<void> {
    const spent = await deps.logins?.refuseUnchecked(session.upgrade, { kind: 'api_key', key });
    if (spent) throw addressSpent(spent);
    const identity = key.length > 512 ? null : await deps.authenticateApiKey(key);
    if (!identity) throw await refuseKey(session, new SpeechError(401, 'invalid_api_key', 'invalid API key'));
    session.identity = requireSpeaker(identity);
    session.apiKey = key;
    if (session.authTimer) clearTimeout(session.authTimer);
    session.authTimer = null;
    const release = await deps.limits.acquire(identity);
    if (!release) throw new SpeechError(429, 'too_many_requests', 'too many concurrent requests for your plan');
    if (session.closing) {
      await release();
      return;
    }
    session.release = release;
  }

  function armIdle(session: Session): void {
    if (session.idleTimer) clearTimeout(session.idleTimer);
    session.idleTimer = setTimeout(() => {
      if (session.relaying || session.pending.length > 0) {
        armIdle(session); // audio still flowing: the client is waiting, not idle
        return;
      }
      fail(session, session.ws, new SpeechError(408, 'bad_request', `no message within ${session.idleMs / 1000} s`), CLOSE.policy);
    }, session.idleMs);
    session.idleTimer.unref();
  }

  function takeToken(session: Session): boolean {
    const now = Date.now();
    session.tokens = Math.min(MESSAGES_PER_SECOND * 2, session.tokens + ((now - session.lastRefill) / 1000) * MESSAGES_PER_SECOND);
    session.lastRefill = now;
    if (session.tokens < 1) return false;
    session.tokens -= 1;
    return true;
  }

  function onFailure(session: Session, err: unknown): void {
    const speechError = pipelineError(err);
    const code =
      speechError.status === 'too_many_requests'
        ? CLOSE.tryAgainLater
        : speechError.httpStatus >= 500
          ? CLOSE.internal
          : CLOSE.policy;
    if (speechError.httpStatus >= 500) deps.logger.warn({ err }, 'stream-input failed');
    fail(session, session.ws, speechError, code);
  }

  async function onMessage(session: Session, data: RawData, isBinary: boolean): Promise<void> {
    if (session.closing) return;
    if (!takeToken(session)) throw new SpeechError(429, 'too_many_requests', `more than ${MESSAGES_PER_SECOND} messages per second`);
    armIdle(session);
    const raw = isBinary ? null : Buffer.isBuffer(data) ? data.toString('utf8') : Buffer.concat(data as Buffer[]).toString('utf8');
    const message: ClientMessage | null = raw === null ? null : parseClientMessage(raw);
    if (!session.started) {
      if (!message) throw new SpeechError(400, 'bad_request', 'the first message must be JSON {"text": " ", "voice_settings": {...}, "xi_api_key": "..."}');
      await begin(session, message);
      if (message.text.trim().length > 0) addText(session, message);
      return;
    }
    if (!message) throw new SpeechError(400, 'bad_request', 'messages must be JSON {"text": "...", "flush": false}');
    if (message.text === '') {
      // End of input: synthesise what is left, then finish.
      enqueue(session, takeSentences(session.buffer, true).ready);
      session.buffer = '';
      session.closing = true;
      await drain(session);
      return;
    }
    addText(session, message);
  }

  async function begin(session: Session, first: ClientMessage): Promise<void> {
    if (!session.identity) {
      if (!first.apiKey) throw await refuseKey(session, new SpeechError(401, 'unauthorized', 'send the API key as xi_api_key in the first message or the xi-api-key header'));
      await authenticate(session, first.apiKey);
    }
    if (first.voiceId && session.voiceId === null) session.voiceId = first.voiceId;
    if (!session.voiceId) throw new SpeechError(400, 'bad_request', 'choose a voice: put its id in the path, the voice_id query parameter, or the first message');
    checkVoiceId(session.voiceId);
    // Validate settings now, and the voice, so the client learns of mistakes before sending text.
    checkSettings(first.voiceSettings, {});
    session.settings = first.voiceSettings;
    await resolveVoice(deps.hooks, session.identity!.sub, session.voiceId);
    session.started = true;
  }

  function addText(session: Session, message: ClientMessage): void {
    if ([...message.text].length > deps.maxTextChars) throw new SpeechError(400, 'text_too_long', `a message may carry at most ${deps.maxTextChars} characters`);
    session.buffer += message.text;
    if (session.pendingChars + session.buffer.length > MAX_PENDING_CHARS) {
      throw new SpeechError(429, 'too_many_requests', `more than ${MAX_PENDING_CHARS} characters are waiting for synthesis`);
    }
    const { ready, rest } = takeSentences(session.buffer, message.flush);
    session.buffer = rest;
    enqueue(session, ready);
  }

  function enqueue(session: Session, pieces: string[]): void {
    if (pieces.length === 0) return;
    session.pending.push(pieces);
    session.pendingChars += pieces.reduce((n, p) => n + p.length, 0);
    if (!session.relaying) void relay(session);
  }

  let drains = new WeakMap<Session, () => void>();

  /** Waits until every queued segment has been relayed, then ends the stream. */
  async function drain(session: Session): Promise<void> {
    if (session.relaying || session.pending.length > 0) {
      await new Promise<void>((resolve) => drains.set(session, resolve));
    }
    if (session.ws.readyState === session.ws.OPEN) {
      session.ws.send(JSON.stringify({ isFinal: true }));
      session.ws.close(CLOSE.normal, 'done');
    }
  }

  /** Synthesises queued segments one after another, relaying each one's frames in order. */
  async function relay(session: Session): Promise<void> {
    session.relaying = true;
    try {
      for (let pieces = session.pending.shift(); pieces; pieces = session.pending.shift()) {
        if (session.abort.signal.aborted) return;
        const text = pieces.join(' ');
        session.pendingChars -= pieces.reduce((n, p) => n + p.length, 0);
        await synthesizeSegment(session, text, pieces);
      }
    } catch (err) {
      onFailure(session, err);
    } finally {
      session.relaying = false;
      drains.get(session)?.();
      drains.delete(session);
    }
  }

  /**
   * The key again, before each segment: revoking it, or a change of the account's rights (auth then
   * announces the account's keys as revoked), takes effect at the open socket's next generation, as it
   * does at the next HTTP request. A live key is a hit in this replica's key cache (no call to auth).
   */
  async function recheckKey(session: Session): Promise<void> {
    const identity = session.apiKey ? await deps.authenticateApiKey(session.apiKey) : null;
    if (!identity) throw new SpeechError(401, 'invalid_api_key', 'the API key was revoked or its account changed');
    session.identity = requireSpeaker(identity);
  }

  async function synthesizeSegment(session: Session, text: string, pieces: string[]): Promise<void> {
    await recheckKey(session);
    const request: TtsRequest = { ...session.request, text, rawSettings: session.settings };
    const job = await prepareJob(deps, session.identity!, session.voiceId!, request, 'websocket', pieces);
    let pendingAudio: Buffer[] = [];
    let delivered = false;
    try {
      for await (const frame of deps.runner.run(job.jobId, job.input, { priority: job.priority, signal: session.abort.signal })) {
        const failure = frameError(frame);
        if (failure) throw failure;
        if (session.ws.readyState !== session.ws.OPEN) return;
        if (frame.type === 'audio') {
          if (session.json) pendingAudio.push(frame.data);
          else session.ws.send(frame.data, { binary: true });
        } else if (frame.type === 'piece' && session.json) {
          const durationMs = frame.durationSeconds * 1000;
          const alignment = session.alignment ? estimateAlignment(frame.text, session.audioMs, durationMs) : null;
          sendJsonAudio(session, Buffer.concat(pendingAudio), alignment);
          pendingAudio = [];
          session.audioMs += durationMs;
        } else if (frame.type === 'piece') {
          session.audioMs += frame.durationSeconds * 1000;
        } else if (frame.type === 'end') {
          if (session.json && pendingAudio.length > 0) sendJsonAudio(session, Buffer.concat(pendingAudio), null);
        }
        // Leaving the loop (client stalled or gone) cancels the job; the segment is not charged.
        if (!(await keptUp(session, job.jobId))) return;
        if (frame.type === 'end') delivered = true;
      }
    } finally {
      await job.settle(delivered ? job.characters : 0);
    }
  }

  /**
   * After a send: while more than `MAX_BUFFERED_BYTES` wait for the client, waits for its socket to
   * drain (the same rule as `/stream`'s response). A client that takes nothing for
   * `writeStallTimeoutMs` is told so and the connection closed (1008); its job is cancelled and
   * nothing more is synthesised for it. False when the session cannot go on (stalled or gone).
   */
  async function keptUp(session: Session, jobId: string): Promise<boolean> {
    if (session.ws.readyState !== session.ws.OPEN) return false;
    if (session.ws.bufferedAmount <= MAX_BUFFERED_BYTES) return true;
    const outcome = await drained(session.socket, session.abort.signal, deps.writeStallTimeoutMs);
    if (outcome === 'stalled') {
      deps.logger.info({ jobId, stallMs: deps.writeStallTimeoutMs, buffered: session.ws.bufferedAmount }, 'stream-input client stopped reading; closing');
      session.abort.abort(); // no further segment starts; the one in hand is cancelled as the caller leaves
      fail(session, session.ws, new SpeechError(408, 'bad_request', `the client took no audio for ${deps.writeStallTimeoutMs / 1000} s`), CLOSE.policy);
    }
    return outcome === 'drained' && session.ws.readyState === session.ws.OPEN;
  }

  function sendJsonAudio(session: Session, audio: Buffer, alignment: ReturnType<typeof estimateAlignment> | null): void {
    if (audio.length === 0 && !alignment) return;
    session.ws.send(
      JSON.stringify({
        audio: audio.toString('base64'),
        isFinal: false,
        normalizedAlignment: alignment,
        alignment,
      }),
    );
  }

  return {
    handleUpgrade,
    async close() {
      for (const session of sessions) {
        session.abort.abort();
        session.ws.close(CLOSE.goingAway, 'server shutting down');
      }
      drains = new WeakMap();
      wss.close();
    },
  };
}
