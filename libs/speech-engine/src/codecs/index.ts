import type { OutputFormat } from '../formats';
import type { CodecDescriptor } from './codec';
import { alaw, ulaw } from './g711';
import { mp3 } from './mp3';
import { opus } from './opus';
import { pcm } from './pcm';
import { wav } from './wav';

export type { AudioEncoder, CodecDescriptor, EncoderOptions } from './codec';

/** Every codec of `output_format`, in the order the API lists their formats. */
export const CODECS: readonly CodecDescriptor[] = [mp3, pcm, wav, ulaw, alaw, opus];

const BY_NAME = new Map(CODECS.map((c) => [c.name, c]));

/** The descriptor of `format`'s codec (every format comes from one: formats.ts lists theirs). */
export function codecOf(format: Pick<OutputFormat, 'codec'>): CodecDescriptor {
  const codec = BY_NAME.get(format.codec);
  if (!codec) throw new Error(`no codec ${format.codec}`);
  return codec;
}

/** `format`'s whole body once all of it exists (the whole-file response, the history item). */
export function completeAudioFile(format: OutputFormat, audio: Buffer): Buffer {
  return codecOf(format).completeFile?.(format, audio) ?? audio;
}

/** Bytes at the start of each job's audio that only the first job of a connection should send. */
export function streamHeaderBytes(format: OutputFormat): number {
  return codecOf(format).streamHeaderBytes ?? 0;
}

/** Bytes per second of audio where the bytes alone say it (linear PCM, G.711); null for MP3 and Opus. */
export function audioBytesPerSecond(format: OutputFormat): number | null {
  return codecOf(format).bytesPerSecond?.(format) ?? null;
}

/** How a resumed job's new encoding continues `sent`, the bytes its stream already has. */
export function continueEncoding(format: OutputFormat, sent: Buffer): (chunk: Buffer) => Buffer {
  return codecOf(format).continuation?.(sent) ?? ((chunk) => chunk);
}
