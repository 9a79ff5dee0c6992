import { execFileSync } from 'node:child_process';

/** A 16-bit mono PCM WAV file. */
export function wavFromPcm(pcm: Int16Array, sampleRate: number): Buffer {
  const data = Buffer.from(pcm.buffer, pcm.byteOffset, pcm.byteLength);
  const header = Buffer.alloc(44);
  header.write('RIFF', 0, 'latin1');
  header.writeUInt32LE(36 + data.length, 4);
  header.write('WAVE', 8, 'latin1');
  header.write('fmt ', 12, 'latin1');
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20);
  header.writeUInt16LE(1, 22);
  header.writeUInt32LE(sampleRate, 24);
  header.writeUInt32LE(sampleRate * 2, 28);
  header.writeUInt16LE(2, 32);
  header.writeUInt16LE(16, 34);
  header.write('data', 36, 'latin1');
  header.writeUInt32LE(data.length, 40);
  return Buffer.concat([header, data]);
}

/** Silence (or a quiet tone) of the given length, as WAV. */
export function toneWav(seconds: number, hz = 0, sampleRate = 16_000): Buffer {
  const pcm = new Int16Array(Math.round(seconds * sampleRate));
  if (hz > 0)
    for (let i = 0; i < pcm.length; i++) pcm[i] = Math.round(8000 * Math.sin((2 * Math.PI * hz * i) / sampleRate));
  return wavFromPcm(pcm, sampleRate);
}

/** Speech recorded with eSpeak NG itself (the reference recordings of the cloning tests). */
export function espeakWav(text: string, voice: string, pitch: number): Buffer {
  return execFileSync('espeak-ng', ['-v', voice, '-p', String(pitch), '--stdout', text], {
    maxBuffer: 64 * 1024 * 1024,
  });
}

/** Converts WAV to another container with ffmpeg (MP3, Ogg/Opus, FLAC). */
export function convert(wav: Buffer, format: 'mp3' | 'ogg' | 'flac'): Buffer {
  const codec =
    format === 'mp3'
      ? ['-c:a', 'libmp3lame', '-b:a', '64k']
      : format === 'ogg'
        ? ['-c:a', 'libopus', '-b:a', '32k']
        : ['-c:a', 'flac'];
  return execFileSync(
    'ffmpeg',
    ['-v', 'error', '-nostdin', '-f', 'wav', '-i', 'pipe:0', ...codec, '-f', format, 'pipe:1'],
    { input: wav, maxBuffer: 64 * 1024 * 1024 },
  );
}

export const REFERENCE_TEXT =
  'The quick brown fox jumps over the lazy dog. She sells sea shells by the sea shore, and the shells she sells are surely sea shells.';
