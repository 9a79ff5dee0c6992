import { execFile } from 'node:child_process';

/**
 * Decoding with Debian's ffmpeg and ffprobe (system packages, not our encoders): what a player
 * makes of a body. Headerless bodies (PCM, μ-law, A-law) need their layout stated, as a player
 * would be told it; everything else is recognised from its own bytes.
 */
export interface ProbedStream {
  formatName: string;
  codecName: string;
  sampleRate: number;
  channels: number;
  /** bit/s as ffprobe reports it (0 when it reports none). */
  bitRate: number;
}

/** ffmpeg's input options for a format id's body. */
export function inputOptions(formatId: string): string[] {
  const [codec, rate] = formatId.split('_');
  if (codec === 'pcm') return ['-f', 's16le', '-ar', rate!, '-ac', '1'];
  if (codec === 'ulaw') return ['-f', 'mulaw', '-ar', rate!, '-ac', '1'];
  if (codec === 'alaw') return ['-f', 'alaw', '-ar', rate!, '-ac', '1'];
  return [];
}

function run(binary: string, args: string[], input: Buffer): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const child = execFile(
      binary,
      args,
      { encoding: 'buffer', maxBuffer: 256 * 1024 * 1024 },
      (err, stdout, stderr) => {
        if (err) reject(new Error(`${binary} failed: ${err.message} ${stderr.toString()}`));
        else resolve(stdout);
      },
    );
    child.stdin?.on('error', () => undefined);
    child.stdin?.end(input);
  });
}

export async function probe(formatId: string, body: Buffer): Promise<ProbedStream> {
  const out = await run(
    'ffprobe',
    [
      '-v',
      'error',
      ...inputOptions(formatId),
      '-show_entries',
      'stream=codec_name,sample_rate,channels,bit_rate:format=format_name',
      '-of',
      'json',
      'pipe:0',
    ],
    body,
  );
  const json = JSON.parse(out.toString()) as {
    streams: Record<string, string | number>[];
    format: { format_name: string };
  };
  const stream = json.streams[0];
  if (!stream || json.streams.length !== 1) throw new Error(`expected one audio stream, got ${out.toString()}`);
  return {
    formatName: json.format.format_name,
    codecName: String(stream.codec_name),
    sampleRate: Number(stream.sample_rate),
    channels: Number(stream.channels),
    bitRate: Number(stream.bit_rate ?? 0) || 0,
  };
}

/** The body decoded in full to 16-bit mono PCM at `rate` Hz (ffmpeg's own resampler when it differs). */
export async function decode(formatId: string, body: Buffer, rate: number): Promise<Int16Array> {
  const out = await run(
    'ffmpeg',
    [
      '-v',
      'error',
      '-nostdin',
      ...inputOptions(formatId),
      '-i',
      'pipe:0',
      '-f',
      's16le',
      '-ac',
      '1',
      '-ar',
      String(rate),
      'pipe:1',
    ],
    body,
  );
  const copy = Buffer.from(out);
  return new Int16Array(copy.buffer, copy.byteOffset, copy.length >> 1);
}
