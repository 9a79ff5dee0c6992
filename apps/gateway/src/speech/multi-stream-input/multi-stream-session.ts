import { MAX_CONTEXTS, type ContextFinalMessage } from '@platform/contracts';
import { SpeechError } from '@platform/errors';
import { streamHeaderBytes, takeSentences } from '@platform/speech-engine';
import { badRequest } from '../speech-errors';
import { AudioRelay, createTurns, type Turns } from '../stream-input/audio-relay';
import { chunkSchedule, type ChunkSchedule } from '../stream-input/chunk-schedule';
import { CLOSE } from '../stream-input/protocol';
import { MAX_PENDING_CHARS } from '../stream-input/session';
import type { TextSocketRoute } from '../stream-input/stream-input';
import { TextSocketSession, type Opened } from '../stream-input/text-socket-session';
import { checkSettings, checkVoiceId } from '../tts/parse-request';
import { resolveVoice } from '../tts/resolve-voice';
import { readContextMessage, type ContextText } from './context-message';

/** Ids of contexts that ended, remembered so that late messages for them are ignored rather than reopening them. */
const ENDED_IDS_KEPT = 64;

/** One context: its own voice settings, buffer, schedule and audio relay; the socket's turn is shared. */
interface SpeechContext {
  id: string;
  relay: AudioRelay;
  /** Aborted when the context is interrupted or the session ends. */
  abort: AbortController;
  settings: unknown;
  schedule: ChunkSchedule;
  buffer: string;
  /** Segments sent for synthesis: the context's first one has its first piece cut short. */
  segments: number;
  /** The last message was a flush with no text: the context's text is complete, so `close_context` finishes it. */
  complete: boolean;
  /** When a message last named it (`Date.now()`). */
  lastMessageAt: number;
}

/**
 * One `multi-stream-input` connection: several independent contexts (voice-agent frameworks open one
 * per utterance), each with its own voice settings and text, their audio as JSON messages tagged
 * with `contextId`. One job runs at a time per socket, as on `stream-input` (one plan slot): a
 * context keeps the socket's turn while it has text ready. `close_context` after an empty flush
 * finishes the context; at any other moment it interrupts it: its job is cancelled at once, its
 * waiting text dropped, nothing more sent or charged. Either way `{"isFinal": true, "contextId"}`
 * ends it. The protocol and its choices are in docs/speech.md.
 */
export class MultiStreamSession extends TextSocketSession {
  private readonly contexts = new Map<string, SpeechContext>();
  private readonly endedIds = new Set<string>();
  private readonly turns: Turns = createTurns();
  /** The key and the voice were checked (the first message). */
  private ready = false;

  protected openStreams(opened: Opened): void {
    // The frameworks parse every message as JSON and need the alignment for word timing.
    opened.json = true;
    opened.alignment = true;
  }

  protected get busy(): boolean {
    for (const context of this.contexts.values()) if (context.relay.busy) return true;
    return false;
  }

  protected endStreams(shutdown: boolean): void {
    for (const context of this.contexts.values()) {
      context.relay.ended(shutdown);
      context.abort.abort();
    }
  }

  protected async handle(raw: string | null): Promise<void> {
    const message = readContextMessage(raw);
    if (message.kind === 'malformed') throw badRequest(message.reason);
    if (message.kind === 'close_socket') {
      this.closeSocket();
      return;
    }
    if (!this.ready) await this.begin(message.apiKey);
    switch (message.kind) {
      case 'keep_alive':
        if (message.contextId) this.touch(message.contextId);
        return;
      case 'close_context':
        this.closeContext(message.contextId);
        return;
      case 'text':
        await this.addText(message);
        return;
    }
  }

  /** The first message: the key (unless the upgrade had one) and the voice. */
  private async begin(apiKey: string | undefined): Promise<void> {
    const caller = await this.requireCaller(apiKey);
    const opened = this.opened!;
    if (!opened.voiceId) throw badRequest('choose a voice: put its id in the path or the voice_id query parameter');
    checkVoiceId(opened.voiceId);
    await resolveVoice(this.deps.hooks, caller.sub, opened.voiceId);
    this.ready = true;
  }

  private touch(id: string): void {
    const context = this.contexts.get(id);
    if (context) context.lastMessageAt = Date.now();
  }

  private async addText(message: ContextText): Promise<void> {
    if (this.endedIds.has(message.contextId)) return; // late text for a context that ended: nothing to add it to
    const context = this.contexts.get(message.contextId) ?? (await this.openContext(message));
    context.lastMessageAt = Date.now();
    if ([...message.text].length > this.deps.maxTextChars)
      throw new SpeechError(400, 'text_too_long', `a message may carry at most ${this.deps.maxTextChars} characters`);
    context.buffer += message.text;
    if (this.pendingChars() > MAX_PENDING_CHARS)
      throw new SpeechError(
        429,
        'too_many_requests',
        `more than ${MAX_PENDING_CHARS} characters are waiting for synthesis`,
      );
    context.complete = message.flush && message.text === '';
    const { ready, rest } = context.schedule.take(context.buffer, message.flush);
    context.buffer = rest;
    context.relay.enqueue(ready);
  }

