import type { FinalMessage, PronunciationLocators } from '@platform/contracts';
import { SpeechError } from '@platform/errors';
import { streamHeaderBytes, takeSentences } from '@platform/speech-engine';
import { badRequest } from '../speech-errors';
import { checkSettings, checkVoiceId } from '../tts/parse-request';
import { resolveVoice } from '../tts/resolve-voice';
import { AudioRelay } from './audio-relay';
import { chunkSchedule, type ChunkSchedule } from './chunk-schedule';
import { CLOSE, readInbound, type ClientMessage } from './protocol';
import type { TextSocketRoute } from './stream-input';
import { TextSocketSession, type Opened } from './text-socket-session';

export {
  MESSAGE_BURST,
  MESSAGES_PER_SECOND,
  type ReleaseSlot,
  type SessionAuth,
  type SessionDeps,
} from './text-socket-session';

/** Text waiting for synthesis; a client far ahead of the audio is told to slow down. */
export const MAX_PENDING_CHARS = 20_000;

/**
 * One `stream-input` connection as a state machine: opening (`TextSocketSession`), waiting for the
 * first message (the key, the voice settings), streaming text in and audio out (`AudioRelay`),
 * ending. The protocol is in docs/speech.md.
 */
export class StreamInputSession extends TextSocketSession {
  private relay: AudioRelay | null = null;
  private started = false;
  private settings: unknown;
  private locators: PronunciationLocators | undefined;
  /** When buffered text is generated: at sentence ends, or the first message's chunk_length_schedule. */
  private schedule: ChunkSchedule | null = null;
  /** Segments sent for synthesis so far: the first one's first piece is cut short. */
  private segments = 0;
  private buffer = '';

  protected openStreams(opened: Opened): void {
    this.relay = new AudioRelay(this.deps, this.transport, {
      json: opened.json,
      alignment: opened.alignment,
      headerBytes: streamHeaderBytes(opened.request.format),
      format: opened.request.format,
      abort: this.abort,
      prepare: (text, pieces) =>
        this.segmentJob(opened.voiceId!, {
          text,
          pieces,
          settings: this.settings,
          first: this.segments++ === 0,
          pronunciationLocators: this.locators,
        }),
      fail: (err) => this.fail(err),
    });
  }

  protected get busy(): boolean {
    return this.relay?.busy ?? false;
  }

  protected endStreams(shutdown: boolean): void {
    this.relay?.ended(shutdown);
  }

  protected async handle(raw: string | null): Promise<void> {
    const inbound = readInbound(raw);
    const opened = this.opened!;
    if (!this.started) {
      if (inbound.kind === 'malformed')
        throw badRequest('the first message must be JSON {"text": " ", "voice_settings": {...}, "xi_api_key": "..."}');
      await this.begin(opened, inbound.message);
      if (inbound.message.text.trim().length > 0) this.addText(inbound.message);
      return;
    }
    switch (inbound.kind) {
      case 'malformed':
        throw badRequest('messages must be JSON {"text": "...", "flush": false}');
      case 'text':
        this.addText(inbound.message);
        return;
      case 'end':
        await this.end();
        return;
    }
  }

  /** The first message: the key (unless the upgrade had one), the voice, the settings. */
  private async begin(opened: Opened, first: ClientMessage): Promise<void> {
    const caller = await this.requireCaller(first.apiKey);
    if (first.voiceId && opened.voiceId === null) opened.voiceId = first.voiceId;
    if (!opened.voiceId)
      throw badRequest('choose a voice: put its id in the path, the voice_id query parameter, or the first message');
    checkVoiceId(opened.voiceId);
    // Validate settings now, and the voice, so the client learns of mistakes before sending text.
    checkSettings(first.voiceSettings, {});
    this.settings = first.voiceSettings;
    this.schedule = chunkSchedule(first.generationConfig);
    await resolveVoice(this.deps.hooks, caller.sub, opened.voiceId);
    this.locators = await this.readLocators(first.pronunciationLocators);
    this.started = true;
  }

  private addText(message: ClientMessage): void {
    const relay = this.relay!;
    if ([...message.text].length > this.deps.maxTextChars)
      throw new SpeechError(400, 'text_too_long', `a message may carry at most ${this.deps.maxTextChars} characters`);
    this.buffer += message.text;
    if (relay.pendingChars + this.buffer.length > MAX_PENDING_CHARS) {
      throw new SpeechError(
        429,
        'too_many_requests',
        `more than ${MAX_PENDING_CHARS} characters are waiting for synthesis`,
      );
    }
    const { ready, rest } = this.schedule!.take(this.buffer, message.flush);
    this.buffer = rest;
    relay.enqueue(ready);
  }

  /** End of input: synthesise what is left, then finish. */
  private async end(): Promise<void> {
    const relay = this.relay!;
    relay.enqueue(takeSentences(this.buffer, true).ready);
    this.buffer = '';
    this.closing = true;
    await relay.idle();
    if (!this.transport.open) return;
    this.transport.sendText(JSON.stringify({ isFinal: true } satisfies FinalMessage));
    this.transport.close(CLOSE.normal, 'done');
  }
}

/** `wss://…/v1/text-to-speech/{voice_id | model_id}/stream-input`: one stream of text in, audio out. */
export const STREAM_INPUT_ROUTE = {
  path: /^\/v1\/text-to-speech\/([^/]{1,64})\/stream-input\/?$/,
  endpoint: 'speech_stream_input',
  session: StreamInputSession,
} as const satisfies TextSocketRoute;
