import { spawn } from 'node:child_process';
import { sniffContainer, type AudioContainer } from './sniff';

/** Everything is analysed at this rate: enough for F0 and the first formants, cheap to process. */
export const ANALYSIS_RATE = 16_000;

export interface DecodedAudio {
  container: AudioContainer;
  /** Mono samples in [-1, 1] at `ANALYSIS_RATE`. */
  samples: Float32Array;
  durationSec: number;
}

export type DecodeFailure = 'not_audio' | 'corrupt' | 'too_long';

export class DecodeError extends Error {
  constructor(
    readonly reason: DecodeFailure,
    message: string,
  ) {
    super(message);
    this.name = 'DecodeError';
  }
}

export interface DecodeOptions {
  /** Decoding stops past this many seconds and the upload is refused as too long. */
  maxDurationSec: number;
  timeoutMs?: number;
  ffmpegPath?: string;
}

/**
 * Decodes WAV, MP3, Ogg (Opus/Vorbis) or FLAC bytes to mono float PCM with Debian's `ffmpeg` (a
 * well-kept decoder for every one of these formats). The container is recognised from the bytes
 * and named to ffmpeg explicitly, so nothing but these four formats is ever parsed.
 */
export async function decodeAudio(bytes: Buffer, options: DecodeOptions): Promise<DecodedAudio> {
  const container = sniffContainer(bytes);
  if (!container) throw new DecodeError('not_audio', 'not a WAV, MP3, Ogg/Opus or FLAC file');
  const limitSec = options.maxDurationSec + 0.5;
  const args = [
    '-v',
    'error',
    '-nostdin',
    '-f',
    container,
    '-i',
    'pipe:0',
    '-vn',
    '-ac',
    '1',
    '-ar',
    String(ANALYSIS_RATE),
    '-t',
    String(limitSec),
    '-f',
    'f32le',
    'pipe:1',
  ];
  const pcm = await runFfmpeg(options.ffmpegPath ?? 'ffmpeg', args, bytes, options.timeoutMs ?? 30_000);
  const samples = new Float32Array(pcm.buffer, pcm.byteOffset, Math.floor(pcm.length / 4));
  const copy = Float32Array.from(samples);
  const durationSec = copy.length / ANALYSIS_RATE;
  if (durationSec === 0) throw new DecodeError('corrupt', 'the file holds no decodable audio');
  if (durationSec > options.maxDurationSec)
    throw new DecodeError('too_long', `longer than ${options.maxDurationSec} seconds`);
  return { container, samples: copy, durationSec };
}

function runFfmpeg(command: string, args: string[], input: Buffer, timeoutMs: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    let err = '';
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => {
      if (err.length < 2000) err += chunk.toString();
    });
    // ffmpeg may stop reading early (corrupt input, `-t` reached): that is not our error.
    child.stdin.on('error', () => undefined);
    child.on('error', (e) => {
      clearTimeout(timer);
      reject(new Error(`ffmpeg could not be started: ${e.message}`));
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      const pcm = Buffer.concat(out);
      // A truncated file decodes partially with errors: usable audio is kept only if ffmpeg ended well.
      if (code === 0) resolve(pcm);
      else reject(new DecodeError('corrupt', `the audio could not be decoded${err ? `: ${err.split('\n')[0]}` : ''}`));
    });
    child.stdin.end(input);
  });
}
