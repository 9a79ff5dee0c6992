/**
 * A microphone recording as a 16-bit mono WAV file. Browsers record Opus in WebM or MP4, which the
 * cloning API does not take; decoded and written as WAV it is a format every server accepts.
 */
export async function recordingAsWav(recording: Blob): Promise<Blob> {
  const context = new AudioContext();
  try {
    const decoded = await context.decodeAudioData(await recording.arrayBuffer());
    return encodeWav(mixDown(decoded), decoded.sampleRate);
  } finally {
    void context.close();
  }
}

function mixDown(buffer: AudioBuffer): Float32Array {
  const mono = new Float32Array(buffer.length);
  for (let channel = 0; channel < buffer.numberOfChannels; channel += 1) {
    const data = buffer.getChannelData(channel);
    for (let i = 0; i < data.length; i += 1) mono[i]! += data[i]! / buffer.numberOfChannels;
  }
  return mono;
}

function encodeWav(samples: Float32Array, sampleRate: number): Blob {
  const bytes = new DataView(new ArrayBuffer(44 + samples.length * 2));
  const ascii = (offset: number, text: string) =>
    [...text].forEach((c, i) => bytes.setUint8(offset + i, c.charCodeAt(0)));
  ascii(0, 'RIFF');
  bytes.setUint32(4, 36 + samples.length * 2, true);
  ascii(8, 'WAVE');
  ascii(12, 'fmt ');
  bytes.setUint32(16, 16, true); // fmt chunk size
  bytes.setUint16(20, 1, true); // PCM
  bytes.setUint16(22, 1, true); // mono
  bytes.setUint32(24, sampleRate, true);
  bytes.setUint32(28, sampleRate * 2, true); // byte rate
  bytes.setUint16(32, 2, true); // block align
  bytes.setUint16(34, 16, true); // bits per sample
  ascii(36, 'data');
  bytes.setUint32(40, samples.length * 2, true);
  samples.forEach((sample, i) => bytes.setInt16(44 + i * 2, Math.max(-1, Math.min(1, sample)) * 0x7fff, true));
  return new Blob([bytes.buffer], { type: 'audio/wav' });
}
