import type { Response } from 'express';
import type { Logger } from '@platform/logger';
import { completeAudioFile, type OutputFormat } from '@platform/speech-engine';
import { drained, finished, sendBody, type DrainOutcome } from './backpressure';
import type { AudioSink } from './relay-job';
import type { PreparedJob } from './synthesis';

export interface HttpSinkOptions {
  res: Response;
  job: PreparedJob;
  /** The response's format: its Content-Type, and how a whole file is completed (a WAV header's sizes). */
  format: OutputFormat;
  /** Aborts when the client goes away before the response is complete. */
  signal: AbortSignal;
  /** A client that takes no bytes for this long is given up on (`SPEECH_WRITE_STALL_TIMEOUT_MS`). */
  writeStallTimeoutMs: number;
  logger: Logger;
}

/** The audio was generated but its client did not take all of it: the response is cut off. */
export function notDelivered(
  o: Pick<HttpSinkOptions, 'res' | 'job' | 'writeStallTimeoutMs' | 'logger'>,
  outcome: DrainOutcome,
): false {
  if (outcome === 'stalled')
    o.logger.info(
      { jobId: o.job.jobId, stallMs: o.writeStallTimeoutMs },
      'client stopped reading; giving up on its response',
    );
  if (!o.res.destroyed) o.res.destroy();
  return false;
}

/**
 * The whole file with its `Content-Length`, once all of it is made. Charged once the client has
 * been handed every byte: a client that stops reading (or leaves) mid-file did not get the audio,
 * although all of it was generated.
 */
export function wholeFileSink(o: HttpSinkOptions): AudioSink {
  const parts: Buffer[] = [];
  return {
    frame(frame) {
      if (frame.type === 'audio') parts.push(frame.data);
      return true;
    },
    async finish() {
      const audio = completeAudioFile(o.format, Buffer.concat(parts));
      o.res.status(200).set({
        'Content-Type': o.format.contentType,
        'Content-Length': String(audio.length),
        'history-item-id': o.job.jobId,
        'request-id': o.job.jobId,
      });
      const outcome = await sendBody(o.res, audio, o.signal, o.writeStallTimeoutMs);
      return outcome === 'drained' || notDelivered(o, outcome);
    },
  };
}

/**
 * How a chunked response wraps its audio: its media type, each piece of audio as written, and what
 * is written after the last (OpenAI's Server-Sent Events, speech/openai). Absent: the bare audio.
 */
export interface ChunkFraming {
  contentType: string;
  piece(audio: Buffer): Buffer | string;
  end(): string;
}

/**
 * Chunked transfer encoding (no `Content-Length`), one chunk per frame as it arrives, at the
 * client's pace: a client that takes nothing for the stall timeout cancels its job, as a
 * disconnect does.
 */
export const chunkedSink = (o: HttpSinkOptions): AudioSink => framedChunkSink(o);

/** `chunkedSink` with each piece of audio wrapped as `framing` says (absent: the bare audio). */
export function framedChunkSink(o: HttpSinkOptions, framing?: ChunkFraming): AudioSink {
  const contentType = framing?.contentType ?? o.format.contentType;
  return {
    async frame(frame) {
      if (frame.type !== 'audio' || frame.data.length === 0) return true;
      if (!o.res.headersSent)
        o.res.writeHead(200, {
          'Content-Type': contentType,
          'history-item-id': o.job.jobId,
          'request-id': o.job.jobId,
        });
      const chunk = framing ? framing.piece(frame.data) : frame.data;
      if (o.res.write(chunk) || (await drained(o.res, o.signal, o.writeStallTimeoutMs)) !== 'stalled') return true;
      o.logger.info(
        { jobId: o.job.jobId, stallMs: o.writeStallTimeoutMs },
        'stream client stopped reading; cancelling its job',
      );
      return false;
    },
    async finish() {
      if (!o.res.headersSent) o.res.writeHead(200, { 'Content-Type': contentType, 'history-item-id': o.job.jobId });
      o.res.end(framing?.end());
      const outcome = await finished(o.res, o.signal, o.writeStallTimeoutMs);
      return outcome === 'drained' || notDelivered(o, outcome);
    },
  };
}
