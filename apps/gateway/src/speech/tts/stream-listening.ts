import { audioBytesPerSecond, streamHeaderBytes, type OutputFormat } from '@platform/speech-engine';
import { FrameTimeoutError, UNAVAILABLE_STATUS, type ChunkFrame } from '@platform/speech-jobs';
import { countCut, recordStreamHeard, type CutReason, type StreamSurface } from '../../metrics/stream-metrics';
import { playerModel } from './player-model';

/**
 * One stream as its listener hears it (`playerModel`), fed with the frames as they are handed to
 * the client, and recorded once when the stream ends (`speech_stream_underruns_total`,
 * `speech_stream_longest_silence_seconds`, `speech_streams_cut_total`).
 */
export interface StreamListening {
  /** One job's frames, each after it was handed to the client (a stream-input session runs one job per segment). */
  job(): (frame: ChunkFrame) => void;
  /** The client has not sent the text of more audio yet: a silence until it has is not the stream's. */
  rest(): void;
  /** The stream failed: counted as cut if the listener had heard audio (the first reason stands). */
  failed(reason: CutReason): void;
  /** The stream ended (once; later calls do nothing): a stream that had audio is recorded. */
  end(): void;
}

/**
 * `perPiece`: the client gets the audio a piece at a time (JSON lines or messages, at each piece
 * frame), so it is credited then, with the piece's duration as the worker measured it. So is MP3
 * and Opus audio, whose bytes do not say their duration (the encoder holds some back): crediting
 * it at the piece frame, after its bytes went out, never credits audio the client has not had.
 */
export function listenTo(
  surface: StreamSurface,
  format: OutputFormat,
  options: { perPiece?: boolean; now?: () => number } = {},
): StreamListening {
  const now = options.now ?? Date.now;
  const player = playerModel();
  const bytesPerSecond = options.perPiece ? null : audioBytesPerSecond(format);
  let cutReason: CutReason | null = null;
  let ended = false;
  return {
    job() {
      let header = streamHeaderBytes(format);
      return (frame) => {
        if (bytesPerSecond !== null && frame.type === 'audio') {
          const counted = Math.max(0, frame.data.length - header);
          header -= frame.data.length - counted;
          player.play(now(), counted / bytesPerSecond);
        } else if (bytesPerSecond === null && frame.type === 'piece') {
          player.play(now(), frame.durationSeconds);
        }
      };
    },
    rest() {
      player.rest(now());
    },
    failed(reason) {
      if (player.started && cutReason === null) cutReason = reason;
    },
    end() {
      if (ended || !player.started) return;
      ended = true;
      recordStreamHeard(surface, player.longestSilenceSeconds);
      if (cutReason) countCut(surface, cutReason);
    },
  };
}

/** The cut a failure frame means (`frameError` makes the client's error of the same frame). */
export function frameCutReason(frame: ChunkFrame): CutReason | null {
  if (frame.type === 'error') return frame.status === UNAVAILABLE_STATUS ? 'worker_lost' : 'synthesis_error';
  if (frame.type === 'cancelled') return 'cancelled';
  return null;
}

/** The cut a failure of the pipeline means (no frame in time, Redis). */
export function pipelineCutReason(err: unknown): CutReason {
  return err instanceof FrameTimeoutError ? 'timeout' : 'pipeline';
}
