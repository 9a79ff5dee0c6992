import type { AudioMessage } from '@platform/contracts';
import { SpeechError } from '@platform/errors';
import type { Logger } from '@platform/logger';
import type { OutputFormat } from '@platform/speech-engine';
import type { JobRunner } from '../tts/job-runner';
import { relayJob, type AudioSink } from '../tts/relay-job';
import { listenTo, type StreamListening } from '../tts/stream-listening';
import type { PreparedJob } from '../tts/synthesis';
import { messageAlignment, type MessageAlignment } from './message-alignment';
import type { SessionTransport } from './transport';

/**
 * Audio waiting for the client (the transport's `bufferedAmount`) above which no more is sent
 * until it drains: the bound on what a slow or stalled reader makes the gateway hold (plus one
 * message).
 */
export const MAX_BUFFERED_BYTES = 256 * 1024;

interface AudioRelayDeps {
  runner: JobRunner;
  logger: Logger;
  /** A client that keeps more than `MAX_BUFFERED_BYTES` waiting for this long is given up on. */
  writeStallTimeoutMs: number;
}

interface AudioRelayOptions {
  /** The hosted API's JSON messages (base64 audio) instead of binary frames. */
  json: boolean;
  /**
   * Character alignment with each JSON message, from the timing the worker reports on each piece
   * frame (the segments' jobs ask for it: `timestamps`).
   */
  alignment: boolean;
  /**
   * Bytes that every segment's job starts with and the connection's stream needs once (a WAV
   * header, `streamHeaderBytes`): sent with the first segment, dropped from the others.
   */
  headerBytes: number;
  /** The connection's output format: how much audio its bytes are (the listener's silences, `listenTo`). */
  format: OutputFormat;
  /** The session's: aborted when it ends; no further segment starts and the one in hand is cancelled. */
  abort: AbortController;
  /** Prepares one segment's job (the key checked again, the quota reserved). */
  prepare(text: string, pieces: string[]): Promise<PreparedJob>;
  /** Ends the session with this failure. */
  fail(err: unknown): void;
  /** Fields every JSON message carries besides the audio (multi-stream-input's `contextId`). */
  tag?: Readonly<Record<string, string>>;
  /**
   * The socket's turn, when several relays share it (multi-stream-input's contexts): a relay holds
   * it from its first queued segment until its queue is empty, so one job runs per socket and a
   * stream's segments are not interleaved with another's.
   */
  turns?: Turns;
}

/** Runs one holder at a time, in the order they asked. */
export interface Turns {
  exclusive<T>(work: () => Promise<T>): Promise<T>;
}

/** A FIFO lock over a promise chain: `Turns` for one socket. */
export function createTurns(): Turns {
  let tail: Promise<unknown> = Promise.resolve();
  return {
    exclusive<T>(work: () => Promise<T>): Promise<T> {
      const run = tail.then(work, work);
      tail = run.catch(() => undefined);
      return run;
    },
  };
}

const characters = (pieces: string[]) => pieces.reduce((n, p) => n + p.length, 0);

/**
 * The audio of a stream-input session back to its client: segments (sentences ready for
 * synthesis) are synthesised one after another, each one's frames relayed in order
 * (`relayJob`), at the client's pace.
 */
export class AudioRelay {
  private readonly pending: string[][] = [];
  private relaying = false;
  private waiting: (() => void)[] = [];
  /** Characters queued and not yet synthesised. */
  pendingChars = 0;
  /** Segments whose job has started: after the first, the stream's header is not sent again. */
  private segments = 0;
  /** Messages sent with an alignment: each after the first starts with the space before its piece. */
  private alignedMessages = 0;
  /** The whole session is one stream to its listener; JSON messages carry a piece's audio each. */
  private readonly listening: StreamListening;

  constructor(
    private readonly deps: AudioRelayDeps,
    private readonly transport: SessionTransport,
    private readonly options: AudioRelayOptions,
  ) {
    this.listening = listenTo('websocket', options.format, { perPiece: options.json });
  }

  /** True while audio is still on its way: the client is waiting, not idle. */
  get busy(): boolean {
    return this.relaying || this.pending.length > 0;
  }

  enqueue(pieces: string[]): void {
    if (pieces.length === 0) return;
    // Nothing in hand: the listener was waiting for the client's text, not for the gateway.
    if (!this.busy) this.listening.rest();
    this.pending.push(pieces);
    this.pendingChars += characters(pieces);
    if (!this.relaying) void this.run();
  }

  /** The session ended: its listener's stream is recorded (`shutdown`: the gateway's grace ended it). */
  ended(shutdown = false): void {
    if (shutdown && this.busy) this.listening.failed('shutdown');
    this.listening.end();
  }

