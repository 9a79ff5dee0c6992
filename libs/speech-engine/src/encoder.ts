import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { encodeAlaw } from './alaw';
import { ENGINE_SAMPLE_RATE } from './espeak';
import type { OutputFormat } from './formats';
import { Resampler } from './resample';
import { encodeUlaw } from './ulaw';
import { wavHeader } from './wav';

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

function toBuffer(samples: Int16Array): Buffer {
  return Buffer.from(samples.buffer, samples.byteOffset, samples.byteLength);
}

/** Bytes of each headerless sample codec: 16-bit PCM as is, or one G.711 byte per sample. */
const linear16 = (samples: Int16Array) => Buffer.from(toBuffer(samples));
const SAMPLE_CODECS = {
  pcm: linear16,
  wav: linear16,
  ulaw: encodeUlaw,
  alaw: encodeAlaw,
} as const;

export function createEncoder(format: OutputFormat, onData: (bytes: Buffer) => void, options: EncoderOptions = {}): AudioEncoder {
  const resampler = new Resampler(ENGINE_SAMPLE_RATE, format.sampleRate);
  if (format.codec === 'mp3') return lameEncoder(format, resampler, onData, options);
  if (format.codec === 'opus') return opusEncoder(format, resampler, onData, options);
  return sampleEncoder(format, SAMPLE_CODECS[format.codec], resampler, onData);
}

/** Codecs done here, sample by sample; WAV's header (its sizes unknown yet) goes first. */
function sampleEncoder(format: OutputFormat, encode: (samples: Int16Array) => Buffer, resampler: Resampler, onData: (bytes: Buffer) => void): AudioEncoder {
  let header: Buffer | null = format.codec === 'wav' ? wavHeader(format.sampleRate) : null;
  const emit = (samples: Int16Array) => {
    if (samples.length === 0) return;
    const bytes = encode(samples);
    onData(header ? Buffer.concat([header, bytes]) : bytes);
    header = null;
  };
  let aborted = false;
  return {
    write: (pcm) => {
      if (!aborted) emit(resampler.push(pcm));
    },
    end: async () => {
      if (aborted) return;
      emit(resampler.end());
      if (header) onData(header); // no audio at all: still a valid, empty WAV stream
    },
    abort: () => {
      aborted = true;
    },
  };
}

/** LAME, the reference MP3 encoder, as a process: `--flush` makes it hand over frames at once. */
function lameEncoder(format: OutputFormat, resampler: Resampler, onData: (bytes: Buffer) => void, options: EncoderOptions): AudioEncoder {
  const khz = String(format.sampleRate / 1000);
  const args = [
    '-r', '-s', khz, '--bitwidth', '16', '--signed', '--little-endian', '-m', 'm',
    '--resample', khz, // stop LAME from picking a lower rate for low bit rates
    '--cbr', '-b', String(format.bitrate ?? 128),
    '-q', '5', '--flush', '--silent', '--nohist', '-', '-',
  ];
  return processEncoder(options.lameBinary ?? 'lame', args, resampler, onData);
}

/**
 * Opus in Ogg through Debian's ffmpeg (libopus, the reference Opus encoder). Our resampler brings the
 * engine's 22 050 Hz to 48 kHz (Opus's native rate, so libopus does no resampling of its own).
 * `-probesize 32 -analyzeduration 0`: ffmpeg otherwise buffers about a second of input before it
 * starts; `-page_duration 100000 -flush_packets 1`: an Ogg page leaves every 100 ms of audio instead
 * of every second, so `/stream` gets its first pages right after the first sentence.
 * Constrained VBR keeps the average at the declared bit rate (plain VBR overshoots it by half on
 * eSpeak's buzzy signal).
 */
function opusEncoder(format: OutputFormat, resampler: Resampler, onData: (bytes: Buffer) => void, options: EncoderOptions): AudioEncoder {
  const args = [
    '-hide_banner', '-loglevel', 'error', '-nostdin',
    '-probesize', '32', '-analyzeduration', '0',
    '-f', 's16le', '-ar', String(format.sampleRate), '-ac', '1', '-i', 'pipe:0',
    '-c:a', 'libopus', '-b:a', `${format.bitrate ?? 64}k`, '-vbr', 'constrained', '-application', 'audio',
    '-page_duration', '100000', '-flush_packets', '1',
    '-f', 'ogg', 'pipe:1',
  ];
  return processEncoder(options.ffmpegBinary ?? 'ffmpeg', args, resampler, onData);
}

/** An encoder process fed raw 16-bit PCM on stdin, its encoded stream read from stdout. */
function processEncoder(binary: string, args: string[], resampler: Resampler, onData: (bytes: Buffer) => void): AudioEncoder {
  const child: ChildProcessWithoutNullStreams = spawn(binary, args, { stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  let aborted = false;
  child.stdout.on('data', (d: Buffer) => {
    if (!aborted) onData(d);
  });
  child.stderr.on('data', (d: Buffer) => {
    if (stderr.length < 2000) stderr += d.toString();
  });
  child.stdin.on('error', () => undefined);
  const closed = new Promise<void>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code, signal) => {
      if (code === 0 || aborted) resolve();
      else reject(new Error(`${binary} exited with ${code ?? signal}: ${stderr.trim()}`));
    });
  });
  // Keep an unobserved failure from crashing the process; `end()` reports it.
  closed.catch(() => undefined);
  return {
    write(pcm) {
      if (aborted) return;
      const samples = resampler.push(pcm);
      if (samples.length > 0) child.stdin.write(Buffer.from(toBuffer(samples)));
    },
    async end() {
      if (!aborted) {
        const tail = resampler.end();
        if (tail.length > 0) child.stdin.write(Buffer.from(toBuffer(tail)));
        child.stdin.end();
      }
      await closed;
    },
    abort() {
      aborted = true;
      child.kill('SIGKILL');
    },
  };
}
