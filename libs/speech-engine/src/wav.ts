import type { OutputFormat } from './formats';

/**
 * WAV (RIFF/WAVE with a canonical 44-byte header: `fmt ` PCM, 16-bit, mono) around the same
 * samples as `pcm_<rate>`. A stream's header is written before its length is known, so both sizes
 * say "unknown" (0xFFFFFFFF, as ffmpeg writes a WAV it cannot seek back into; players then read
 * to the end); a whole file gets its real sizes (`completeAudioFile`).
 */
export const WAV_HEADER_BYTES = 44;
export const UNKNOWN_WAV_SIZE = 0xffffffff;

export function wavHeader(sampleRate: number, dataBytes: number = UNKNOWN_WAV_SIZE): Buffer {
  const header = Buffer.alloc(WAV_HEADER_BYTES);
  const known = dataBytes !== UNKNOWN_WAV_SIZE;
  header.write('RIFF', 0, 'latin1');
  header.writeUInt32LE(known ? dataBytes + WAV_HEADER_BYTES - 8 : UNKNOWN_WAV_SIZE, 4);
  header.write('WAVEfmt ', 8, 'latin1');
  header.writeUInt32LE(16, 16); // fmt chunk size
  header.writeUInt16LE(1, 20); // PCM
  header.writeUInt16LE(1, 22); // channels
  header.writeUInt32LE(sampleRate, 24);
  header.writeUInt32LE(sampleRate * 2, 28); // bytes per second
  header.writeUInt16LE(2, 32); // block align
  header.writeUInt16LE(16, 34); // bits per sample
  header.write('data', 36, 'latin1');
  header.writeUInt32LE(dataBytes, 40);
  return header;
}

/**
 * A format's whole body once all of it exists (the whole-file response, the history item): a WAV
 * stream's header gets the real sizes; every other format is complete as streamed.
 */
export function completeAudioFile(format: OutputFormat, audio: Buffer): Buffer {
  if (format.codec !== 'wav' || audio.length < WAV_HEADER_BYTES) return audio;
  const file = Buffer.from(audio);
  wavHeader(format.sampleRate, audio.length - WAV_HEADER_BYTES).copy(file, 0);
  return file;
}

/**
 * Bytes at the start of each job's audio that only the first job of a connection should send: a
 * WebSocket's segments are separate jobs joined into one stream, and a WAV stream has one header.
 */
export function streamHeaderBytes(format: OutputFormat): number {
  return format.codec === 'wav' ? WAV_HEADER_BYTES : 0;
}
