import type { OutputFormat } from '../formats';
import type { CodecDescriptor } from './codec';
import { processEncoder } from './process-encoder';

const format = (rate: number, kbps: number): OutputFormat => ({
  id: `mp3_${rate}_${kbps}`,
  codec: 'mp3',
  sampleRate: rate,
  bitrate: kbps,
  contentType: 'audio/mpeg',
  // The hosted API: "MP3 with 192kbps bitrate requires you to be subscribed to Creator tier or above".
  ...(kbps >= 192 ? { minimumPlan: 'creator' as const } : {}),
});

/** MP3 through LAME, the reference encoder, as a process: `--flush` makes it hand over frames at once. */
export const mp3: CodecDescriptor = {
  name: 'mp3',
  formats: [
    format(22050, 32),
    format(24000, 48),
    format(44100, 32),
    format(44100, 64),
    format(44100, 96),
    format(44100, 128),
    format(44100, 192),
  ],
  encoder(format, resampler, onData, options) {
    const khz = String(format.sampleRate / 1000);
    const args = [
      '-r',
      '-s',
      khz,
      '--bitwidth',
      '16',
      '--signed',
      '--little-endian',
      '-m',
      'm',
      '--resample',
      khz, // stop LAME from picking a lower rate for low bit rates
      '--cbr',
      '-b',
      String(format.bitrate ?? 128),
      '-q',
      '5',
      '--flush',
      '--silent',
      '--nohist',
      '-',
      '-',
    ];
    return processEncoder(options.lameBinary ?? 'lame', args, resampler, onData);
  },
};
