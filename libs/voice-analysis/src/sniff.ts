/** The containers we accept, recognised by their first bytes (never by file name or header). */
export type AudioContainer = 'wav' | 'mp3' | 'ogg' | 'flac';

export const MEDIA_TYPES: Record<AudioContainer, string> = {
  wav: 'audio/wav',
  mp3: 'audio/mpeg',
  ogg: 'audio/ogg',
  flac: 'audio/flac',
};

export function sniffContainer(bytes: Buffer): AudioContainer | null {
  if (bytes.length < 12) return null;
  if (bytes.toString('latin1', 0, 4) === 'RIFF' && bytes.toString('latin1', 8, 12) === 'WAVE') return 'wav';
  if (bytes.toString('latin1', 0, 4) === 'fLaC') return 'flac';
  if (bytes.toString('latin1', 0, 4) === 'OggS') return 'ogg';
  if (bytes.toString('latin1', 0, 3) === 'ID3') return 'mp3';
  // A bare MPEG audio frame: 11 sync bits, layer III.
  if (bytes[0] === 0xff && ((bytes[1] ?? 0) & 0xe0) === 0xe0 && ((bytes[1] ?? 0) & 0x06) === 0x02) return 'mp3';
  return null;
}
