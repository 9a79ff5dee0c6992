import {
  UNKNOWN_WAV_SIZE,
  WAV_HEADER_BYTES,
  completeAudioFile,
  createEncoder,
  decodeAlaw,
  encodeAlaw,
  resolveOutputFormat,
  streamHeaderBytes,
  wavHeader,
} from '../src';

describe('A-law (G.711)', () => {
  it('round-trips within the codec step, keeping the sign', () => {
    for (const s of [0, 8, -8, 100, -100, 1000, -5000, 20000, 32767, -32768]) {
      const back = decodeAlaw(encodeAlaw(Int16Array.of(s))[0]!);
      expect(Math.sign(back) || 1).toBe(Math.sign(s) || 1);
      expect(Math.abs(back - s)).toBeLessThanOrEqual(Math.max(16, Math.abs(s) * 0.07));
    }
  });

  it('uses the standard code points: silence is 0xD5, full scale 0xAA and 0x2A', () => {
    expect([...encodeAlaw(Int16Array.of(0, 32767, -32768))]).toEqual([0xd5, 0xaa, 0x2a]);
  });
});

describe('WAV', () => {
  it('a streamed header says its sizes are unknown; a whole file gets the real ones', () => {
    const header = wavHeader(16000);
    expect(header.length).toBe(WAV_HEADER_BYTES);
    expect(header.toString('latin1', 0, 16)).toBe('RIFF\xff\xff\xff\xffWAVEfmt ');
    expect(header.readUInt32LE(24)).toBe(16000);
    expect(header.readUInt32LE(28)).toBe(32000);
    expect(header.readUInt16LE(34)).toBe(16);
    expect(header.readUInt32LE(40)).toBe(UNKNOWN_WAV_SIZE);

    const format = resolveOutputFormat('wav_16000')!;
    const file = completeAudioFile(format, Buffer.concat([header, Buffer.alloc(1000, 1)]));
    expect(file.readUInt32LE(4)).toBe(1036);
    expect(file.readUInt32LE(40)).toBe(1000);
    expect(file.subarray(44).equals(Buffer.alloc(1000, 1))).toBe(true);
    const pcm = Buffer.alloc(10, 2);
    expect(completeAudioFile(resolveOutputFormat('pcm_16000')!, pcm)).toBe(pcm);
  });

  it('only WAV has a stream header for a WebSocket to send once', () => {
    expect(streamHeaderBytes(resolveOutputFormat('wav_8000')!)).toBe(WAV_HEADER_BYTES);
    for (const id of ['pcm_8000', 'alaw_8000', 'mp3_44100_128', 'opus_48000_64'])
      expect(streamHeaderBytes(resolveOutputFormat(id)!)).toBe(0);
  });

  it('the encoder puts the header before the first samples, once, and still writes it for no audio', async () => {
    const format = resolveOutputFormat('wav_22050')!;
    const chunks: Buffer[] = [];
    const encoder = createEncoder(format, (bytes) => chunks.push(bytes));
    encoder.write(Int16Array.of(1, 2, 3));
    encoder.write(Int16Array.of(4));
    await encoder.end();
    const all = Buffer.concat(chunks);
    expect(all.length).toBe(WAV_HEADER_BYTES + 8);
    expect(all.toString('latin1', 0, 4)).toBe('RIFF');
    expect([0, 2, 4, 6].map((at) => all.readInt16LE(44 + at))).toEqual([1, 2, 3, 4]);

    const empty: Buffer[] = [];
    await createEncoder(format, (bytes) => empty.push(bytes)).end();
    expect(Buffer.concat(empty).equals(wavHeader(22050))).toBe(true);
  });
});
