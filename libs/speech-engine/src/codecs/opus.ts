import type { OutputFormat } from '../formats';
import type { CodecDescriptor } from './codec';
import { restampOggSerial } from './ogg-serial';
import { processEncoder } from './process-encoder';

const format = (kbps: number): OutputFormat => ({
  id: `opus_48000_${kbps}`,
  codec: 'opus',
  sampleRate: 48000,
  bitrate: kbps,
  contentType: 'audio/ogg;codecs=opus',
});

/** Bytes 14-17 of an Ogg page: its stream serial number (RFC 3533, section 6). */
const SERIAL_END = 18;

/**
 * Opus in Ogg (RFC 7845), mono at 48 kHz; `codecs` tells players which codec the Ogg holds. Encoded
 * by Debian's ffmpeg (libopus, the reference Opus encoder); our resampler brings the engine's
 * 22 050 Hz to 48 kHz (Opus's native rate, so libopus does no resampling of its own).
 * `-probesize 32 -analyzeduration 0`: ffmpeg otherwise buffers about a second of input before it
 * starts; `-page_duration 100000 -flush_packets 1`: an Ogg page leaves every 100 ms of audio instead
 * of every second, so `/stream` gets its first pages right after the first sentence.
 * Constrained VBR keeps the average at the declared bit rate (plain VBR overshoots it by half on
 * eSpeak's buzzy signal).
 */
export const opus: CodecDescriptor = {
  name: 'opus',
  formats: [format(32), format(64), format(96), format(128), format(192)],
  encoder(format, resampler, onData, options) {
    const args = [
      '-hide_banner',
      '-loglevel',
      'error',
      '-nostdin',
      '-probesize',
      '32',
      '-analyzeduration',
      '0',
      '-f',
      's16le',
      '-ar',
      String(format.sampleRate),
      '-ac',
      '1',
      '-i',
      'pipe:0',
      '-c:a',
      'libopus',
      '-b:a',
      `${format.bitrate ?? 64}k`,
      '-vbr',
      'constrained',
      '-application',
      'audio',
      '-page_duration',
      '100000',
      '-flush_packets',
      '1',
      '-f',
      'ogg',
      'pipe:1',
    ];
    return processEncoder(options.ffmpegBinary ?? 'ffmpeg', args, resampler, onData);
  },
  // A second encoding differs only in its random stream serial: its pages take the sent one's.
  continuation: (sent) =>
    sent.length >= SERIAL_END ? restampOggSerial(sent.subarray(14, SERIAL_END)) : (chunk) => chunk,
};
