import { appendAlignment, completeAudioFile, emptyAlignment, type CharacterAlignment } from '@platform/speech-engine';
import type { ChunkFrame } from '@platform/speech-jobs';
import { drained, finished, sendBody } from './backpressure';
import { notDelivered, type HttpSinkOptions } from './http-sinks';
import type { AudioSink } from './relay-job';

/**
 * What the timestamp sinks use of a response's options: the audio goes out as base64 in JSON,
 * whatever its format; the format completes a whole file (a WAV header's sizes).
 */
type TimestampSinkOptions = Pick<
  HttpSinkOptions,
  'res' | 'job' | 'format' | 'signal' | 'writeStallTimeoutMs' | 'logger'
>;

/** The hosted API's `AudioWithTimestampsResponse` / `StreamingAudioChunkWithTimestampsResponse`. */
interface AudioWithTimestamps {
  audio_base64: string;
  alignment: CharacterAlignment | null;
  normalized_alignment: CharacterAlignment | null;
}

/** The media type of newline-delimited JSON: one JSON object per line. */
const NDJSON = 'application/x-ndjson';

/**
 * `POST /text-to-speech/{voice_id}/with-timestamps`: one JSON object once the whole audio is made,
 * the audio in base64 and the characters' timing from the pieces' frames. Charged, like the whole
 * file, once the client has been handed every byte.
 */
export function timestampsJsonSink(o: TimestampSinkOptions): AudioSink {
  const audio: Buffer[] = [];
  const alignment = emptyAlignment();
  const normalized = emptyAlignment();
  return {
    frame(frame) {
      if (frame.type === 'audio') audio.push(frame.data);
      if (frame.type === 'piece') {
        if (frame.alignment) appendAlignment(alignment, frame.alignment);
        if (frame.normalizedAlignment) appendAlignment(normalized, frame.normalizedAlignment);
      }
      return true;
    },
    async finish() {
      const file = completeAudioFile(o.format, Buffer.concat(audio));
      const response: AudioWithTimestamps = {
        audio_base64: file.toString('base64'),
        alignment,
        normalized_alignment: normalized,
      };
      const body = Buffer.from(JSON.stringify(response));
      o.res.status(200).set({
        'Content-Type': 'application/json',
        'Content-Length': String(body.length),
        'history-item-id': o.job.jobId,
        'request-id': o.job.jobId,
      });
      const outcome = await sendBody(o.res, body, o.signal, o.writeStallTimeoutMs);
      return outcome === 'drained' || notDelivered(o, outcome);
    },
  };
}

/**
 * `POST /text-to-speech/{voice_id}/stream/with-timestamps`: newline-delimited JSON, one object per
 * piece (a sentence or a few) as soon as it is made: the audio since the previous line and the
 * piece's characters (times from the start of the whole audio). Audio the encoder hands over after
 * the last piece goes in a final line without alignment. At the client's pace, like `/stream`.
 */
export function timestampsStreamSink(o: TimestampSinkOptions): AudioSink {
  let pending: Buffer[] = [];
  const line = async (
    alignment: CharacterAlignment | null,
    normalized: CharacterAlignment | null,
  ): Promise<boolean> => {
    const chunk: AudioWithTimestamps = {
      audio_base64: Buffer.concat(pending).toString('base64'),
      alignment,
      normalized_alignment: normalized,
    };
    pending = [];
    if (!o.res.headersSent)
      o.res.writeHead(200, { 'Content-Type': NDJSON, 'history-item-id': o.job.jobId, 'request-id': o.job.jobId });
    if (
      o.res.write(`${JSON.stringify(chunk)}\n`) ||
      (await drained(o.res, o.signal, o.writeStallTimeoutMs)) !== 'stalled'
    )
      return true;
    o.logger.info(
      { jobId: o.job.jobId, stallMs: o.writeStallTimeoutMs },
      'stream client stopped reading; cancelling its job',
    );
    return false;
  };
  return {
    async frame(frame: ChunkFrame) {
      if (frame.type === 'audio') pending.push(frame.data);
      if (frame.type === 'piece') return line(frame.alignment ?? null, frame.normalizedAlignment ?? null);
      if (frame.type === 'end' && pending.some((b) => b.length > 0)) return line(null, null);
      return true;
    },
    async finish() {
      if (!o.res.headersSent)
        o.res.writeHead(200, { 'Content-Type': NDJSON, 'history-item-id': o.job.jobId, 'request-id': o.job.jobId });
      o.res.end();
      const outcome = await finished(o.res, o.signal, o.writeStallTimeoutMs);
      return outcome === 'drained' || notDelivered(o, outcome);
    },
  };
}
