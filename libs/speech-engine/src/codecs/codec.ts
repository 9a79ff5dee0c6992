import type { OutputFormat } from '../formats';
import type { Resampler } from '../resample';

/**
 * Turns engine PCM (22 050 Hz) into the requested format, as a stream: `write` each piece in
 * order, `end` once; encoded bytes arrive through `onData` as soon as the encoder has them.
 * One encoder per job keeps resampler and MP3 bit reservoir state across pieces: no gap or click
 * at sentence joins.
 */
export interface AudioEncoder {
  write(pcm: Int16Array): void;
  /** Resolves when every byte has been handed to `onData`. */
  end(): Promise<void>;
  /** Stops at once (cancelled job); no more data. */
  abort(): void;
}

export interface EncoderOptions {
  lameBinary?: string;
  ffmpegBinary?: string;
}

/**
 * One codec of `output_format` (`<codec>_<rate>[_<kbps>]`): the one place a codec is declared.
 * Its formats join the API's list (formats.ts), its encoder serves every job (encoder.ts), and the
 * optional parts say how its bytes behave where that differs from "complete as streamed".
 * A new codec is a file in this folder and a line in `CODECS` (index.ts).
 */
export interface CodecDescriptor {
  /** The `<codec>` part of its format ids. */
  name: string;
  /** The output formats it offers, in the order the API lists them. */
  formats: readonly OutputFormat[];
  /** A job's encoder; `resampler` brings engine PCM to the format's rate. */
  encoder(
    format: OutputFormat,
    resampler: Resampler,
    onData: (bytes: Buffer) => void,
    options: EncoderOptions,
  ): AudioEncoder;
  /** Bytes per second of audio where the byte count alone says how much audio arrived; absent for compressed codecs. */
  bytesPerSecond?(format: OutputFormat): number;
  /** Header bytes only a connection's first job sends (a WebSocket joins several jobs into one stream); absent: none. */
  streamHeaderBytes?: number;
  /** The whole file once all the audio exists (the whole-file response, the history item); absent: complete as streamed. */
  completeFile?(format: OutputFormat, audio: Buffer): Buffer;
  /**
   * How a second encoding of the same audio (a worker resuming a job) continues the bytes already
   * sent, byte for byte; absent: the encoding is deterministic as is.
   */
  continuation?(sent: Buffer): (chunk: Buffer) => Buffer;
}