  /** A context's first message: its settings checked, its relay made. Beyond `MAX_CONTEXTS` open, contexts idle past the timeout are ended first. */
  private async openContext(message: ContextText): Promise<SpeechContext> {
    if (this.contexts.size >= MAX_CONTEXTS) this.endIdleContexts();
    if (this.contexts.size >= MAX_CONTEXTS)
      throw badRequest(
        `at most ${MAX_CONTEXTS} contexts may be open on one connection; end one with {"context_id": …, "close_context": true}`,
      );
    const settings = message.voiceSettings;
    checkSettings(settings, {});
    const pronunciationLocators = await this.readLocators(message.pronunciationLocators);
    const opened = this.opened!;
    // Aborted with the session too: every way a session ends passes through `endStreams`.
    const abort = new AbortController();
    const context: SpeechContext = {
      id: message.contextId,
      abort,
      settings,
      schedule: chunkSchedule(message.generationConfig),
      buffer: '',
      segments: 0,
      complete: false,
      lastMessageAt: Date.now(),
      relay: new AudioRelay(this.deps, this.transport, {
        json: true,
        alignment: true,
        headerBytes: streamHeaderBytes(opened.request.format),
        format: opened.request.format,
        abort,
        tag: { contextId: message.contextId },
        turns: this.turns,
        prepare: (text, pieces) =>
          this.segmentJob(opened.voiceId!, {
            text,
            pieces,
            settings,
            first: context.segments++ === 0,
            pronunciationLocators,
          }),
        fail: (err) => this.fail(err),
      }),
    };
    this.contexts.set(context.id, context);
    return context;
  }

  /**
   * `close_context`: after an empty flush (the client's end of the utterance) the context's text is
   * synthesised to the end, then it is final; at any other moment it is interrupted. Closed again
   * while it is still being finished, it is interrupted: Pipecat closes every utterance right after
   * its text and closes it again when the user interrupts it. A context that is unknown or has ended
   * is left alone.
   */
  private closeContext(id: string): void {
    const context = this.contexts.get(id);
    if (!context) return;
    if (this.endedIds.has(id)) {
      this.interrupt(context);
      return;
    }
    this.remember(id);
    if (context.complete) {
      context.relay.enqueue(takeSentences(context.buffer, true).ready);
      context.buffer = '';
      void this.finish(context);
      return;
    }
    this.interrupt(context);
  }

  /** The context's job is cancelled at once and what waits is dropped; it is final now. */
  private interrupt(context: SpeechContext): void {
    context.abort.abort();
    context.buffer = '';
    this.retire(context);
  }

  /** Once its audio is all sent; unless it was interrupted meanwhile or the session ended, which ended it already. */
  private async finish(context: SpeechContext): Promise<void> {
    await context.relay.idle();
    if (!context.abort.signal.aborted) this.retire(context);
  }

  /** The context is over: its listener's stream recorded once, then `isFinal` for it. */
  private retire(context: SpeechContext): void {
    this.contexts.delete(context.id);
    context.relay.ended();
    this.sendFinal(context.id);
  }

  /** Contexts no message named for the inactivity timeout and with no audio on its way are ended (the hosted API closes them). */
  private endIdleContexts(): void {
    const before = Date.now() - this.opened!.idleMs;
    for (const context of [...this.contexts.values()]) {
      if (context.lastMessageAt > before || context.relay.busy || this.endedIds.has(context.id)) continue;
      this.remember(context.id);
      this.interrupt(context);
    }
  }

  /** `close_socket`: whatever is still in hand is cancelled (not charged), then close 1000. */
  private closeSocket(): void {
    this.closing = true;
    this.abort.abort();
    this.transport.close(CLOSE.normal, 'close_socket');
  }

  private sendFinal(contextId: string): void {
    if (!this.transport.open) return;
    this.transport.sendText(JSON.stringify({ isFinal: true, contextId } satisfies ContextFinalMessage));
  }

  private remember(id: string): void {
    this.endedIds.add(id);
    if (this.endedIds.size > ENDED_IDS_KEPT) this.endedIds.delete(this.endedIds.values().next().value!);
  }

  private pendingChars(): number {
    let chars = 0;
    for (const context of this.contexts.values()) chars += context.relay.pendingChars + context.buffer.length;
    return chars;
  }
}

/** `wss://…/v1/text-to-speech/{voice_id}/multi-stream-input`: several contexts on one connection. */
export const MULTI_STREAM_INPUT_ROUTE = {
  path: /^\/v1\/text-to-speech\/([^/]{1,64})\/multi-stream-input\/?$/,
  endpoint: 'speech_multi_context',
  session: MultiStreamSession,
} as const satisfies TextSocketRoute;
