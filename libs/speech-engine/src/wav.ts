/**
 * WAV (RIFF/WAVE with a canonical 44-byte header: `fmt ` PCM, 16-bit, mono) around the same
 * samples as `pcm_<rate>`. A stream's header is written before its length is known, so both sizes
 * say "unknown" (0xFFFFFFFF, as ffmpeg writes a WAV it cannot seek back into; players then read
 * to the end); a whole file gets its real sizes (`completeWav`).
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

/** A whole WAV file from a streamed one (its header's sizes "unknown"): the header gets the real sizes. */
export function completeWav(sampleRate: number, audio: Buffer): Buffer {
  if (audio.length < WAV_HEADER_BYTES) return audio;
  const file = Buffer.from(audio);
  wavHeader(sampleRate, audio.length - WAV_HEADER_BYTES).copy(file, 0);
  return file;
}

/**
 * The 16-bit samples of a WAV from an engine or tool (`producer` names it in errors): from the
 * `data` chunk to the end, since a streamed WAV's size fields are placeholders.
 */
export function pcmFromWav(wav: Buffer, producer: string): Int16Array {
  if (wav.length < 12 || wav.toString('ascii', 0, 4) !== 'RIFF' || wav.toString('ascii', 8, 12) !== 'WAVE') {
    throw new Error(`${producer} did not produce a WAV stream`);
  }
  let offset = 12;
  while (offset + 8 <= wav.length) {
    const id = wav.toString('ascii', offset, offset + 4);
    const size = wav.readUInt32LE(offset + 4);
    if (id === 'data') {
      const start = offset + 8;
      const bytes = (wav.length - start) & ~1;
      const copy = Buffer.from(wav.subarray(start, start + bytes));
      return new Int16Array(copy.buffer, copy.byteOffset, bytes / 2);
    }
    offset += 8 + size + (size & 1);
  }
  throw new Error(`${producer}'s WAV has no data chunk`);
}