  /** Resolves once every queued segment has been relayed (or the relay stopped). */
  async idle(): Promise<void> {
    if (this.busy) await new Promise<void>((resolve) => this.waiting.push(resolve));
  }

  private async run(): Promise<void> {
    this.relaying = true;
    const turns = this.options.turns;
    await (turns ? turns.exclusive(() => this.relayPending()) : this.relayPending());
  }

  private async relayPending(): Promise<void> {
    try {
      for (let pieces = this.pending.shift(); pieces; pieces = this.pending.shift()) {
        if (this.options.abort.signal.aborted) return;
        this.pendingChars -= characters(pieces);
        const job = await this.options.prepare(pieces.join(' '), pieces);
        const skip = this.segments++ === 0 ? 0 : this.options.headerBytes;
        await relayJob(this.deps.runner, job, this.options.abort.signal, this.sink(job.jobId, skip), this.listening);
      }
    } catch (err) {
      this.options.fail(err);
    } finally {
      // Stopped (the session ended, or its context was interrupted): what waits is dropped, not charged.
      if (this.options.abort.signal.aborted) {
        this.pending.length = 0;
        this.pendingChars = 0;
      }
      this.relaying = false;
      const waiting = this.waiting;
      this.waiting = [];
      for (const resolve of waiting) resolve();
    }
  }

  /**
   * Binary frames as they come, or JSON messages of each piece's audio (with its alignment, timed
   * from the start of the message's audio); the first `skip` bytes of the job's audio (a header the
   * stream already has) are left out.
   */
  private sink(jobId: string, skip: number): AudioSink {
    let audio: Buffer[] = [];
    /** Where the next piece starts in the job's audio: the worker's times count from there. */
    let pieceStartSeconds = 0;
    const { transport, options } = this;
    return {
      frame: (frame) => {
        // Aborted (the session ended, or its context was interrupted): not one more byte goes out.
        if (!transport.open || options.abort.signal.aborted) return false;
        if (frame.type === 'audio') {
          const data = frame.data.subarray(Math.min(skip, frame.data.length));
          skip -= frame.data.length - data.length;
          if (options.json) audio.push(data);
          else if (data.length > 0) transport.sendBinary(data);
        } else if (frame.type === 'piece') {
          const separated = this.alignedMessages > 0;
          const timed = (a: typeof frame.alignment) =>
            options.alignment && a ? messageAlignment(a, pieceStartSeconds, separated) : null;
          if (options.json) {
            const alignment = timed(frame.alignment);
            if (alignment) this.alignedMessages++;
            this.sendJsonAudio(Buffer.concat(audio), alignment, timed(frame.normalizedAlignment));
          }
          audio = [];
          pieceStartSeconds += frame.durationSeconds;
        } else if (frame.type === 'end' && options.json && audio.length > 0) {
          this.sendJsonAudio(Buffer.concat(audio), null, null);
        }
        // False (client stalled or gone) cancels the job; the segment is not charged.
        return this.keptUp(jobId);
      },
      finish: async () => true,
    };
  }

  /**
   * After a send: while more than `MAX_BUFFERED_BYTES` wait for the client, waits for it to take
   * them (the same rule as `/stream`'s response). A client that takes nothing for
   * `writeStallTimeoutMs` is told so and the connection closed (1008); its job is cancelled and
   * nothing more is synthesised for it. False when the session cannot go on (stalled or gone).
   */
  private async keptUp(jobId: string): Promise<boolean> {
    const { transport, deps } = this;
    if (!transport.open) return false;
    if (transport.bufferedAmount <= MAX_BUFFERED_BYTES) return true;
    const outcome = await transport.drained(this.options.abort.signal, deps.writeStallTimeoutMs);
    if (outcome === 'stalled') {
      deps.logger.info(
        { jobId, stallMs: deps.writeStallTimeoutMs, buffered: transport.bufferedAmount },
        'stream-input client stopped reading; closing',
      );
      this.options.abort.abort(); // no further segment starts; the one in hand is cancelled as the relay leaves
      this.options.fail(
        new SpeechError(408, 'bad_request', `the client took no audio for ${deps.writeStallTimeoutMs / 1000} s`),
      );
    }
    return outcome === 'drained' && transport.open;
  }

  /**
   * One of the hosted API's audio messages. `isFinal` is null in every one of them, as the hosted
   * API sends it: only the message after the client's end of input says `true` (and has no audio).
   */
  private sendJsonAudio(
    audio: Buffer,
    alignment: MessageAlignment | null,
    normalizedAlignment: MessageAlignment | null,
  ): void {
    if (audio.length === 0 && !alignment) return;
    this.transport.sendText(
      JSON.stringify({
        audio: audio.toString('base64'),
        isFinal: null,
        normalizedAlignment,
        alignment,
        ...this.options.tag,
      } satisfies AudioMessage),
    );
  }
}
